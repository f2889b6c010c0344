"""Rendering decoded bytes for people: visible whitespace, hex, code points."""

from __future__ import annotations

import re
import unicodedata

_VISIBLE = {" ": "\u2423", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}
# in stored forms (JSON strings, merges lines): what would break a line or a code span
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\\\\]")
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}


def escaped(text: str) -> str:
    """Text on one line: control characters and line/paragraph separators as \\n, \\t,
    \\u2028...; a backslash doubled so that those stay unambiguous."""
    if text.isascii() and text.isprintable() and "\\" not in text:
        return text
    return _UNSAFE.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04X}"), text)


def clipped(data: bytes, limit: int) -> tuple[bytes, int]:
    """At most `limit` bytes of data (cut at a character boundary when it is UTF-8), and
    how many were left out: a token can be a line of megabytes."""
    if len(data) <= limit:
        return data, 0
    cut = limit
    while cut > limit - 4 and cut > 0 and 0x80 <= data[cut] < 0xC0:
        cut -= 1
    if cut <= limit - 4:
        cut = limit
    return data[:cut], len(data) - cut


def _visible_char(ch: str) -> str:
    if ch in _VISIBLE:
        return _VISIBLE[ch]
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cf", "Zl", "Zp", "Zs", "Cs", "Co", "Cn"):
        cp = ord(ch)
        # \\x is kept for bytes that are not UTF-8: characters are always \\u
        return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"
    return ch


def _visible(text: str) -> str:
    if text.isascii() and text.isprintable() and " " not in text and "\\" not in text:
        return text
    return "".join(map(_visible_char, text))


def visible_text(data: bytes) -> str:
    """Decoded text with whitespace and control characters made visible; bad bytes as \\xE2."""
    out: list[str] = []
    pos = 0
    while pos < len(data):
        try:
            out.append(_visible(data[pos:].decode("utf-8")))
            break
        except UnicodeDecodeError as err:
            out.append(_visible(data[pos : pos + err.start].decode("utf-8")))
            out.append("".join(f"\\x{b:02X}" for b in data[pos + err.start : pos + err.end]))
            pos += err.end
    return "".join(out)


def hex_bytes(data: bytes) -> str:
    return data.hex(" ").upper()


def hex_head(data: bytes, limit: int = 32) -> str:
    """Bytes as hex pairs for a one-line message, at most `limit` of them (a tiktoken
    token can be megabytes)."""
    if len(data) <= limit:
        return hex_bytes(data)
    return f"{hex_bytes(data[:limit])} … ({len(data)} bytes)"


def code_points(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


def code_span(text: str) -> str:
    """A markdown code span that survives backticks and edge spaces inside the text."""
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") or text.startswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
