"""The two moves of a chat template (docs/guides/check-a-chat-template.md, In an editor):
tokenizer_config.json's `chat_template` string to chat_template.jinja, and back. Each leaves a
folder whose template transformers loads (AutoTokenizer.from_pretrained) renders exactly as
before: transformers 5.24 reads chat_template.jinja with `open(..., encoding="utf-8")`, which
turns `\\r\\n` and `\\r` into `\\n`, and the file replaces the config's template whenever it
exists, as does an additional_chat_templates/ folder.

Pure: byte edits of the files' texts and the files to create or delete; the LSP layer makes
them a WorkspaceEdit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ..chat.places import JINJA_DIR, JINJA_FILE
from ..detect import chat_template_folder
from .config_doc import ConfigDocument
from .spans import span_tree

MOVE_OUT = f"Move the chat template to {JINJA_FILE}"
MOVE_IN = f"Move {JINJA_FILE} into tokenizer_config.json"

Edit = tuple[int, int, bytes]


@dataclass
class Move:
    title: str
    edits: dict[str, list[Edit]] = field(default_factory=dict)  # path -> byte edits of its text
    create: tuple[str, str] | None = None  # (path, text) of a new file
    delete: str | None = None  # a file removed
    disabled: str | None = None  # why it cannot be done here


def chat_template_entry(doc: ConfigDocument) -> tuple[int, int] | None:
    """The bytes of the `"chat_template": ...` member (key to end of value)."""
    root = doc.tree
    if root is None or root.kind != "object" or "chat_template" not in root.keys:
        return None
    (ks, _), node = root.keys["chat_template"]
    return ks, node.end


def _removal(data: bytes, root, key: str) -> Edit:
    """The edit that removes one member of the root object, with its comma."""
    members = list(root.keys.items())
    k = next(i for i, (name, _) in enumerate(members) if name == key)
    (ks, _), node = members[k][1]
    if k + 1 < len(members):  # up to the next key: its indentation takes this one's place
        (next_ks, _), _ = members[k + 1][1]
        return ks, next_ks, b""
    if k > 0:  # the last member: from the end of the one before (its comma goes)
        return members[k - 1][1][1].end, node.end, b""
    return ks, node.end, b""


def move_out(doc: ConfigDocument) -> Move | None:
    """tokenizer_config.json's chat_template string into a new chat_template.jinja."""
    if doc.name != "tokenizer_config.json" or doc.path is None or not isinstance(doc.obj, dict):
        return None
    template = doc.obj.get("chat_template")
    if not isinstance(template, str) or chat_template_entry(doc) is None:
        return None
    folder = os.path.dirname(os.path.abspath(doc.path))
    move = Move(MOVE_OUT)
    if os.path.exists(os.path.join(folder, JINJA_FILE)):
        move.disabled = f"{JINJA_FILE} exists already (and takes effect instead of this one)"
    elif os.path.isdir(os.path.join(folder, JINJA_DIR)):
        move.disabled = f"{JINJA_DIR}/ exists: its templates take effect instead of this one"
    elif "\r" in template:
        move.disabled = (
            f"the template holds a carriage return, which transformers reads as a line feed "
            f"from {JINJA_FILE}: it would render differently"
        )
    if move.disabled is None:
        move.create = (os.path.join(folder, JINJA_FILE), template)
        move.edits[doc.path] = [_removal(doc.data, doc.tree, "chat_template")]
    return move


def _indent_of_first_member(data: bytes, root) -> bytes:
    members = list(root.keys.values())
    if not members:
        return b"  "
    ks = members[0][0][0]
    line_start = data.rfind(b"\n", 0, ks) + 1
    lead = data[line_start:ks]
    return lead if not lead.strip() else b"  "


def move_in(path: str, text: str, config_path: str, config_data: bytes | None) -> Move | None:
    """A chat_template.jinja into tokenizer_config.json's chat_template (replacing a copy
    there), the file deleted."""
    if os.path.basename(path) != JINJA_FILE:
        return None
    folder = chat_template_folder(path)
    move = Move(MOVE_IN)
    if os.path.isdir(os.path.join(folder, JINJA_DIR)):
        move.disabled = f"{JINJA_DIR}/ exists: without {JINJA_FILE} its templates would have no default"
        return move
    root = span_tree(config_data) if config_data is not None else None
    if root is None or root.kind != "object":
        move.disabled = "tokenizer_config.json is missing or not a JSON object"
        return move
    # what transformers reads from the file: universal newlines
    value = json.dumps(text.replace("\r\n", "\n").replace("\r", "\n"), ensure_ascii=False).encode("utf-8")
    if "chat_template" in root.keys:
        _, node = root.keys["chat_template"]
        edit = (node.start, node.end, value)
    else:
        indent = _indent_of_first_member(config_data, root)
        after = b"," if root.keys else b"\n"  # before the first member, or alone in `{}`
        edit = (root.start + 1, root.start + 1, b"\n" + indent + b'"chat_template": ' + value + after)
    move.edits[config_path] = [edit]
    move.delete = path
    return move
