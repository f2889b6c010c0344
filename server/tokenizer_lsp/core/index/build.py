"""Detection and dispatch: one version of a text made a DocumentIndex (core.index.document).

`build_index` decides everything about a version of a text at once (its format, whether
it was salvaged from broken JSON, its findings); the index does not change after that.
Every format goes the same way, through the registry (core/formats/registry.py): the
plug-in that claims the text parses it (no check), then its format's checks make the
findings of what was parsed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import orjson

from .. import detect
from ..formats import registry
from ..formats.json import NOT_TOKENIZER
from ..formats.parsed import Parsed
from ..model import Finding, Vocabulary
from ..model_folder.folder import build_config_index
from .document import DocumentIndex, TokenOfId, collector_paused, new_parse_id
from .table import decoded_view_index

__all__ = [
    "NOT_TOKENIZER",
    "DocumentIndex",
    "TokenOfId",
    "build_index",
    "collector_paused",
    "load_vocabulary",
    "new_parse_id",
]


def build_index(
    data: bytes,
    path: str | None = None,
    companion: Callable[[], Vocabulary | None] | None = None,
    assume_tokenizer: bool = False,
) -> DocumentIndex:
    """Detect, parse and check one version of a text. `companion` gives the vocabulary a
    merges file is checked against; `assume_tokenizer`: it was one before (broken JSON of
    a document that parsed earlier is still reported). A model folder's config file is
    checked against the tokenizer `companion` gives for it (model_folder.folder.Folder)."""
    if detect.is_config_name(path):
        return build_config_index(data, path, companion() if companion else None)
    if detect.is_chat_template_name(path):  # chat_template.jinja: checked in its model folder
        from ..model_folder.chat_template_file import build_template_index

        return build_template_index(data, path, companion() if companion else None)
    view = decoded_view_index(data, path)  # a binary file's decoded view: its rows are the table's
    if view is not None:
        return view
    plugin = registry.claim(data[: registry.SNIFF_BYTES], path, assume_tokenizer)
    if plugin is None:
        return DocumentIndex(data, path, not_tokenizer_reason="not a tokenizer file")
    with collector_paused():
        parsed = registry.document(plugin, data, path, companion, assume_tokenizer)
        if parsed.format is None:
            return DocumentIndex(data, path, not_tokenizer_reason=parsed.reason)
        found = document_findings(plugin, parsed)
        return DocumentIndex(data, path, parsed.format, parsed.doc, found, syntax_error=parsed.error)


def document_findings(plugin, parsed: Parsed) -> list[Finding]:
    """The findings of what `plugin` parsed, from its format's checks: a document plug-in's
    checks module (document_findings), a table plug-in's through core/checks/tables.py. A
    text that could not be read has its one finding."""
    if parsed.doc is None and parsed.salvaged is None:
        return [parsed.error] if parsed.error is not None else []
    if registry.reads_table(plugin):
        from ..checks.tables import document_findings as table_document_findings

        return table_document_findings(parsed)
    return importlib.import_module(f"..formats.{plugin.checks}", __package__).document_findings(parsed)


def load_vocabulary(data: bytes, path: str | None) -> Vocabulary | None:
    """The vocabulary of a vocab.json text, parsed without checks (a merges file's pair)."""
    if detect.content_kind(data, path) != "json":
        return None
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if detect.is_vocab_json(obj) and detect.claims_vocab_json(obj, path):
        from ..formats.json.doc import JsonDocument

        return JsonDocument(data, obj, "vocab.json").vocab
    return None
