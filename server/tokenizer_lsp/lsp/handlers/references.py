"""textDocument/references: every merge using the token as a part, the merges producing
it, its added_tokens entry (and its vocab entry with includeDeclaration), in this file and
the paired one, each range the literal itself, in file order."""

from __future__ import annotations

import orjson
from lsprotocol import types

from ...core.model_folder.folder import facts_of_index
from ...core.model_folder.navigate import config_occurrences, named_by
from ...core.navigate import references
from ..paired import config_context, config_snapshots, paired
from .lsp_types import JsonResult, navigable_piece


async def handle(ls, params: types.ReferenceParams) -> JsonResult | None:
    uri = params.text_document.uri
    decl = bool(params.context and params.context.include_declaration)
    config = await config_context(ls, uri, params.position)
    if config is not None:  # a config token: the tokenizer's references, then the config files'
        _, item, (tokenizer_uri, tokenizer) = config
        token = named_by(item, facts_of_index(tokenizer.index))
        if token is None:
            return None
        out = _locations(tokenizer_uri, tokenizer, references(tokenizer.index, token, decl))
        out += await _in_configs(ls, tokenizer.index, token)
        return JsonResult(orjson.Fragment(b"[" + b",".join(out) + b"]"))
    found = await navigable_piece(ls, uri, params.position)
    if found is None:
        return None
    snap, piece = found
    doc = ls.session.documents.get(uri)
    out = _locations(uri, snap, references(snap.index, piece.token, decl))
    other = await paired(ls, snap, doc.path if doc else None)
    if other is not None:
        out += _locations(other[0], other[1], references(other[1].index, piece.token, decl))
    out += await _in_configs(ls, snap.index, piece.token)
    return JsonResult(orjson.Fragment(b"[" + b",".join(out) + b"]"))


async def _in_configs(ls, tokenizer, token: str) -> list[bytes]:
    """The literals naming the token (or its id) in the model config files beside it."""
    out = []
    for uri, snap in await config_snapshots(ls, tokenizer.path):
        out += _locations(uri, snap, config_occurrences(snap.index, token, tokenizer.id_of(token)))
    return out


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
