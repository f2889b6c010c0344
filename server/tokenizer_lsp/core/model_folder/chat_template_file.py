"""A chat template file of a model folder (chat_template.jinja, additional_chat_templates/
NAME.jinja) as a document the server serves: the template checks of core/chat on its bytes,
its special-token literals (hover, definition) as the config file's chat_template has them.

Served only with a tokenizer in its model folder (docs/guides/check-a-chat-template.md: "a .jinja file is a
template when it stands beside a tokenizer"); elsewhere it is not a file this tool reports on.
"""

from __future__ import annotations

import os
from bisect import bisect_right

from ..detect import chat_template_folder
from ..index.document import DocumentIndex
from .checks import _template as template_token_findings
from .config_doc import ConfigItem, special_literals
from .folder import Folder

FORMAT = "chat template"
NO_TOKENIZER = "not a tokenizer file (a chat template with no tokenizer in its model folder: it is checked beside one)"


def char_offsets(data: bytes) -> tuple[str, list[int]]:
    """The text of a UTF-8 file and, for each character (and one past the last), the byte
    offset where it begins."""
    text = data.decode("utf-8", "replace")
    offsets, at = [], 0
    for ch in text:
        offsets.append(at)
        at += len(ch.encode("utf-8", "surrogatepass"))
    offsets.append(at)
    return text, offsets


class TemplateDocument:
    """A .jinja chat template: its text, where each character is, its special literals."""

    vocab = None  # no vocabulary: a literal's facts live in the tokenizer file
    tables_ready = True
    special_tokens: dict[str, str] | None = None  # as the template receives them (set by the build)

    def __init__(self, data: bytes, path: str | None) -> None:
        self.data = data
        self.path = path
        self.name = os.path.basename(path or "")
        self.text, self.offsets = char_offsets(data)
        self.items: list[ConfigItem] = [
            ConfigItem(
                "template", "chat_template", self.offsets[a], self.offsets[b], (self.offsets[a], self.offsets[b]), token
            )
            for a, b, token in special_literals(self.text)
        ]

    def build_tables(self) -> None:
        return None

    def char_at(self, offset: int) -> int:
        """The character holding byte `offset`."""
        return max(0, bisect_right(self.offsets, offset) - 1)

    def item_at(self, offset: int) -> ConfigItem | None:
        k = bisect_right(self.items, offset, key=lambda i: i.start) - 1
        if k >= 0 and self.items[k].start <= offset < self.items[k].end:
            return self.items[k]
        return None

    def tokens_in(self, start: int, end: int, limit: int | None = None) -> list:
        return []

    def token_at(self, offset: int):
        return None


def anchor(path: str) -> str:
    """A path in the template's model folder that the folder helpers (tokenizer_beside,
    load_folder) take for "a file of this folder"."""
    return os.path.join(chat_template_folder(path), "chat_template.jinja")


def build_template_index(data: bytes, path: str | None, folder: Folder | None) -> DocumentIndex:
    """The template checks of the file against its model folder (its tokenizer and configs)."""
    if folder is None or path is None:
        return DocumentIndex(data, path, not_tokenizer_reason=NO_TOKENIZER)
    from ..chat.folder_checks import folder_context, jinja_file_findings

    config = folder.configs.get("tokenizer_config.json")
    obj = config.obj if config is not None and isinstance(config.obj, dict) else {}
    ctx = folder_context(chat_template_folder(path), obj, folder.configs, folder.facts)
    doc = TemplateDocument(data, path)
    doc.special_tokens = ctx.special_tokens  # what a hover on `bos_token` shows
    findings = jinja_file_findings(data, ctx)
    for item in doc.items:  # a misspelt special token, as in the config's chat_template
        findings.extend(template_token_findings(item, folder.facts))
    findings.sort(key=lambda f: (f.start, f.end))
    return DocumentIndex(data, path, FORMAT, doc, findings)
