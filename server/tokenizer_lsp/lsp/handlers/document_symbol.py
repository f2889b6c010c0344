"""textDocument/documentSymbol: the file's sections with counts, one child per added token."""

from __future__ import annotations

from lsprotocol import types

from ...core.navigation.outline import outline
from ..lsp_types import lsp_range

_KIND = {
    "module": types.SymbolKind.Module,
    "array": types.SymbolKind.Array,
    "object": types.SymbolKind.Object,
    "key": types.SymbolKind.Key,
    "string": types.SymbolKind.String,
    "number": types.SymbolKind.Number,
}


async def handle(ls, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
    snap = await ls.session.first_snapshot(params.text_document.uri)
    if snap is None:
        return None
    return [s for s in (_symbol(snap, sec) for sec in outline(snap.index)) if s is not None]


def _symbol(snap, sec) -> types.DocumentSymbol | None:
    rng, sel = snap.range_of(sec.start, sec.end), snap.range_of(sec.select_start, sec.select_end)
    if rng is None or sel is None:
        return None
    children = [c for c in (_symbol(snap, c) for c in sec.children) if c is not None]
    return types.DocumentSymbol(
        name=sec.name,
        detail=sec.detail or None,
        kind=_KIND[sec.kind],
        range=lsp_range(rng),
        selection_range=lsp_range(sel),
        children=children or None,
    )
