"""Rendering a chat template for the editor: the document's template as the editor has it
(unsaved edits included), rendered in the engine helper process (a template is untrusted
code; a runaway one spends its 5 s there while the server answers hovers), with the last
answers kept per document version (the code lens asks on every scroll)."""

from __future__ import annotations

import os

from ..core.chat.chats import sample
from ..core.model_folder.chat_template_file import TemplateDocument
from ..core.model_folder.config_doc import ConfigDocument
from .engine_client import EngineError

KEPT = 8  # renders kept: (uri, version, request) -> answer


def editor_overrides(idx) -> dict[str, str]:
    """The template text of a document as the editor has it, by the path of its file."""
    doc = idx.doc if idx is not None else None
    # a config's first index can be a plain JSON document (no path): its file is read as saved
    path = getattr(doc, "path", None)
    if not path:
        return {}
    path = os.path.abspath(path)
    if isinstance(doc, TemplateDocument):
        return {path: doc.text}
    if isinstance(doc, ConfigDocument) and isinstance(doc.obj, dict) and isinstance(doc.obj.get("chat_template"), str):
        return {path: doc.obj["chat_template"]}
    return {}


def as_request(messages) -> dict | None:
    """A renderChat messages argument (a list of messages, or apply_chat_template's keyword
    arguments); None when it is neither."""
    if messages is None:
        return sample()
    if isinstance(messages, list):
        return {"messages": messages}
    if isinstance(messages, dict) and isinstance(messages.get("messages"), list):
        return messages
    return None


async def render_document(ls, uri: str, path: str, idx, request: dict, version=None) -> dict:
    """The render JSON object of the template the document's folder uses (`render PATH`),
    or {"failure", "status"}."""
    cache = ls.__dict__.setdefault("_chat_renders", {})
    key = (uri, version, repr(request)) if version is not None else None
    if key is not None and key in cache:
        return cache[key]
    try:
        found = await ls.engine.render(path, request, editor_overrides(idx))
    except EngineError as e:
        return {"failure": str(e), "status": 1}
    if key is not None:
        if len(cache) >= KEPT:
            cache.pop(next(iter(cache)))
        cache[key] = found
    return found
