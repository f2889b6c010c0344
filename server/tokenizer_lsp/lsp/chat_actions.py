"""The code actions of a chat template: move tokenizer_config.json's chat_template to
chat_template.jinja and back (core/model_folder/chat_template_moves.py), as WorkspaceEdits
that create, edit and delete files. Offered only to clients that apply such edits
(`workspace.workspaceEdit.documentChanges` and `resourceOperations`)."""

from __future__ import annotations

import os

from pygls.uris import from_fs_path

from ..core.model_folder.chat_template_file import FORMAT as TEMPLATE_FORMAT
from ..core.model_folder.chat_template_file import TemplateDocument
from ..core.model_folder.chat_template_moves import (
    Move,
    chat_template_entry,
    move_in,
    move_out,
)
from ..core.model_folder.config_doc import ConfigDocument
from ..core.text.lines import LineIndex

REFACTOR = "refactor.move"


def _uri(path: str) -> str:
    return from_fs_path(os.path.abspath(path)) or ("file://" + os.path.abspath(path))


def _text_of(ls, path: str) -> tuple[bytes | None, int | None]:
    """(the client's text of a file, its version when open) - else the file on disk."""
    found = ls.session.applied_text(path)
    if found is not None:
        return found
    try:
        with open(path, "rb") as f:
            return f.read(), None
    except OSError:
        return None, None


def _text_edits(data: bytes, edits, encoding: str) -> list[dict]:
    lines = LineIndex(data)
    out = []
    for start, end, new in edits:
        (a, b), (c, d) = lines.positions([start, end], encoding)
        out.append(
            {
                "range": {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}},
                "newText": new.decode("utf-8", "surrogatepass"),
            }
        )
    return out


def _workspace_edit(ls, move: Move, here: str, here_version: int, here_data: bytes) -> dict | None:
    changes: list[dict] = []
    if move.create is not None:
        path, text = move.create
        uri = _uri(path)
        changes.append({"kind": "create", "uri": uri, "options": {"overwrite": False, "ignoreIfExists": False}})
        changes.append(
            {
                "textDocument": {"uri": uri, "version": None},
                "edits": [
                    {
                        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                        "newText": text,
                    }
                ],
            }
        )
    for path, edits in move.edits.items():
        if os.path.abspath(path) == os.path.abspath(here):
            data, version = here_data, here_version
        else:
            data, version = _text_of(ls, path)
            if data is None:
                return None
        changes.append(
            {
                "textDocument": {"uri": _uri(path), "version": version},
                "edits": _text_edits(data, edits, ls.session.encoding),
            }
        )
    if move.delete is not None:
        changes.append({"kind": "delete", "uri": _uri(move.delete)})
    return {"documentChanges": changes}


def chat_template_actions(ls, uri: str, version: int, snap, start: int, end: int) -> list[dict]:
    """The move offered where the request's range lies: on the config's chat_template
    member, or anywhere in a chat_template.jinja."""
    path, idx = snap.path, snap.index
    if path is None:
        return []
    move = None
    if isinstance(idx.doc, ConfigDocument):
        entry = chat_template_entry(idx.doc)
        if entry is not None and entry[0] <= end and start <= entry[1]:
            move = move_out(idx.doc)
    elif idx.format == TEMPLATE_FORMAT and isinstance(idx.doc, TemplateDocument):
        config = os.path.join(os.path.dirname(os.path.abspath(path)), "tokenizer_config.json")
        move = move_in(path, idx.doc.text, config, _text_of(ls, config)[0])
    if move is None:
        return []
    action = {"title": move.title, "kind": REFACTOR}
    needed = ({"create"} if move.create else set()) | ({"delete"} if move.delete else set())
    caps = ls.session.capabilities
    if move.disabled is None and not (caps.document_changes and needed <= caps.resource_operations):
        move.disabled = "the editor does not create or delete files through a WorkspaceEdit"
    if move.disabled is None:
        edit = _workspace_edit(ls, move, path, version, idx.data)
        if edit is None:
            move.disabled = "a file of the folder cannot be read"
        else:
            action["edit"] = edit
    if move.disabled is not None:
        action["disabled"] = {"reason": move.disabled}
    return [action]
