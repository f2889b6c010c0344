"""tokenizer-lsp/idle (ours): answers once the server has nothing due or running.

What tests wait on instead of "sleep, then assert nothing happened": `{"idle": true}` once
no document has a build due or running, nor navigation lookups, an unreachable set or a
folder re-check in flight; every publication of that work went out before the answer.
After IDLE_CAP_S it answers `{"idle": false}`, so a client never hangs on a server that
keeps busy (a document typed into all along).
"""

from __future__ import annotations

import asyncio

from ..lsp_types import JsonResult

METHOD = "tokenizer-lsp/idle"
IDLE_CAP_S = 60.0


async def handle(ls, params=None) -> JsonResult:
    try:
        await asyncio.wait_for(ls.scheduler.idle(), IDLE_CAP_S)
    except asyncio.TimeoutError:
        return JsonResult({"idle": False})
    return JsonResult({"idle": True})
