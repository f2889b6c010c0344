"""The merges plug-in (core/formats/registry.py): merges.txt / vocab.bpe, the merges of a
GPT-2 vocab.json beside it. The parse is doc.py's MergesDocument, checked against the
vocabulary `companion` gives (checks.py)."""

from __future__ import annotations

from ..line_plugin import LinePlugin
from ..parsed import Parsed


class _Merges(LinePlugin):
    name = "merges"
    label = "merges.txt"
    kind, format, malformed, what = "merges", "merges.txt", "merge-malformed", "merges"
    checks = "merges.checks"  # core/formats/merges/checks.py: document_findings(parsed)

    def document(self, data: bytes, path: str | None, companion=None, assume_tokenizer: bool = False) -> Parsed:
        binary = self.binary_data(data, path)
        if binary is not None:
            return binary
        from .doc import MergesDocument

        return Parsed(self.format, MergesDocument(data, companion() if companion else None), path=path)


PLUGIN = _Merges()
