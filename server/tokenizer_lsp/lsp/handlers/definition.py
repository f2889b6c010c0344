"""textDocument/definition: a merge part, an added token -> its vocab entry (here or in
the paired vocab.json); a vocab key -> the merge that produces it."""

from __future__ import annotations

from lsprotocol import types

from ...core.model_folder.config_queries import named_by
from ...core.model_folder.folder import facts_of_index
from ...core.navigation.queries import added_entry, producing_merge, vocab_entry
from ..lsp_types import location, navigable_piece
from ..paired import config_context, paired


async def handle(ls, params: types.DefinitionParams) -> list[types.Location] | None:
    uri = params.text_document.uri
    config = await config_context(ls, uri, params.position)
    if config is not None:  # a config token: its vocab entry (or added_tokens entry) in the tokenizer
        snap, item, (tokenizer_uri, tokenizer) = config
        token = named_by(item, facts_of_index(tokenizer.index))
        span = vocab_entry(tokenizer.index, token) or added_entry(tokenizer.index, token) if token else None
        return _one(tokenizer_uri, tokenizer, span) if span is not None else None
    found = await navigable_piece(ls, uri, params.position)
    if found is None:
        return None
    snap, piece = found
    idx, token = snap.index, piece.token
    path = ls.session.path_of(uri)
    if piece.role == "vocab":
        found = producing_merge(idx, snap.navigation, token)
        if found is not None:
            return _one(uri, snap, found[1])
        other = await paired(ls, snap, path)  # a vocab.json: the merges file beside it
        if other is not None:
            found = producing_merge(other[1].index, other[1].navigation, token)
            return _one(other[0], other[1], found[1]) if found is not None else None
        return None
    if piece.role in ("merge", "added"):
        span = vocab_entry(idx, token)
        if span is not None:
            return _one(uri, snap, span)
        if piece.role == "added":  # only an added token: its own entry
            span = added_entry(idx, token)
            return _one(uri, snap, span) if span is not None else None
        other = await paired(ls, snap, path)  # a merges file: the vocab.json beside it
        if other is not None:
            span = vocab_entry(other[1].index, token)
            return _one(other[0], other[1], span) if span is not None else None
    return None


def _one(uri, snap, span) -> list[types.Location] | None:
    loc = location(uri, snap, span)
    return [loc] if loc is not None else None
