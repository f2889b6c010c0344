"""The tiktoken plug-in (core/formats/registry.py): a `.tiktoken` rank file, `base64 rank` per
line, read as tiktoken's loader reads it (doc.py's TiktokenDocument), checked by checks.py."""

from __future__ import annotations

from ..line_plugin import LinePlugin
from ..parsed import Parsed


class _Tiktoken(LinePlugin):
    name = "tiktoken"
    label = ".tiktoken"
    kind, format, malformed, what = "tiktoken", "tiktoken", "tiktoken-malformed", "tiktoken rank"
    checks = "tiktoken.checks"  # core/formats/tiktoken/checks.py: document_findings(parsed)

    def document(self, data: bytes, path: str | None, companion=None, assume_tokenizer: bool = False) -> Parsed:
        binary = self.binary_data(data, path)
        if binary is not None:
            return binary
        from .doc import TiktokenDocument

        return Parsed(self.format, TiktokenDocument(data), path=path)


PLUGIN = _Tiktoken()
