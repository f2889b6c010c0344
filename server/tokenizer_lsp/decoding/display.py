"""Rendering decoded bytes for people: visible whitespace, hex, code points."""

from __future__ import annotations

import unicodedata

_VISIBLE = {" ": "\u2423", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _visible_char(ch: str) -> str:
    if ch in _VISIBLE:
        return _VISIBLE[ch]
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cf", "Zl", "Zp", "Zs", "Cs", "Co", "Cn"):
        cp = ord(ch)
        return f"\\x{cp:02X}" if cp < 0x80 else (f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}")
    return ch


def _visible(text: str) -> str:
    if text.isascii() and text.isprintable() and " " not in text:
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


def code_points(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


def code_span(text: str) -> str:
    """A markdown code span that survives backticks and edge spaces inside the text."""
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") or text.startswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
