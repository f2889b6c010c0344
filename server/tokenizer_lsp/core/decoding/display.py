"""Rendering decoded bytes for people: visible whitespace, hex, code points."""

from __future__ import annotations

_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}


def escape_char(ch: str, visible_space: bool = False, backtick: bool = False) -> str:
    """One character as messages, hovers and hints show it: \\n, \\t, \\r, a doubled
    backslash, and a \\u escape (\\u2028, \\U0001F600) for every other control, format,
    separator, surrogate and unassigned character (bidi overrides reorder a line, U+2028
    breaks it); \\x is kept for bytes that are not UTF-8. A space is ␣ where whitespace
    must be seen (decoded text), and a backtick is escaped inside a `quoted` token."""
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ch == " ":
        return "\u2423" if visible_space else " "
    if ch == "`" and backtick:
        return "\\`"
    if ch.isprintable():
        return ch
    cp = ord(ch)
    return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"


def escape(text: str, visible_space: bool = False, backtick: bool = False) -> str:
    """escape_char over a text, with a fast path for plain ASCII."""
    if (
        text.isascii()
        and text.isprintable()
        and "\\" not in text
        and not (visible_space and " " in text)
        and not (backtick and "`" in text)
    ):
        return text
    return "".join(escape_char(ch, visible_space, backtick) for ch in text)


def escaped(text: str) -> str:
    """A stored form (a JSON string, a merges line) on one line."""
    return escape(text)


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


def _visible(text: str) -> str:
    return escape(text, visible_space=True)


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


def quoted(token: str) -> str:
    """A token quoted for a message: one line, its invisible characters escaped.

    A message is one line of `check` output and of an editor's problem list: controls
    (\\n, \\t, U+0085...), line and paragraph separators (U+2028, U+2029), format
    characters (bidi overrides that reorder the line, U+FEFF), lone surrogates and other
    blanks than the space are written as escapes; a backslash and a backtick (which
    closes the quote) are escaped too."""
    long = len(token) >= 80
    shown = token[:77] if long else token
    shown = escape(shown, backtick=True)
    return f"`{shown}...`" if long else f"`{shown}`"
