"""`tokenizer-lsp.stats` [uri]: the stats of the open document's current index.

The VS Code status bar asks on every editor switch: the answer comes from the index the
server already built (never a new parse), computed once per index. `unreachable` is the
number of unreachable-token findings the server holds for the document (null until they
are known); `text` is the rendering `tokenizer-lsp stats` prints.
"""

from __future__ import annotations

import asyncio

from ...core.behaviour.stats import render, summarize
from . import CommandError

SETTLE_S = 5.0  # an edit being indexed: wait this long for its index, then answer the last one


async def run(ls, arguments: list):
    if not arguments or not isinstance(arguments[0], str):
        raise CommandError("tokenizer-lsp.stats takes [uri]: the URI of an open tokenizer file")
    uri = arguments[0]
    doc = ls.session.documents.get(uri)
    if doc is None:
        raise CommandError(f"{uri} is not open in the editor: open the tokenizer file first")
    if doc.busy:
        try:
            await asyncio.wait_for(asyncio.shield(doc.settled.wait()), SETTLE_S)
        except asyncio.TimeoutError:
            pass
    idx, version = serving_index(doc)
    if idx is None or idx.vocab is None:
        raise CommandError(f"{uri.rsplit('/', 1)[-1]} is not a tokenizer file")
    stats = await asyncio.to_thread(summarize, idx, unreachable_count(doc))
    return {**stats, "version": version, "text": render(stats)}


def serving_index(doc):
    """(the newest index that tells the whole file, its version): the current one, unless
    it is what broken JSON salvaged and a whole one exists."""
    idx = doc.index
    if idx is not None and idx.is_tokenizer and idx.doc is not None and not (idx.salvaged and doc.good is not None):
        return idx, doc.indexed_version
    if doc.good is not None:
        return doc.good, doc.good_version
    return None, None


def unreachable_count(doc) -> int | None:
    """How many unreachable-token findings the server holds for the document (the last set
    computed, which the diagnostics carry through edits until the next); None until one is."""
    held = getattr(doc, "unreachable", None)
    return len(held) if isinstance(held, list) else None
