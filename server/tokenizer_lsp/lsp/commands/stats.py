"""`tokenizer-lsp.stats` [uri]: the stats of the open document's current index.

The VS Code status bar asks on every editor switch: the answer comes from the index the
server already built (never a new parse), computed once per index. `unreachable` is the
number of unreachable-token findings the server holds for the document (null until they
are known); `text` is the rendering `tokenizer-lsp stats` prints.
"""

from __future__ import annotations

import asyncio

from ...core.behaviour.stats import render, summarize
from ...core.behaviour.table_stats import index_summary, render_stats
from . import open_tokenizer


async def run(ls, arguments: list):
    doc, idx, version = await open_tokenizer(ls, arguments, "tokenizer-lsp.stats")
    job = ls.scheduler.unreachable
    count = unreachable_count(job, doc)
    why = None if count is not None else unreachable_why(job, idx)
    is_table = getattr(idx.doc, "table", None) is not None and getattr(idx.doc, "plugin", None) is not None
    stats = await asyncio.to_thread(index_summary if is_table else summarize, idx, count, why)
    # a plug-in's table (tekken, vocab.txt, a .model or GGUF view) as `stats` prints it, settings too
    text = render_stats(stats, None) if "piece_types" in stats else render(stats)
    return {**stats, "version": version, "text": text}


def unreachable_count(job, doc) -> int | None:
    """How many unreachable-token findings the server holds for the document (the last set
    the unreachable job computed, which the diagnostics carry through edits until the next);
    None until one is."""
    held = job.of(doc).entries
    return len(held) if isinstance(held, list) else None


def unreachable_why(job, idx) -> str | None:
    """Why the server holds no count for the document (stats says it after "not computed");
    None while it is computing one (the status bar asks again until it has it)."""
    from ..jobs.unreachable import COMPUTED_FOR

    if not job.enabled():
        return "unreachable-token is turned off (diagnostics.severity)"
    if idx.format in COMPUTED_FOR:
        return None
    return "the server computes them for tokenizer.json, vocab.json and .tiktoken files only"
