"""textDocument/hover: the token literal under the cursor, decoded."""

from __future__ import annotations

import re

from lsprotocol import types

from ...core.model_folder.chat_template_file import FORMAT as TEMPLATE_FORMAT
from ...core.model_folder.chat_template_hover import (
    template_at,
    variable_at,
    variable_hover,
)
from ...core.model_folder.config_queries import describe, named_by, token_piece
from ...core.model_folder.folder import facts_of_index
from ...core.navigation.pieces import piece_at
from ..lsp_types import lsp_range
from ..paired import config_context, paired
from ..render.hover import hover_markdown
from ..render.merge_tree import merge_lines
from ..work import Mode, off_loop


def _plain(markdown: str) -> str:
    """For clients that asked for plain text hovers: no code-span fences or bold."""
    return re.sub(r"(`+) ?(.*?) ?\1", r"\2", markdown).replace("**", "")


async def handle(ls, params: types.HoverParams) -> types.Hover | None:
    config = await config_context(ls, params.text_document.uri, params.position)
    if config is not None:  # a model config file's token or id: the tokenizer's token
        snap, item, (_, tokenizer) = config
        rng, text = snap.range_of(item.start, item.end), config_hover(item, tokenizer.index, tokenizer.navigation)
        return _hover(ls, text, rng) if rng is not None else None
    snap = await ls.session.first_snapshot(params.text_document.uri)
    if snap is None:
        return None
    offset = snap.offset_at((params.position.line, params.position.character))
    if offset is not None and snap.index.format in ("config", TEMPLATE_FORMAT):
        return await _template_variable(ls, params.text_document.uri, snap, offset)
    piece = piece_at(snap.index, offset) if offset is not None else None
    rng = snap.range_of(piece.start, piece.end) if piece is not None else None
    if rng is None:
        return None
    text = hover_markdown(snap.index, piece, snap.navigation)
    if piece.role == "vocab" and snap.index.format == "vocab.json":
        text += await _paired_merge_lines(ls, params.text_document.uri, snap, piece)
    return _hover(ls, text, rng)


async def _paired_merge_lines(ls, uri: str, snap, piece) -> str:
    """A vocab.json holds no merges: the producing merge, the uses and the merge tree come
    from the merges file beside it (with or without its `#version` line), as definition's."""
    other = await paired(ls, snap, ls.session.path_of(uri))
    if other is None or other[1].index.vocab is None:
        return ""
    lines = merge_lines(other[1].index, other[1].navigation, piece)  # its first line is blank: the paragraph's break
    return "\n" + "\n".join(lines) if lines else ""


async def _template_variable(ls, uri: str, snap, offset: int) -> types.Hover | None:
    """A variable of a chat template (`bos_token`, `messages`): what transformers passes."""
    found = template_at(snap.index.doc, offset)
    var = variable_at(found[0], found[2]) if found is not None else None
    if var is None:
        return None
    _, offsets, _ = found
    path = ls.session.path_of(uri)
    special = (
        snap.index.doc.special_tokens
        if snap.index.format == TEMPLATE_FORMAT
        else await off_loop(Mode.LATENCY, None, _config_special_tokens, ls.session, snap.index.doc)
    )
    tokenizer = await paired(ls, snap, path)
    facts = facts_of_index(tokenizer[1].index) if tokenizer is not None else None
    where = facts.name if facts is not None else "the tokenizer"
    markdown = variable_hover(var[2], special or {}, facts.id_of if facts is not None else (lambda t: None), where)
    rng = snap.range_of(offsets[var[0]], offsets[var[1]]) if markdown is not None else None
    return _hover(ls, markdown, rng) if rng is not None else None


def _config_special_tokens(session, doc) -> dict[str, str]:
    """The special tokens a template of this tokenizer_config.json receives (with the
    special_tokens_map.json beside it: the editor's text when open)."""
    import os

    import orjson

    from ...core.chat.source import special_tokens

    other = os.path.join(os.path.dirname(os.path.abspath(doc.path or "")), "special_tokens_map.json")
    data = session.open_text(other)
    try:
        if data is None and os.path.isfile(other):
            with open(other, "rb") as f:
                data = f.read()
        special_map = orjson.loads(data) if data is not None else None
    except (OSError, orjson.JSONDecodeError):
        special_map = None
    return special_tokens(doc.obj if isinstance(doc.obj, dict) else {}, special_map)


def config_hover(item, tokenizer, navigation=None) -> str:
    facts = facts_of_index(tokenizer)
    token = named_by(item, facts)
    piece = token_piece(tokenizer, token, item.start, item.end) if token is not None else None
    return describe(item, facts) + (f"\n\n{hover_markdown(tokenizer, piece, navigation)}" if piece is not None else "")


def _hover(ls, text: str, rng) -> types.Hover:
    if ls.session.capabilities.hover_markdown:
        contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    else:
        contents = types.MarkupContent(kind=types.MarkupKind.PlainText, value=_plain(text))
    return types.Hover(contents=contents, range=lsp_range(rng))
