"""Our own copy of each open document: UTF-8 bytes per version, edited by LSP rules.

pygls' TextDocument splits lines with str.splitlines (wrong at U+2028 and friends)
and rebuilds the whole string per change; we keep bytes and our own line index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .index import DocumentIndex
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
        view = memoryview(data)  # one copy of a 33 MB text per change, not three
        data = b"".join((view[:a], new, view[b:]))
        if edits is not None:
            edits.append((a, b, new))
    return data, edits


@dataclass
class OpenDocument:
    uri: str
    path: str | None
    version: int
    data: bytes
    index: DocumentIndex | None = None  # the newest index (any version)
    good: DocumentIndex | None = None  # the newest index that parsed (serves hovers while typing)
    indexed_version: int | None = None
    published: list = field(default_factory=list)  # last diagnostics sent
    was_tokenizer: bool = False
    # byte edits since `index` was built from its text; None when only a re-parse will do
    pending: list | None = field(default_factory=list)
    busy: bool = False  # a re-index is scheduled or running

    @property
    def serving(self) -> DocumentIndex | None:
        """The index hovers and hints answer from: current if usable, else the last good."""
        if self.index is not None and self.index.doc is not None and self.index.lookups_ready:
            return self.index
        if self.good is not None and self.good.lookups_ready:
            return self.good
        return None
