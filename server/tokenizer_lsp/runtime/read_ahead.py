"""Texts of large didOpens that the transport (runtime/stdio.py) read straight to UTF-8
bytes, by (uri, version), until the didOpen handler takes them (lsp/session.py).

A store of its own so that the transport never imports the server's code: runtime/ sits
below lsp/, which reads from here.
"""

from __future__ import annotations

_texts: dict[tuple[str, int], bytes] = {}


def keep(uri: str, version: int, data: bytes) -> None:
    _texts.clear()  # taken at once by the didOpen handler; never pile up
    _texts[(uri, version)] = data


def take(uri: str, version: int) -> bytes | None:
    return _texts.pop((uri, version), None)
