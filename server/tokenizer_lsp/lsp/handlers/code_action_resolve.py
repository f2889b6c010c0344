"""codeAction/resolve: the edit of a large rewrite (converting every merge), computed only
when the client asks for it (clients that resolve `edit`; the others get it inline)."""

from __future__ import annotations

import logging

from lsprotocol import types

from ..lsp_types import JsonResult
from ..work import Mode, current_token, off_loop
from ..workspace_edits import keep_unreachable_set, workspace_edit

log = logging.getLogger("tokenizer_lsp")


async def handle(ls, params: types.CodeAction):
    from ...core.fixes.convert_merges import CannotConvert, convert

    action = ls.protocol._converter.unstructure(params)
    data = params.data if isinstance(params.data, dict) else {}
    uri, version = data.get("uri"), data.get("version")
    snap = await ls.session.exact_snapshot(uri) if isinstance(uri, str) else None
    if snap is None or snap.version != version:
        log.info("code action %r: the document changed since it was offered", params.title)
        return JsonResult(action)  # no edit: nothing is applied to a text it was not made for
    try:  # seconds on a 30 MB file: off the event loop
        edit = await off_loop(Mode.BACKGROUND, current_token(), convert, snap.index, data)
    except CannotConvert as err:
        log.info("code action %r: %s", params.title, err)
        return JsonResult(action)
    await off_loop(Mode.BACKGROUND, None, keep_unreachable_set, snap, data, edit)
    action["edit"] = workspace_edit(ls, uri, version, snap, [edit])
    return JsonResult(action)
