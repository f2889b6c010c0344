"""Our (line, character) pairs as lsprotocol objects."""

from __future__ import annotations

from lsprotocol import types


class JsonResult:
    """A request's answer already in plain JSON form, written as it is (see server.py)."""

    __slots__ = ("data",)

    def __init__(self, data) -> None:
        self.data = data


def lsp_position(p: tuple[int, int]) -> types.Position:
    return types.Position(line=p[0], character=p[1])


def lsp_range(r: tuple[tuple[int, int], tuple[int, int]]) -> types.Range:
    return types.Range(start=lsp_position(r[0]), end=lsp_position(r[1]))


def location(uri: str, snap, span: tuple[int, int]) -> types.Location | None:
    """The client's location of the index's bytes [start, end) (None: edited since)."""
    r = snap.range_of(*span)
    return types.Location(uri=uri, range=lsp_range(r)) if r is not None else None


async def navigable_piece(ls, uri: str, pos: types.Position):
    """(snapshot with navigation lookups, the token piece under the cursor), or None."""
    from ..core.navigation.pieces import piece_at

    snap = await ls.session.navigation_snapshot(uri)
    if snap is None:
        return None
    offset = snap.offset_at((pos.line, pos.character))
    piece = piece_at(snap.index, offset) if offset is not None else None
    return (snap, piece) if piece is not None else None
