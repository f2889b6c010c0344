"""`tokenizer-lsp.encode` [uri, text]: the text encoded by the open document's tokenizer, as
the editor shows it now (unsaved edits included), in the engine helper process.

Returns the JSON of `tokenizer-lsp encode --format json` without `--special`; a third
argument {"special": true, "pattern": REGEX} gives `--special` / `--pattern`.
"""

from __future__ import annotations

from ...core.behaviour.loaded import LoadError
from ..engine_client import EngineError, companion_bytes
from ..lsp_types import JsonResult
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
    if not ls.session.is_open(uri):
        raise CommandError(f"{uri} is not open in the editor: open the tokenizer file first")
    if ls.session.known_not_tokenizer(uri):
        raise CommandError(f"{uri.rsplit('/', 1)[-1]} is not a tokenizer file")
    version, data = await ls.session.current_text(uri)
    path = ls.session.path_of(uri)
    other, companion = await companion_bytes(ls.session, data, path)
    try:
        result = await ls.engine.encode(
            (uri, version),
            data,
            path,
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
