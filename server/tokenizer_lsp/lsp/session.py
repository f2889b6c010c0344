"""Our own copy of each open document: UTF-8 bytes per version, edited by LSP rules.

pygls' TextDocument splits lines with str.splitlines (wrong at U+2028 and friends)
and rebuilds the whole string per change; we keep bytes and our own line index.
"""

from __future__ import annotations

import asyncio
import ctypes
import platform
from dataclasses import dataclass, field

from ..core.index import DocumentIndex
from ..core.text.lines import LineIndex
from ..runtime.malloc import prefer_huge_pages
from ..core.text.position_map import Span


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
        data = splice(data, a, b, new)
        if edits is not None:
            edits.append((a, b, new))
    return data, edits


_LARGE = 1 << 20
_CPYTHON = platform.python_implementation() == "CPython"


def splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    """data[:start] + new + data[end:], copied with the interpreter released.

    A new version of a 33 MB text is a 20 ms copy (mostly page faults on this kind of
    machine). Made by bytes.join it holds the interpreter all along and hovers wait;
    ctypes.memmove releases it, so the event loop keeps answering on the other core.
    The result is a fresh bytes object (calloc'ed, so large ones start as untouched
    zero pages, backed by huge pages where Linux allows) that nothing else has seen
    while it is filled in.
    """
    size = len(data) - (end - start) + len(new)
    if size < _LARGE or not _CPYTHON:
        view = memoryview(data)
        return b"".join((view[:start], new, view[end:]))
    out = bytes(size)
    dst, src = _address(out), _address(data)
    prefer_huge_pages(dst, size)
    ctypes.memmove(dst, src, start)
    ctypes.memmove(dst + start, _address(new), len(new))
    ctypes.memmove(dst + start + len(new), src + end, len(data) - end)
    return out


def _address(b: bytes) -> int:
    return ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value or 0


@dataclass
class OpenDocument:
    uri: str
    path: str | None
    version: int
    data: bytes
    index: DocumentIndex | None = None  # the newest index (any version)
    good: DocumentIndex | None = None  # the newest index that parsed (serves hovers while typing)
    indexed_version: int | None = None
    good_version: int | None = None
    # every edit received after good_version: (version it made, its span; None = whole text)
    history: list[tuple[int, Span | None]] = field(default_factory=list)
    published: list = field(default_factory=list)  # last diagnostics sent
    was_tokenizer: bool = False
    # byte edits from `index`'s text to `data`; None when only a re-parse will do
    pending: list | None = field(default_factory=list)
    # changes received but not applied to `data` yet (the indexer thread applies them)
    queued: list[Change] = field(default_factory=list)
    # one re-index at a time: each starts from the text the previous one produced
    indexing: asyncio.Lock = field(default_factory=asyncio.Lock)
    reindexing: int = 0  # re-indexes running or waiting for `indexing`
    busy: bool = False  # a re-index is scheduled or running
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # set while not busy

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        if busy:
            self.settled.clear()
        else:
            self.settled.set()

    @property
    def serving(self) -> DocumentIndex | None:
        """The index hovers and hints answer from: current if usable, else the last good."""
        found = self._serving()
        return found[0] if found else None

    def _serving(self) -> tuple[DocumentIndex, int | None] | None:
        idx = self.index
        current = idx is not None and idx.doc is not None and idx.lookups_ready
        good = self.good is not None and self.good.lookups_ready
        # what broken JSON salvaged is partial: the last whole index, carried through the
        # edits since, knows more (the tokens after the break too)
        if current and not (good and idx.syntax_error is not None):
            return idx, self.indexed_version
        if good:
            return self.good, self.good_version
        return None

    def view(self) -> tuple[DocumentIndex, list[Span]] | None:
        """The serving index and the edits from its text to the current one; None when
        there is none or a whole-text replacement since makes its positions meaningless."""
        found = self._serving()
        if found is None:
            return None
        idx, version = found
        spans = []
        for v, span in self.history:
            if version is not None and v <= version:
                continue
            if span is None:
                return None
            spans.append(span)
        return idx, spans

    def record_edit(self, version: int, span: Span | None) -> None:
        if len(self.history) >= 10000:  # broken for ages: stop mapping until it parses again
            self.history = [(version, None)]
        else:
            self.history.append((version, span))

    def set_good(self, idx: DocumentIndex, version: int) -> None:
        self.good, self.good_version = idx, version
        self.history = [(v, s) for v, s in self.history if v > version]
