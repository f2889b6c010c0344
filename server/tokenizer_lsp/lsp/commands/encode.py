"""`tokenizer-lsp.encode` [uri, text]: the text encoded by the open document's tokenizer, as
the editor shows it now (unsaved edits included), in the engine helper process.

Returns the JSON of `tokenizer-lsp encode --format json` without `--special`; a third
argument {"special": true, "pattern": REGEX} gives `--special` / `--pattern`.
"""

from __future__ import annotations

import asyncio

from ...core.behaviour.loaded import LoadError
from ...core.text.edits import apply_changes
from ..engine_client import EngineError, companion_bytes
from ..handlers.lsp_types import JsonResult
from . import CommandError


async def run(ls, arguments: list):
    if len(arguments) < 2 or not isinstance(arguments[0], str) or not isinstance(arguments[1], str):
        raise CommandError(
            "tokenizer-lsp.encode takes [uri, text]: the URI of an open tokenizer file "
            "and the text to encode (and optionally {\"special\": bool, \"pattern\": regex})"
        )
    uri, text = arguments[0], arguments[1]
    options = arguments[2] if len(arguments) > 2 and isinstance(arguments[2], dict) else {}
    pattern = options.get("pattern") if isinstance(options.get("pattern"), str) else None
    doc = ls.session.documents.get(uri)
    if doc is None:
        raise CommandError(f"{uri} is not open in the editor: open the tokenizer file first")
    if doc.index is not None and not doc.index.is_tokenizer and not doc.was_tokenizer:
        raise CommandError(f"{uri.rsplit('/', 1)[-1]} is not a tokenizer file")
    version, data = await current_text(ls, doc)
    other, companion = await companion_bytes(ls.session, data, doc.path)
    try:
        result = await ls.engine.encode(
            (uri, version),
            data,
            doc.path,
            companion,
            text,
            special=options.get("special") is True,
            companion_path=other,
            pattern=pattern,
        )
    except LoadError as e:
        hint = " (here: {\"pattern\": REGEX} as the command's third argument)" if "--pattern" in str(e) else ""
        raise CommandError(f"{e}{hint}") from None
    except EngineError as e:
        raise CommandError(str(e)) from None
    return JsonResult(result)  # plain JSON already: written as it is, no cattrs pass over every token


async def current_text(ls, doc) -> tuple[int, bytes]:
    """(version, UTF-8 text) the client shows now: the document's bytes with the changes
    queued since applied (a build keeps them queued until it stores their text: the two
    always make the client's text)."""
    version, data, queued = doc.version, doc.data, list(doc.queued)
    if queued:  # applying edits to a 30 MB text takes a while: not on the event loop
        loop = asyncio.get_running_loop()
        data, _ = await loop.run_in_executor(None, apply_changes, data, queued, ls.session.encoding)
    return version, data
