"""workspace/symbol: `#123` is the token with id (rank) 123 in each open tokenizer file;
any other query finds tokens whose decoded text or stored form contains it."""

from __future__ import annotations

import os

from lsprotocol import types

from ...core.decoding.display import visible_text
from ...core.navigation.build import MAX_SYMBOLS
from ..lsp_types import location


async def handle(ls, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    query = params.query or ""
    out: list[tuple[bool, int, types.SymbolInformation]] = []
    for uri in ls.session.open_uris():
        snap = await ls.session.navigation_snapshot(uri, timeout=5.0)
        if snap is None or snap.navigation is None or snap.index.format == "merges.txt":
            continue
        out += _matches(uri, snap, query)
    if not query.startswith("#"):
        out.sort(key=lambda m: (not m[0], m[1]))  # exact matches first, then shorter tokens
    return [m[2] for m in out[:MAX_SYMBOLS]]


def _matches(uri: str, snap, query: str):
    idx, nav = snap.index, snap.navigation
    if query.startswith("#") and query[1:].isdigit():
        token = idx.token_of_id(int(query[1:]))
        o = idx.ordinal_of(token) if token is not None else None
        ordinals = [o] if o is not None else []
    else:
        tokens = idx.vocab.tokens
        exact = tokens.ordinal(query) if hasattr(tokens, "ordinal") else None
        ordinals = nav.search(query, MAX_SYMBOLS, exact)
    name = os.path.basename(uri)
    found = []
    for o in ordinals:
        span = idx.vocab_span(o)
        loc = location(uri, snap, span) if span is not None else None
        if loc is None:
            continue
        token = idx.token_at_ordinal(o)
        d = idx.vocab.decode(token)
        shown = visible_text(d.data)
        what = "rank" if idx.format == "tiktoken" else "id"
        info = types.SymbolInformation(
            name=shown or "∅",
            kind=types.SymbolKind.String,
            location=loc,
            container_name=f"{name} {what} {idx.vocab.tokens.get(token)}",
        )
        found.append((d.text == query or token == query, len(d.data), info))
    return found
