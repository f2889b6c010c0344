"""textDocument/inlayHint: the decoded text after each token literal of the range."""

from __future__ import annotations

from lsprotocol import types

from ..lsp_types import lsp_position
from ..render.hints import hints_in


async def handle(ls, params: types.InlayHintParams) -> list[types.InlayHint]:
    # a client that cannot be asked to refresh would never ask again after an empty answer
    wait = not ls.session.capabilities.inlay_hint_refresh
    snap = await ls.session.first_snapshot(params.text_document.uri, wait)
    if snap is None:
        return []
    rng = params.range
    start = snap.offset_at((rng.start.line, rng.start.character), "start")
    end = snap.offset_at((rng.end.line, rng.end.character), "end")
    if start is None or end is None:
        return []
    hints = hints_in(snap.index, start, end, snap.settings.inlay_hints)
    if snap.spans:  # a literal an edit touched since is not what the index knows
        hints = [h for h in hints if snap.unedited(_literal_start(snap, h.offset), h.offset)]
    out = []
    for h, pos in zip(hints, snap.positions_of([h.offset for h in hints])):
        if pos is not None:
            out.append(types.InlayHint(position=lsp_position(pos), label=h.label, tooltip=h.tooltip, padding_left=True))
    return out


def _literal_start(snap, hint_at: int) -> int:
    ref = snap.index.token_at(hint_at - 1)
    return ref.start if ref is not None else hint_at
