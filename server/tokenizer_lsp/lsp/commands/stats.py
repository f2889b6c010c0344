"""`tokenizer-lsp.stats` [uri]: the stats of the open document's current index.

The VS Code status bar asks on every editor switch: the answer comes from the index the
server already built (never a new parse), computed once per index. `unreachable` is the
number of unreachable-token findings the server holds for the document (null until they
are known); `text` is the rendering `tokenizer-lsp stats` prints.
"""

from __future__ import annotations

import asyncio

from ...core.behaviour.stats import render, summarize
from . import open_tokenizer


async def run(ls, arguments: list):
    doc, idx, version = await open_tokenizer(ls, arguments, "tokenizer-lsp.stats")
    stats = await asyncio.to_thread(summarize, idx, unreachable_count(ls.scheduler.unreachable, doc))
    return {**stats, "version": version, "text": render(stats)}


def unreachable_count(job, doc) -> int | None:
    """How many unreachable-token findings the server holds for the document (the last set
    the unreachable job computed, which the diagnostics carry through edits until the next);
    None until one is."""
    held = job.of(doc).entries
    return len(held) if isinstance(held, list) else None
