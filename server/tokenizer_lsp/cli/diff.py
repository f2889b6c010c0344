"""`diff OLD NEW`: what differs between two tokenizers, by meaning; exit 1 when they differ.

With --text, both tokenizers are loaded into their engines (in this process) and the two
encodings of the text are compared as well.
"""

from __future__ import annotations

import sys

import orjson

from ..core.behaviour.diff import compare, with_text
from ..core.behaviour.diff_sides import DiffError, read_side
from ..core.behaviour.diff_report import render
from ..core.behaviour.load import read_with_companion
from .common import err as _err


def add_arguments(c) -> None:
    c.add_argument("old", metavar="OLD")
    c.add_argument("new", metavar="NEW")
    c.add_argument("--text", metavar="T", help="also encode T with both and compare the ids")
    c.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    try:
        old, new = read_file(args.old), read_file(args.new)
    except DiffError as e:
        _err(str(e))
        return 2
    d = compare(old, new)
    if args.text is not None:
        try:
            (oi, ot), (ni, nt) = encode_with(args.old, args.text), encode_with(args.new, args.text)
        except DiffError as e:
            _err(str(e))
            return 2
        with_text(d, args.text, oi, ni, ot, nt)
    if args.format == "json":
        sys.stdout.write(orjson.dumps(d, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")
    else:
        sys.stdout.write(render(d) + "\n")
    return 0 if d["same"] else 1


def read_file(path: str):
    """A file as diff compares it, with the other file of a vocab.json + merges pair."""
    from .tables import diff_side  # .model, vocab.txt and the other plug-ins

    if (side := diff_side(path)) is not None:
        return side
    try:
        data, _, companion = read_with_companion(path)
    except OSError as e:
        raise DiffError(f"{path}: cannot read: {e.strerror or e}") from None
    return read_side(data, path, companion)


def encode_with(path: str, text: str) -> tuple[list[int], list[str]]:
    """(ids, tokens) of `text` as the file's own engine encodes it (no special tokens added)."""
    from .tables import encode_with as encode_table

    if (done := encode_table(path, text)) is not None:
        return done
    from ..core.behaviour.load import load_tokenizer_file
    from ..core.behaviour.loaded import LoadError

    try:
        loaded = load_tokenizer_file(path)
    except (LoadError, OSError) as e:
        raise DiffError(f"--text: {e}") from None
    from ..core.behaviour.encode import encode

    enc = encode(loaded, text)
    return enc["ids"], [t["token"] for t in enc["tokens"]]
