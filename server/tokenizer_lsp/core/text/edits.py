"""Apply LSP content changes to a document's UTF-8 bytes, by the LSP's own rules.

pygls' TextDocument splits lines with str.splitlines (wrong at U+2028 and friends) and
rebuilds the whole string per change; documents are kept as bytes with our own line index.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import hooks
from .lines import LineIndex


@dataclass
class Change:
    text: str
    start: tuple[int, int] | None = None  # (line, character); None = whole document
    end: tuple[int, int] | None = None


Edit = tuple[int, int, bytes]  # replace bytes [start, end) with these


def apply_changes(data: bytes, changes: list[Change], encoding: str,
                  lines: LineIndex | None = None) -> tuple[bytes, list[Edit] | None]:
    """The new text, and the byte edits that made it (None after a whole-text change)."""
    edits: list[Edit] | None = []
    for ch in changes:
        new = ch.text.encode("utf-8", "surrogatepass")
        if ch.start is None or ch.end is None:
            data, edits = new, None
            continue
        if lines is None or lines.data is not data:
            lines = LineIndex(data)
        a = lines.offset(ch.start[0], ch.start[1], encoding)
        b = lines.offset(ch.end[0], ch.end[1], encoding)
        if b < a:
            a, b = b, a
        data = hooks.splice(data, a, b, new)
        if edits is not None:
            edits.append((a, b, new))
    return data, edits
