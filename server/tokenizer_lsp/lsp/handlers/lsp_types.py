"""Our (line, character) pairs as lsprotocol objects."""

from __future__ import annotations

from lsprotocol import types


def lsp_position(p: tuple[int, int]) -> types.Position:
    return types.Position(line=p[0], character=p[1])


def lsp_range(r: tuple[tuple[int, int], tuple[int, int]]) -> types.Range:
    return types.Range(start=lsp_position(r[0]), end=lsp_position(r[1]))


def location(uri: str, snap, span: tuple[int, int]) -> types.Location | None:
    """The client's location of the index's bytes [start, end) (None: edited since)."""
    r = snap.range_of(*span)
    return types.Location(uri=uri, range=lsp_range(r)) if r is not None else None
