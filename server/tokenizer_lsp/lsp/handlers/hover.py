"""textDocument/hover: the token literal under the cursor, decoded."""

from __future__ import annotations

import re

from lsprotocol import types

from ...core.pieces import piece_at
from ..render.hover import hover_markdown
from .lsp_types import lsp_range


def _plain(markdown: str) -> str:
    """For clients that asked for plain text hovers: no code-span fences or bold."""
    return re.sub(r"(`+) ?(.*?) ?\1", r"\2", markdown).replace("**", "")


async def handle(ls, params: types.HoverParams) -> types.Hover | None:
    snap = await ls.session.first_snapshot(params.text_document.uri)
    if snap is None:
        return None
    offset = snap.offset_at((params.position.line, params.position.character))
    piece = piece_at(snap.index, offset) if offset is not None else None
    rng = snap.range_of(piece.start, piece.end) if piece is not None else None
    if rng is None:
        return None
    text = hover_markdown(snap.index, piece)
    if ls.session.capabilities.hover_markdown:
        contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    else:
        contents = types.MarkupContent(kind=types.MarkupKind.PlainText, value=_plain(text))
    return types.Hover(contents=contents, range=lsp_range(rng))
