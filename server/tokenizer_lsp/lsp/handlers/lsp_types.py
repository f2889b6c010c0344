"""Our (line, character) pairs as lsprotocol objects."""

from __future__ import annotations

from lsprotocol import types


def lsp_position(p: tuple[int, int]) -> types.Position:
    return types.Position(line=p[0], character=p[1])


def lsp_range(r: tuple[tuple[int, int], tuple[int, int]]) -> types.Range:
    return types.Range(start=lsp_position(r[0]), end=lsp_position(r[1]))
