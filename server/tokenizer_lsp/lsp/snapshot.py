"""A document as a request handler sees it: a complete index and the client's edits since.

The index may be some versions behind the text the client shows (it is being rebuilt,
or the text does not parse right now); positions are carried through those edits both
ways, and whatever an edit touched is left out rather than shown in the wrong place.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.index.document import DocumentIndex
from ..core.navigation.build import Navigation
from ..core.text.position_map import Pos, Span, range_to_new, to_new, to_old
from .settings import Settings


@dataclass(frozen=True)
class Snapshot:
    index: DocumentIndex
    spans: tuple[Span, ...]  # the client's edits since the index's version
    encoding: str
    settings: Settings
    # the index's navigation lookups (core.navigation.build) when built: beside it, not in it
    navigation: Navigation | None = None
    uri: str | None = None  # the document's (None: a file on disk, not open)
    path: str | None = None  # its local file, when it has one
    version: int | None = None  # the document version the index was built from

    def offset_at(self, pos: Pos, bias: str | None = None) -> int | None:
        """Byte offset in the index's text of a position in the client's text."""
        at = to_old(pos, list(self.spans), bias) if self.spans else pos
        if at is None:
            return None
        return self.index.lines.offset(at[0], at[1], self.encoding)

    def range_of(self, start: int, end: int) -> tuple[Pos, Pos] | None:
        """The client's range of the index's bytes [start, end); None if edited since."""
        a, b = self.index.lines.positions([start, end], self.encoding)
        if self.spans:
            return range_to_new(a, b, list(self.spans))
        return a, b

    def positions_of(self, offsets: list[int]) -> list[Pos | None]:
        """Client positions of offsets of the index's text (None: moved by an edit)."""
        found = self.index.lines.positions(offsets, self.encoding)
        if not self.spans:
            return found
        spans = list(self.spans)
        return [to_new(p, spans) for p in found]

    def unedited(self, start: int, end: int) -> bool:
        """Whether the client has not touched the index's bytes [start, end]."""
        if not self.spans:
            return True
        a, b = self.index.lines.positions([start, end], self.encoding)
        return range_to_new(a, (b[0], b[1] + 1), list(self.spans)) is not None
