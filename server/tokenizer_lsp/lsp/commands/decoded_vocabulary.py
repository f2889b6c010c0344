"""`tokenizer-lsp.decodedVocabulary` [uri]: what `tokenizer-lsp decode` prints (text format)
for the open document's current index, and its number of rows.

The rows of a large vocabulary (262k for Gemma 3) are rendered beside the server (a
forked child where the platform has fork: core.hooks), off the event loop; the answer,
tens of megabytes, is written as JSON as it is.
"""

from __future__ import annotations

import asyncio

from ...core import hooks
from ...core.decoded_listing import listing
from ..handlers.lsp_types import JsonResult
from . import CommandError
from .stats import SETTLE_S, serving_index


async def run(ls, arguments: list):
    if not arguments or not isinstance(arguments[0], str):
        raise CommandError("tokenizer-lsp.decodedVocabulary takes [uri]: the URI of an open tokenizer file")
    uri = arguments[0]
    doc = ls.session.documents.get(uri)
    if doc is None:
        raise CommandError(f"{uri} is not open in the editor: open the tokenizer file first")
    if doc.busy:
        try:
            await asyncio.wait_for(asyncio.shield(doc.settled.wait()), SETTLE_S)
        except asyncio.TimeoutError:
            pass
    idx, _ = serving_index(doc)
    if idx is None or idx.vocab is None:
        raise CommandError(f"{uri.rsplit('/', 1)[-1]} is not a tokenizer file")
    text, rows = await asyncio.to_thread(lambda: hooks.beside(listing, idx).result())
    return JsonResult({"text": text, "rows": rows})
