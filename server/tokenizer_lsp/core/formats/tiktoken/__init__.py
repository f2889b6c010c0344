"""The tiktoken plug-in (core/formats/registry.py): a `.tiktoken` rank file, `base64 rank` per
line, read as tiktoken's loader reads it (doc.py's TiktokenDocument), checked by checks.py."""

from __future__ import annotations

from ..line_plugin import LinePlugin


def _parse(data: bytes, companion):  # a rank file stands alone
    from .doc import TiktokenDocument

    return TiktokenDocument(data)


PLUGIN = LinePlugin(
    "tiktoken",
    ".tiktoken",
    kind="tiktoken",
    format="tiktoken",
    malformed="tiktoken-malformed",
    what="tiktoken rank",
    parse=_parse,
)
