"""`tokenizer-lsp.convertMerges` [uri, version, how]: convert every merge between the string
and the pair form and send the edit with workspace/applyEdit. The code action of clients
that do not resolve edits lazily: a 25 MB edit is computed when the action is chosen, not
each time the editor asks which actions there are (Emacs asks on every idle moment)."""

from __future__ import annotations

from lsprotocol import types

from ..work import Mode, current_token, off_loop
from ..workspace_edits import keep_unreachable_set, workspace_edit
from . import CommandError


async def run(ls, arguments: list):
    from ...core.fixes.convert_merges import CannotConvert, convert

    if len(arguments) < 3 or not isinstance(arguments[0], str) or not isinstance(arguments[2], dict):
        raise CommandError("tokenizer-lsp.convertMerges takes [uri, version, {\"to\": \"pairs\" | \"strings\"}]")
    uri, version, how = arguments[0], arguments[1], arguments[2]
    snap = await ls.session.exact_snapshot(uri)
    if snap is None or snap.version != version:
        raise CommandError("the file changed since the action was offered: ask for it again")
    try:
        edit = await off_loop(Mode.BACKGROUND, current_token(), convert, snap.index, how)
    except CannotConvert as err:
        raise CommandError(f"cannot convert the merges: {err}") from None
    await off_loop(Mode.BACKGROUND, None, keep_unreachable_set, snap, how, edit)
    data = workspace_edit(ls, uri, version, snap, [edit])
    params = types.ApplyWorkspaceEditParams(
        edit=ls.protocol._converter.structure(data, types.WorkspaceEdit), label="Convert merges"
    )
    result = await ls.workspace_apply_edit_async(params)
    return {"applied": bool(getattr(result, "applied", False))}
