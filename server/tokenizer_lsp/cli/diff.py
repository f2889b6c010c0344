"""`diff OLD NEW`: what differs between two tokenizers, by meaning; exit 1 when they differ.

With --text, both tokenizers are loaded into their engines (in this process) and the two
encodings of the text are compared as well.
"""

from __future__ import annotations

import orjson

from ..core.behaviour.diff.compare import compare, with_text
from ..core.behaviour.diff.report import render
from ..core.behaviour.diff.sides import DiffError, read_side
from ..core.behaviour.load import read_with_companion
from .common import err as _err
from .common import load_failure_status, main_tokenizer_file, write_out
from .progress import progress
from .report import FAILED


def add_arguments(c) -> None:
    c.add_argument("old", metavar="OLD", help="a tokenizer file, or a folder (its tokenizer.json)")
    c.add_argument("new", metavar="NEW", help="a tokenizer file, or a folder (its tokenizer.json)")
    c.add_argument("--text", metavar="T", help="also encode T with both and compare the ids")
    c.add_argument(
        "--pattern",
        metavar="REGEX",
        help="split pattern of a .tiktoken file that is not one of the known encodings (for --text)",
    )
    c.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    old_path, new_path = main_tokenizer_file(args.old), main_tokenizer_file(args.new)
    if old_path is None or new_path is None:
        return FAILED
    try:
        with progress("reading both files"):
            old, new = read_file(old_path), read_file(new_path)
    except DiffError as e:
        _err(str(e))
        return _failure_status(e, old_path, new_path)
    d = compare(old, new)
    if args.text is not None:
        try:
            with progress("encoding the text with both"):
                (oi, ot), (ni, nt) = (
                    encode_with(old_path, args.text, args.pattern),
                    encode_with(new_path, args.text, args.pattern),
                )
        except DiffError as e:
            _err(str(e))
            return _failure_status(e, old_path, new_path)
        with_text(d, args.text, oi, ni, ot, nt)
    if args.format == "json":
        write_out(orjson.dumps(d, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")
    else:
        write_out(render(d) + "\n")
    return 0 if d["same"] else 1


def _failure_status(e: DiffError, *paths: str) -> int:
    """1 when the file the error names is a broken tokenizer file (as `check` gives), else 2."""
    named = [p for p in paths if str(e).startswith(p) or f"--text: {p}" in str(e)]
    return max((load_failure_status(p) for p in named), default=FAILED) if named else FAILED


def read_file(path: str):
    """A file as diff compares it, with the other file of a vocab.json + merges pair."""
    from . import tables

    plugin = tables.claim(path)  # the one dispatch: a table plug-in's file, or the index's
    if tables.reads_table(plugin):
        from .table_encode import diff_side

        return diff_side(path, plugin)
    try:
        data, _, companion = read_with_companion(path)
    except OSError as e:
        raise DiffError(f"{path}: cannot read: {e.strerror or e}") from None
    return read_side(data, path, companion)


def encode_with(path: str, text: str, pattern: str | None = None) -> tuple[list[int], list[str]]:
    """(ids, tokens) of `text` as the file's own engine encodes it (no special tokens added)."""
    from . import tables

    plugin = tables.claim(path)
    if tables.reads_table(plugin):
        from .table_encode import encode_with as encode_table

        return encode_table(path, plugin, text)
    from ..core.behaviour.load import load_tokenizer_file
    from ..core.behaviour.loaded import LoadError

    try:
        loaded = load_tokenizer_file(path, pattern)
    except (LoadError, OSError) as e:
        raise DiffError(f"--text: {e}") from None
    from ..core.behaviour.encode import encode

    enc = encode(loaded, text)
    return enc["ids"], [t["token"] for t in enc["tokens"]]
