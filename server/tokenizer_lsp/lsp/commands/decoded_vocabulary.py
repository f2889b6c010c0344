"""`tokenizer-lsp.decodedVocabulary` [uri]: what `tokenizer-lsp decode` prints (text format)
for the open document's current index, and its number of rows.

A binary tokenizer file (`.model`, `.gguf`: a format plug-in with `binary`), or any file of a
plug-in's format that is not open, is read from disk by its URI and given as its decoded
view (core/formats/decoded_view.py): the text an editor shows in place of the bytes, whose
own hovers and findings the server serves when it is opened as a document. The editor never
reads the file.

The rows of a large vocabulary (262k for Gemma 3) are rendered in a forked child where
the platform has fork (core.seams.in_child; stopped when the request is cancelled), off the event loop; the answer,
tens of megabytes, is written as JSON as it is.
"""

from __future__ import annotations

from ...core.decoding.listing import listing
from ...core.formats import registry
from ...core.formats.decoded_view import rows_and_spans, view_text
from ...core.formats.table import FormatError
from ..lsp_types import JsonResult
from ..session import uri_to_path
from ..work import Mode, current_token, in_child_result, off_loop
from . import CommandError, open_tokenizer

NAME = "tokenizer-lsp.decodedVocabulary"


async def run(ls, arguments: list):
    uri = arguments[0] if arguments and isinstance(arguments[0], str) else None
    path = _plugin_file(ls, uri) if uri is not None else None
    if path is not None:
        try:
            text, rows = await off_loop(Mode.BACKGROUND, current_token(), view_text, path)
        except (OSError, FormatError, ValueError) as e:
            raise CommandError(f"{uri.rsplit('/', 1)[-1]}: {e}") from None
        return JsonResult({"text": text, "rows": rows})
    idx, _ = await open_tokenizer(ls, arguments, NAME)
    table = getattr(idx.doc, "table", None)
    if table is not None and idx.path:  # an open tekken or vocab.txt: its rows as `decode` gives them
        text, rows, _ = await off_loop(
            Mode.BACKGROUND, current_token(), rows_and_spans, idx.doc.plugin, table, idx.path
        )
        return JsonResult({"text": text, "rows": rows})
    token = current_token()
    text, rows = await off_loop(Mode.BACKGROUND, token, in_child_result, token, listing, idx)
    return JsonResult({"text": text, "rows": rows})


def _plugin_file(ls, uri: str) -> str | None:
    """The local file of this URI when it is read from disk: a binary plug-in format, or a
    plug-in's file that is not open (an open text one is rendered from its current text)."""
    path = uri_to_path(uri) if uri.startswith("file:") else None
    if path is None:
        return None
    try:
        plugin = registry.sniff_path(path)
    except OSError:
        return None
    if plugin is None or (not plugin.binary and ls.session.is_open(uri)):
        return None
    return path
