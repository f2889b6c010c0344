"""`tokenizer-lsp.stats` [uri]: the stats of the open document's current index.

The VS Code status bar asks on every editor switch: the answer comes from the index the
server already built (never a new parse), computed once per index. `unreachable` is the
number of unreachable-token findings the server holds for the document (null until they
are known); `text` is the rendering `tokenizer-lsp stats` prints.
"""

from __future__ import annotations

from ...core.behaviour.stats import render, summarize
from ...core.behaviour.table_stats import index_summary, render_stats
from ..work import Mode, current_token, off_loop
from . import open_tokenizer


async def run(ls, arguments: list):
    idx, version = await open_tokenizer(ls, arguments, "tokenizer-lsp.stats")
    job = ls.scheduler.unreachable
    count = job.count(arguments[0])
    why = None if count is not None else job.why_uncounted(idx)
    is_table = getattr(idx.doc, "table", None) is not None and getattr(idx.doc, "plugin", None) is not None
    summary = index_summary if is_table else summarize
    stats = await off_loop(Mode.BACKGROUND, current_token(), summary, idx, count, why)
    # a plug-in's table (tekken, vocab.txt, a .model or GGUF view) as `stats` prints it, settings too
    text = render_stats(stats, None) if "piece_types" in stats else render(stats)
    return {**stats, "version": version, "text": text}
