"""`decode PATH`: the decoded vocabulary, one row per entry (text or JSON lines)."""

from __future__ import annotations

import sys

import orjson

from ..core.decoding.listing import decoded_rows, text_row
from .common import err as _err
from .common import main_tokenizer_file, say_malformed_lines, stop_writing, syntax_error_line, tokenizer_index
from .progress import progress
from .report import FAILED, FINDINGS


def add_arguments(d) -> None:
    d.add_argument("path", metavar="PATH", help="a tokenizer file, or a folder (its tokenizer.json)")
    d.add_argument("--format", choices=("text", "jsonl"), default="text")


def run(args) -> int:
    path = main_tokenizer_file(args.path)
    if path is None:
        return FAILED
    from . import tables

    args.path = path
    plugin = tables.claim(path)  # the one dispatch: a table plug-in's file, or the index's
    if tables.reads_table(plugin):
        return tables.decode(args, plugin)
    with progress(f"reading {path}"):
        idx = tokenizer_index(path)
    if idx is None:
        return FAILED
    if idx.syntax_error is not None:  # a finding at error level: 1, as `check` gives
        _err(syntax_error_line(path, idx, with_code=True))
        return FINDINGS
    # rows for the lines that are fine, and the others said: exit 1, as `check` and `encode`
    status = FINDINGS if say_malformed_lines(path, idx, "decode") else 0
    write = sys.stdout.buffer.write if hasattr(sys.stdout, "buffer") else None
    batch: list[bytes] = []
    try:
        for row in decoded_rows(idx):
            if args.format == "jsonl":
                batch.append(orjson.dumps(row))
            else:
                batch.append(text_row(row).encode("utf-8", "surrogateescape"))
            if len(batch) >= 4096:
                _flush(batch, write)
        _flush(batch, write)
    except BrokenPipeError:  # `decode ... | head` is normal use: stop quietly
        stop_writing()
        return status
    return status


def _flush(batch: list[bytes], write) -> None:
    if not batch:
        return
    payload = b"\n".join(batch) + b"\n"
    if write is not None:
        write(payload)
    else:
        sys.stdout.write(payload.decode("utf-8", "replace"))
    batch.clear()
