"""What every command of the command line shares."""

from __future__ import annotations

import sys


def err(msg: str) -> None:
    print(f"tokenizer-lsp: {msg}", file=sys.stderr)


def tokenizer_index(path: str, vocab=None):
    """The index of the tokenizer file at `path`, or None after saying why not (it cannot be
    read, or it is not a tokenizer file): the caller exits 2."""
    from ..core.files import index_file

    try:
        idx = index_file(path, vocab)
    except OSError as e:
        err(f"{path}: cannot read: {e.strerror or e}")
        return None
    if not idx.is_tokenizer:
        from ..core.formats.registry import formats_read

        err(f"{path}: {idx.not_tokenizer_reason}; tokenizer-lsp reads {formats_read()}")
        return None
    return idx


def syntax_error_line(path: str, idx, with_code: bool = False) -> str:
    """`path:line:col: [code: ]message` of the index's JSON syntax error (1-based, in
    characters)."""
    f = idx.syntax_error
    line, col = idx.lines.position(f.start, "utf-32")
    return f"{path}:{line + 1}:{col + 1}: {f.code + ': ' if with_code else ''}{f.message}"
