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
from . import open_tokenizer


async def run(ls, arguments: list):
    _, idx, _ = await open_tokenizer(ls, arguments, "tokenizer-lsp.decodedVocabulary")
    text, rows = await asyncio.to_thread(lambda: hooks.beside(listing, idx).result())
    return JsonResult({"text": text, "rows": rows})
