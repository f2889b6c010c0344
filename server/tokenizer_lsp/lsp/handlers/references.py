"""textDocument/references: every merge using the token as a part, the merges producing
it, its added_tokens entry (and its vocab entry with includeDeclaration), in this file and
the paired one, each range the literal itself, in file order."""

from __future__ import annotations

import orjson
from lsprotocol import types

from ...core.navigate import references
from ..paired import paired
from .lsp_types import JsonResult, navigable_piece


async def handle(ls, params: types.ReferenceParams) -> JsonResult | None:
    uri = params.text_document.uri
    found = await navigable_piece(ls, uri, params.position)
    if found is None:
        return None
    snap, piece = found
    decl = bool(params.context and params.context.include_declaration)
    doc = ls.session.documents.get(uri)
    out = _locations(uri, snap, references(snap.index, piece.token, decl))
    other = await paired(ls, snap, doc.path if doc else None)
    if other is not None:
        out += _locations(other[0], other[1], references(other[1].index, piece.token, decl))
    return JsonResult(orjson.Fragment(b"[" + b",".join(out) + b"]"))


_LOCATION = b'{"uri":%s,"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}}'


def _locations(uri: str, snap, spans) -> list[bytes]:
    """Locations as JSON text: `Ġ` or `▁` have tens of thousands (a dict or an lsprotocol
    object each costs more than finding them)."""
    ranges = [snap.range_of(s, e) for s, e in spans] if snap.spans else \
        _ranges_fast(snap, spans)
    quoted = orjson.dumps(uri)
    return [_LOCATION % (quoted, a[0], a[1], b[0], b[1]) for a, b in (r for r in ranges if r is not None)]


def _ranges_fast(snap, spans):
    """Positions of many spans in one sorted pass (tens of thousands for `▁`)."""
    return snap.index.lines.span_positions(spans, snap.encoding)
