"""Detection and dispatch: one version of a text made a DocumentIndex (core.index.document).

`build_index` decides everything about a version of a text at once (its format, whether
it was salvaged from broken JSON, its findings); the index does not change after that.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from .. import detect
from ..formats.json.doc import JsonDocument, parse_deferring_merges
from ..formats.merges.doc import MergesDocument
from ..formats.tiktoken.doc import TiktokenDocument
from ..model import Finding, Vocabulary
from ..model_folder.folder import build_config_index
from .document import DocumentIndex, TokenOfId, collector_paused, new_parse_id
from .table import table_index

__all__ = ["DocumentIndex", "TokenOfId", "build_index", "collector_paused", "load_vocabulary", "new_parse_id"]

NOT_TOKENIZER = "not a tokenizer file (JSON without a tokenizer model or token->id vocab)"


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
    table = table_index(data, path, assume_tokenizer)
    if table is not None:
        return table
    kind = detect.content_kind(data, path)
    named = detect.name_kind(path)
    if kind is None and named is not None:
        kind = named
        if kind != "json" and detect.looks_binary(data):
            return _binary(data, path, kind)
    with collector_paused():
        if kind == "json":
            return _build_json(data, path, assume_tokenizer or named == "json")
        if kind == "merges":
            doc = MergesDocument(data, companion() if companion else None)
            return DocumentIndex(data, path, "merges.txt", doc, doc.findings())
        if kind == "tiktoken":
            doc = TiktokenDocument(data)
            return DocumentIndex(data, path, "tiktoken", doc, doc.findings())
    return DocumentIndex(data, path, not_tokenizer_reason="not a tokenizer file")


def load_vocabulary(data: bytes, path: str | None) -> Vocabulary | None:
    """The vocabulary of a vocab.json text, parsed without checks (a merges file's pair)."""
    if detect.content_kind(data, path) != "json":
        return None
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if detect.is_vocab_json(obj) and detect.claims_vocab_json(obj, path):
        return JsonDocument(data, obj, "vocab.json").vocab
    return None


def _binary(data: bytes, path: str | None, kind: str) -> DocumentIndex:
    """A merges or tiktoken file by name holding binary data: one clear finding, not
    one per line."""
    fmt = "merges.txt" if kind == "merges" else "tiktoken"
    code = "merge-malformed" if kind == "merges" else "tiktoken-malformed"
    what = "merges" if kind == "merges" else "tiktoken rank"
    end = min(len(data), max(1, data.find(b"\n") if b"\n" in data else len(data)))
    error = Finding(code, 0, end, f"binary data (NUL bytes or invalid UTF-8), not a {what} file")
    return DocumentIndex(data, path, fmt, None, [error], syntax_error=error)


def _build_json(data: bytes, path: str | None, named_like_tokenizer: bool) -> DocumentIndex:
    if not named_like_tokenizer and not detect.worth_parsing(data):
        # package-lock.json and the like: a full parse on every keystroke costs 100 ms
        return DocumentIndex(data, path, not_tokenizer_reason=NOT_TOKENIZER)
    try:
        obj, merges_span = parse_deferring_merges(data)
    except orjson.JSONDecodeError as err:
        if named_like_tokenizer or detect.looks_like_tokenizer_json(data):
            return _salvaged(data, path, err)
        return DocumentIndex(data, path, not_tokenizer_reason="not a tokenizer file (invalid JSON)")
    if detect.is_tokenizer_json(obj):
        fmt = "tokenizer.json"
    elif detect.is_vocab_json(obj) and detect.claims_vocab_json(obj, path):
        fmt = "vocab.json"
    else:
        return DocumentIndex(data, path, not_tokenizer_reason=NOT_TOKENIZER)
    doc = JsonDocument(data, obj, fmt, merges_span if fmt == "tokenizer.json" else None)
    try:
        findings = doc.findings()
    except orjson.JSONDecodeError:  # in the merges parsed apart from the rest
        return _salvaged(data, path, None)
    return DocumentIndex(data, path, fmt, doc, findings)


def _salvaged(data: bytes, path: str | None, err: orjson.JSONDecodeError | None) -> DocumentIndex:
    """json-syntax where the parser stopped, and what the intact parts still tell
    (fragments, hovers, hints): the finding first, then the others in file order.
    err None: met in the merges parsed apart (salvage re-parses the whole file)."""
    from ..formats.json.salvage import salvage

    found = salvage(data, err, path)  # never raises
    return DocumentIndex(data, path, "json", found.doc, found.findings, syntax_error=found.error)
