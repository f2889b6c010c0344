"""The JSON plug-ins (core/formats/registry.py): a HF tokenizer.json, and a GPT-2 vocab.json
(encoder.json), whose merges file is a plug-in of its own (core/formats/merges).

Both read the same way: one parse decides which of the two a text is (detect.py's
is_tokenizer_json / is_vocab_json on the parsed object), or salvages what broken JSON still
holds (salvage.py). The parse is doc.py's JsonDocument; its checks are checks.py. Modules
are imported when a text is read, not when the registry lists the plug-ins.
"""

from __future__ import annotations

import os

from ... import detect
from ..parsed import Parsed

NOT_TOKENIZER = "not a tokenizer file (JSON without a tokenizer model or token->id vocab)"


class _JsonPlugin:
    binary = False
    checks = "json.checks"  # core/formats/json/checks.py: document_findings(parsed)

    def __init__(self, name: str, label: str, vocab_like: bool) -> None:
        self.name, self.label, self._vocab_like = name, label, vocab_like

    def named(self, name: str) -> bool:
        """detect_rules.json's jsonNames / jsonSuffixes: vocabNames are vocab.json's."""
        name = name.lower()
        return detect.name_kind(name) == "json" and (name in detect.VOCAB_NAMES) == self._vocab_like

    def sniff(self, head: bytes, path: str | None) -> bool:
        # the content says JSON; which of the two it is, the parse decides (document())
        return detect.content_kind(head, path) == "json" and detect.starts_like_vocab_json(head) == self._vocab_like

    def by_name(self, path: str | None, assume_tokenizer: bool) -> bool:
        return bool(path) and self.named(os.path.basename(path))

    def document(self, data: bytes, path: str | None, companion=None, assume_tokenizer: bool = False) -> Parsed:
        return json_document(data, path, assume_tokenizer or detect.name_kind(path) == "json")


VOCAB_JSON = _JsonPlugin("vocab.json", "vocab.json", vocab_like=True)
TOKENIZER_JSON = _JsonPlugin("tokenizer.json", "tokenizer.json", vocab_like=False)


def json_document(data: bytes, path: str | None, named_like_tokenizer: bool) -> Parsed:
    """A tokenizer.json or vocab.json parsed (its merges left as text when large: doc.py),
    broken JSON salvaged, or why the text is neither."""
    import orjson

    from .doc import JsonDocument, parse_deferring_merges

    if not named_like_tokenizer and not detect.worth_parsing(data):
        # package-lock.json and the like: a full parse on every keystroke costs 100 ms
        return Parsed(reason=NOT_TOKENIZER, path=path)
    try:
        obj, merges_span = parse_deferring_merges(data)
    except orjson.JSONDecodeError as err:
        if named_like_tokenizer or detect.looks_like_tokenizer_json(data):
            return salvaged(data, path, err)
        return Parsed(reason="not a tokenizer file (invalid JSON)", path=path)
    if detect.is_tokenizer_json(obj):
        fmt = "tokenizer.json"
    elif detect.is_vocab_json(obj) and detect.claims_vocab_json(obj, path):
        fmt = "vocab.json"
    else:
        return Parsed(reason=NOT_TOKENIZER, path=path)
    return Parsed(fmt, JsonDocument(data, obj, fmt, merges_span if fmt == "tokenizer.json" else None), path=path)


def salvaged(data: bytes, path: str | None, err) -> Parsed:
    """Broken JSON: what its intact parts still tell (salvage.py; never raises). `err`
    None: met in the merges parsed apart (salvage parses the whole file again)."""
    from .salvage import salvage

    found = salvage(data, err, path)
    return Parsed("json", found.doc, error=found.error, path=path, salvaged=found)
