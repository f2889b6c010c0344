"""`encode PATH [TEXT] [--file F] [--format text|json] [--special] [--pattern REGEX]`: the
text encoded exactly as HF tokenizers / tiktoken encode it (the engine runs in-process)."""

from __future__ import annotations

import json
import sys

import orjson

from .common import err as _err
from .common import load_failure_status, main_tokenizer_file, write_out
from .progress import progress
from .report import FAILED, OK


def add_arguments(p) -> None:
    p.add_argument(
        "path",
        metavar="PATH",
        help="tokenizer.json, vocab.json or merges file (with its pair "
        "beside it), .tiktoken, or a folder (its tokenizer.json)",
    )
    p.add_argument("text", metavar="TEXT", nargs="?", help="the text (default: --file, else stdin)")
    p.add_argument(
        "--file", metavar="F", help="encode the content of F (exact UTF-8 bytes: CRLF and a final newline are kept)"
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--special",
        action="store_true",
        help="add the post-processor's special tokens (BOS/EOS), as add_special_tokens=True",
    )
    p.add_argument(
        "--pattern", metavar="REGEX", help="split pattern of a .tiktoken file that is not one of the known encodings"
    )


def run(args) -> int:
    from ..core.behaviour.encode import encode, render_text
    from ..core.behaviour.load import load_tokenizer_file
    from ..core.behaviour.loaded import LoadError

    text = _input_text(args)
    path = main_tokenizer_file(args.path)
    if text is None or path is None:
        return FAILED
    from . import tables

    args.path = path
    plugin = tables.claim(path)  # the one dispatch: a table plug-in's file, or the index's
    if tables.reads_table(plugin):
        from .table_encode import encode as encode_table

        return encode_table(args, plugin, text)
    try:
        with progress(f"loading {path}"):
            loaded = load_tokenizer_file(path, args.pattern)
    except OSError as e:
        _err(f"{getattr(e, 'filename', None) or path}: cannot read: {e.strerror or e}")
        return FAILED
    except LoadError as e:
        _err(str(e))
        return load_failure_status(path)  # 1 for a broken tokenizer file, as `check` gives
    result = encode(loaded, text, args.special, path)
    if args.format == "json":
        try:
            out = orjson.dumps(result) + b"\n"
        except TypeError:  # a lone surrogate in a stored form: orjson refuses, json escapes it
            out = json.dumps(result).encode() + b"\n"
    else:
        out = (render_text(result, text) + "\n").encode("utf-8", "surrogateescape")
    write_out(out)  # `encode ... | head`: quietly
    return OK


def _input_text(args) -> str | None:
    """TEXT, else the bytes of --file, else stdin, as UTF-8 kept exactly (no newline
    translation). Bytes that are not UTF-8 become lone surrogates (surrogateescape), which
    the encoder replaces by U+FFFD as tiktoken does."""
    if args.text is not None:
        if args.file is not None:
            _err("give TEXT or --file, not both")
            return None
        return args.text
    if args.file is not None:
        try:
            with open(args.file, "rb") as f:
                data = f.read()
        except OSError as e:
            _err(f"{args.file}: cannot read: {e.strerror or e}")
            return None
    else:
        data = sys.stdin.buffer.read()
    return data.decode("utf-8", "surrogateescape")
