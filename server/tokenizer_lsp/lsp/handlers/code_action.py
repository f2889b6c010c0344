"""textDocument/codeAction: quick fixes of findings, the conversion of all merges between
forms, moving a chat template between tokenizer_config.json and chat_template.jinja, and
source.fixAll.tokenizer-lsp. The edits come from core.fixes (byte offsets);
here they become ranges of the client's text, offered only when the index was built from
exactly the text the client has (no edits since), so every range is where it says."""

from __future__ import annotations

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
from ..lsp_types import JsonResult
from ..render.diagnostics import SOURCE
from ..work import Mode, off_loop
from ..workspace_edits import workspace_edit

log = logging.getLogger("tokenizer_lsp")

KINDS = [QUICKFIX, REWRITE, FIX_ALL, "refactor.move"]  # refactor.move: a chat template's (lsp/chat_actions.py)
OPTIONS = types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True)
_LEVEL = {"error": 1, "warning": 2, "information": 3, "hint": 4}


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
        edits = await off_loop(Mode.LATENCY, None, fix.resolved_edits)
        action["edit"] = workspace_edit(ls, uri, version, snap, edits)
    return action


def _merges_bytes(idx) -> int:
    from ...core.fixes.convert_merges import merges_array

    span = merges_array(idx)
    return span[1] - span[0] if span else 0


async def handle(ls, params: types.CodeActionParams):
    from ...core.fixes.convert_merges import CannotConvert

    uri = params.text_document.uri
    snap = await ls.session.exact_snapshot(uri)
    if snap is None:
        return None
    version = snap.version
    idx, only, lazy = snap.index, params.context.only, ls.session.capabilities.resolves_edits
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
