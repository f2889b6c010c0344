"""`tokenizer-lsp.convertMerges` [uri, version, how]: convert every merge between the string
and the pair form and send the edit with workspace/applyEdit. The code action of clients
that do not resolve edits lazily: a 25 MB edit is computed when the action is chosen, not
each time the editor asks which actions there are (Emacs asks on every idle moment)."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from . import CommandError


async def run(ls, arguments: list):
    from ...core.fixes.convert_merges import CannotConvert, convert
    from ..handlers.code_action import current_snapshot, workspace_edit

    if len(arguments) < 3 or not isinstance(arguments[0], str) or not isinstance(arguments[2], dict):
        raise CommandError("tokenizer-lsp.convertMerges takes [uri, version, {\"to\": \"pairs\" | \"strings\"}]")
    uri, version, how = arguments[0], arguments[1], arguments[2]
    found = await current_snapshot(ls, uri)
    if found is None or found[1] != version:
        raise CommandError("the file changed since the action was offered: ask for it again")
    snap = found[0]
    try:
        edit = await asyncio.to_thread(convert, snap.index, how)
    except CannotConvert as err:
        raise CommandError(f"cannot convert the merges: {err}") from None
    data = workspace_edit(ls, uri, version, snap, [edit])
    params = types.ApplyWorkspaceEditParams(
        edit=ls.protocol._converter.structure(data, types.WorkspaceEdit), label="Convert merges"
    )
    result = await ls.workspace_apply_edit_async(params)
    return {"applied": bool(getattr(result, "applied", False))}
