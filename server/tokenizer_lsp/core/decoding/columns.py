"""Text in fixed terminal columns (`decode`'s and `encode`'s tables), measured as a
terminal draws it rather than by code points: a CJK ideograph or a fullwidth form
(East Asian width W or F) takes two columns, a combining mark or a zero-width format
character none. Padding by `len` drifts a row by one column per such character.

No wcwidth dependency: unicodedata has the two properties that matter for tokens.
"""

from __future__ import annotations

import unicodedata
from functools import cache

ELLIPSIS = "\u2026"
_ZERO = frozenset(("Mn", "Me", "Cf"))  # combining marks, zero-width joiners and marks


@cache  # a vocabulary's rows draw on a few thousand characters: each looked up once
def char_width(ch: str) -> int:
    if ch == "\u00ad":  # SOFT HYPHEN is Cf but drawn as a hyphen
        return 1
    if unicodedata.category(ch) in _ZERO:
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(text: str) -> int:
    """Columns `text` takes in a terminal."""
    if text.isascii():
        return len(text)
    return sum(map(char_width, text))


def cell(text: str, columns: int) -> tuple[str, bool]:
    """(`text` padded with spaces to exactly `columns` columns, whether it was cut). Text
    wider than that is cut to what fits before a closing `…` (a double-width character
    that would straddle the edge goes too, and a space keeps the width)."""
    if text.isascii():  # most rows: a column per character
        if len(text) <= columns:
            return text + " " * (columns - len(text)), False
        return text[: columns - 1] + ELLIPSIS, True
    w = sum(map(char_width, text))
    if w <= columns:
        return text + " " * (columns - w), False
    room = columns - 1
    used = 0
    end = 0
    for k, ch in enumerate(text):
        cw = char_width(ch)
        if used + cw > room:
            break
        used += cw
        end = k + 1
    return text[:end] + ELLIPSIS + " " * (room - used), True
