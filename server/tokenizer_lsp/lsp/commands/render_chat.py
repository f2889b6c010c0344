"""`tokenizer-lsp.renderChat` [uri, messages?]: the prompt the template of the document's
model folder makes of a conversation, as `tokenizer-lsp render PATH --ids --format json`
prints it (text, template, ids, tokens, spans, generation), with the editor's unsaved text
of the template. `messages`: a list of messages or an object of apply_chat_template's
keyword arguments; without it the sample chat. A template that fails is a CommandError
with its message and line."""

from __future__ import annotations

from ...core.detect import is_chat_template_name, is_config_name
from ..chat_render import as_request, render_document
from ..lsp_types import JsonResult
from ..session import uri_to_path
from . import CommandError


async def run(ls, arguments: list):
    if not arguments or not isinstance(arguments[0], str):
        raise CommandError(
            "tokenizer-lsp.renderChat takes [uri, messages?]: the URI of a model folder's "
            "tokenizer_config.json, chat_template.jinja or tokenizer file, and optionally the messages"
        )
    uri = arguments[0]
    request = as_request(arguments[1] if len(arguments) > 1 else None)
    if request is None:
        raise CommandError("messages: expected a JSON list of messages or an object with a \"messages\" list")
    path = ls.session.path_of(uri) if ls.session.is_open(uri) else uri_to_path(uri)
    if not path:
        raise CommandError(f"{uri}: not a file")
    # the template as the editor has it: the index that answers once an edit is indexed
    found = await ls.session.settled_index(uri) if ls.session.is_open(uri) else None
    idx, version = found if found is not None else (None, None)
    if not (is_config_name(path) or is_chat_template_name(path)):
        import os

        path = os.path.dirname(path)  # a tokenizer file: its folder's template
    found = await render_document(ls, uri, path, idx, request, version)
    if "failure" in found:
        raise CommandError(found["failure"])
    return JsonResult(found)
