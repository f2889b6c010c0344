"""The unreachable-token message: which token the engine never produces and what its text
encodes to instead. Written here, with the checks, so every format's unreachable check
(SentencePiece's in core/formats/sentencepiece/checks.py, the JSON formats' in
core/behaviour/reachability/findings.py) words it the same way."""

from __future__ import annotations

import unicodedata

from ..decoding.display import escape
from ..decoding.display import quoted as _q

_MAX_PIECES_SHOWN = 12


def message(entry: dict, token: str | None = None, rank_word: str = "id") -> str:
    """ "`ÃªÌģ` (ê + U+0301, id 123) is never produced: its text encodes to → `ế` (26068);
    the normalizer rewrites it (to `ế`)"."""
    token = entry["token"] if token is None else token
    pieces = entry["pieces"]
    shown = " + ".join(_piece(p) for p in pieces[:_MAX_PIECES_SHOWN])
    if len(pieces) > _MAX_PIECES_SHOWN:
        shown += f" + … ({len(pieces)} pieces)"
    reason = entry.get("reason")
    return (
        _naming(token, entry.get("text") or "", rank_word, entry["id"])
        + f" is never produced: its text encodes to → {shown or 'nothing'}"
        + (f"; {reason}" if reason else "")
    )


def _naming(token: str, text: str, rank_word: str, tid: int) -> str:
    spelled = _spelled(text)
    return f"{_q(token)} ({spelled}, {rank_word} {tid})" if spelled != token else f"{_q(token)} ({rank_word} {tid})"


def _piece(p: dict) -> str:
    text = p.get("text")
    if text is None:  # bytes that are not UTF-8 alone: the id says it
        return f"id {p['id']}"
    return f"`{escape(text, visible_space=True, backtick=True)}` ({p['id']})"


def _spelled(text: str) -> str:
    """Decoded text for a message: whitespace visible; in text that NFC would rewrite,
    combining marks spelled out (`ê + U+0301`): they are why it looks like another token."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return escape(text, visible_space=True)
    out: list[str] = []
    after_mark = False
    for c in text:
        mark = bool(unicodedata.combining(c))
        if mark:
            out.append(f" + U+{ord(c):04X}")
        else:
            out.append((" + " if after_mark else "") + escape(c, visible_space=True))
        after_mark = mark
    return "".join(out).removeprefix(" + ")
