"""What the plug-ins of the two line formats (merges, tiktoken) share: detect.py's rules
decide them (content first, then the name), and a text by their name that holds binary data
gets one clear finding rather than one per line."""

from __future__ import annotations

import os

from .. import detect
from ..model import Finding
from .parsed import Parsed


class LinePlugin:
    binary = False

    def __init__(self, name: str, label: str, *, kind: str, format: str, malformed: str, what: str, parse) -> None:
        self.name, self.label = name, label
        self.kind = kind  # detect.py's kind: "merges" | "tiktoken"
        self.format = format  # the index's format: "merges.txt" | "tiktoken"
        self.malformed = malformed  # the code of a line that is not of the format
        self.what = what  # how the binary-data finding names the file
        self.checks = f"{name}.checks"  # core/formats/<name>/checks.py: document_findings(parsed)
        self._parse = parse  # (data, companion) -> the format's document

    def named(self, name: str) -> bool:
        return detect.name_kind(name) == self.kind

    def sniff(self, head: bytes, path: str | None) -> bool:
        return detect.content_kind(head, path) == self.kind

    def by_name(self, path: str | None, assume_tokenizer: bool) -> bool:
        return bool(path) and self.named(os.path.basename(path))

    def document(self, data: bytes, path: str | None, companion=None, assume_tokenizer: bool = False) -> Parsed:
        binary = self.binary_data(data, path)
        if binary is not None:
            return binary
        return Parsed(self.format, self._parse(data, companion), path=path)

    def binary_data(self, data: bytes, path: str | None) -> Parsed | None:
        """A file of this format by its name alone holding binary data (NUL bytes, not
        UTF-8): its one finding, else None."""
        if detect.content_kind(data, path) is not None or not detect.looks_binary(data):
            return None
        end = min(len(data), max(1, data.find(b"\n") if b"\n" in data else len(data)))
        error = Finding(self.malformed, 0, end, f"binary data (NUL bytes or invalid UTF-8), not a {self.what} file")
        return Parsed(self.format, None, error=error, path=path)
