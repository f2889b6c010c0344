"""textDocument/codeAction: quick fixes of findings, the conversion of all merges between
forms, moving a chat template between tokenizer_config.json and chat_template.jinja, and
source.fixAll.tokenizer-lsp. The edits come from core.fixes (byte offsets);
here they become ranges of the client's text, offered only when the index was built from
exactly the text the client has (no edits since), so every range is where it says."""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from ...core.fixes import (
    FIX_ALL,
    QUICKFIX,
    REWRITE,
    Fix,
    fixes_for,
    rewrites_at,
    safe_fixes,
)
from ..render.diagnostics import SOURCE
from .lsp_types import JsonResult

log = logging.getLogger("tokenizer_lsp")

KINDS = [QUICKFIX, REWRITE, FIX_ALL, "refactor.move"]  # refactor.move: a chat template's (lsp/chat_actions.py)
OPTIONS = types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True)
_LEVEL = {"error": 1, "warning": 2, "information": 3, "hint": 4}


async def current_snapshot(ls, uri: str):
    """(snapshot, document version) when the index is of the client's current text."""
    doc = ls.session.documents.get(uri)
    if doc is None:
        return None
    await ls.session.current_diagnostics(uri, timeout=10.0)  # a re-index under way: its end
    snap = ls.session.snapshot(uri)
    if snap is None or snap.spans or doc.queued or not (doc.data is snap.index.data or doc.data == snap.index.data):
        return None
    return snap, doc.version


def _caps(ls, path: str):
    node = getattr(ls, "client_capabilities", None)
    for part in path.split("."):
        node = getattr(node, part, None) if node is not None else None
    return node


def resolves_edits(ls) -> bool:
    """Whether the client fills in an action's `edit` through codeAction/resolve."""
    props = _caps(ls, "text_document.code_action.resolve_support.properties") or []
    return "edit" in props


def workspace_edit(ls, uri: str, version: int, snap, edits) -> dict:
    """A WorkspaceEdit of byte edits of the snapshot's text (which is the client's)."""
    positions = snap.positions_of([o for s, e, _ in edits for o in (s, e)])
    text_edits = []
    for k, (_, _, new) in enumerate(edits):
        (a, b), (c, d) = positions[2 * k], positions[2 * k + 1]
        text_edits.append(
            {
                "range": {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}},
                "newText": new.decode("utf-8"),
            }
        )
    if _caps(ls, "workspace.workspace_edit.document_changes"):
        return {"documentChanges": [{"textDocument": {"uri": uri, "version": version}, "edits": text_edits}]}
    return {"changes": {uri: text_edits}}


def _wanted(kind: str, only) -> bool:
    if not only:
        return True
    names = [getattr(k, "value", k) for k in only]
    return any(kind == k or kind.startswith(k + ".") for k in names)


def _diagnostic_of(snap, finding) -> dict | None:
    r = snap.range_of(finding.start, finding.end)
    if r is None:
        return None
    (a, b), (c, d) = r
    return {
        "range": {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}},
        "message": finding.message,
        "severity": _LEVEL.get(finding.severity, 1),
        "code": finding.code,
        "source": SOURCE,
    }


def _findings_in_context(ls, snap, params) -> list[tuple[str, int, int, str, dict]]:
    """(code, start, end, message, diagnostic) of our findings the request is about: the
    context's diagnostics, else (clients that send none) the index's findings in the range."""
    out = []
    converter = ls.protocol._converter
    for d in params.context.diagnostics or ():
        if d.source != SOURCE or not isinstance(d.code, str):
            continue
        s = snap.offset_at((d.range.start.line, d.range.start.character))
        e = snap.offset_at((d.range.end.line, d.range.end.character))
        if s is not None and e is not None:
            out.append((d.code, s, e, d.message, converter.unstructure(d)))
    if out:
        return out
    r = params.range
    start = snap.offset_at((r.start.line, r.start.character))
    end = snap.offset_at((r.end.line, r.end.character))
    if start is None or end is None:
        return out
    for f in snap.index.findings:
        if f.start <= end and start <= f.end and f.code != "summary":
            d = _diagnostic_of(snap, f)
            if d is not None:
                out.append((f.code, f.start, f.end, f.message, d))
    return out


INLINE_BYTES = 1 << 20  # a larger conversion comes through resolve or a command, never inline


async def _action(ls, uri: str, version: int, snap, fix: Fix, diagnostic: dict | None, lazy: bool) -> dict:
    action = {"title": fix.title, "kind": fix.kind}
    if diagnostic is not None:
        action["diagnostics"] = [diagnostic]
    if fix.preferred:
        action["isPreferred"] = True
    if fix.compute is None:
        action["edit"] = workspace_edit(ls, uri, version, snap, fix.edits)
    elif lazy:
        action["data"] = {"uri": uri, "version": version, **fix.key}
    elif _merges_bytes(snap.index) > INLINE_BYTES:
        # clients that ask for actions on every idle moment (Emacs) would get 25 MB each time
        action["command"] = {
            "title": fix.title,
            "command": "tokenizer-lsp.convertMerges",
            "arguments": [uri, version, fix.key],
        }
    else:
        edits = await asyncio.to_thread(fix.resolved_edits)
        action["edit"] = workspace_edit(ls, uri, version, snap, edits)
    return action


def _merges_bytes(idx) -> int:
    from ...core.fixes.convert_merges import merges_array

    span = merges_array(idx)
    return span[1] - span[0] if span else 0


async def handle(ls, params: types.CodeActionParams):
    from ...core.fixes.convert_merges import CannotConvert

    uri = params.text_document.uri
    found = await current_snapshot(ls, uri)
    if found is None:
        return None
    snap, version = found
    idx, only, lazy = snap.index, params.context.only, resolves_edits(ls)
    actions: list[dict] = []
    for code, s, e, message, diagnostic in _findings_in_context(ls, snap, params):
        try:
            fixes = fixes_for(idx, code, s, e, message)
        except Exception:  # one fix's bug must not take the others (or the request) down
            log.exception("fixes of %s failed", code)
            continue
        for fix in fixes:
            if _wanted(fix.kind, only):
                try:
                    actions.append(await _action(ls, uri, version, snap, fix, diagnostic, lazy))
                except CannotConvert:
                    continue
    r = params.range
    start = snap.offset_at((r.start.line, r.start.character))
    if start is not None and _wanted(REWRITE, only):
        for fix in rewrites_at(idx, start, start):
            try:
                actions.append(await _action(ls, uri, version, snap, fix, None, lazy))
            except CannotConvert as err:  # computed inline: say why instead
                actions.append({"title": fix.title, "kind": fix.kind, "disabled": {"reason": str(err)}})
    if start is not None and _wanted("refactor.move", only):
        from ..chat_actions import chat_template_actions

        end = snap.offset_at((r.end.line, r.end.character))
        actions.extend(chat_template_actions(ls, uri, version, snap, start, end if end is not None else start))
    if only and _wanted(FIX_ALL, only) and any(getattr(k, "value", k).startswith("source") for k in only):
        edits = safe_fixes(idx)
        if edits:
            actions.append(
                {
                    "title": "Fix all safe tokenizer-lsp findings",
                    "kind": FIX_ALL,
                    "edit": workspace_edit(ls, uri, version, snap, edits),
                }
            )
    return JsonResult(actions) if actions else None
