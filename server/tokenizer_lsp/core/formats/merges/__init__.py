"""The merges plug-in (core/formats/registry.py): merges.txt / vocab.bpe, the merges of a
GPT-2 vocab.json beside it. The parse is doc.py's MergesDocument, checked against the
vocabulary `companion` gives (checks.py)."""

from __future__ import annotations

from ..line_plugin import LinePlugin


def _parse(data: bytes, companion):
    from .doc import MergesDocument

    return MergesDocument(data, companion() if companion else None)


PLUGIN = LinePlugin(
    "merges", "merges.txt", kind="merges", format="merges.txt", malformed="merge-malformed", what="merges", parse=_parse
)
