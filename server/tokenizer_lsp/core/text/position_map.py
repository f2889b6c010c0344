"""Positions of the current text <-> positions of an older indexed version.

While the user types, hovers and hints answer from the last index that parsed, which may
be several edits behind. The edits received since that version are kept in LSP terms
(range replaced, text inserted), so a position can be carried back to the indexed text and
an answer's range forward to the current one, without the texts themselves. A position
inside text that an edit inserted has no counterpart: the answer there is "nothing".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Pos = tuple[int, int]  # (line, character in the negotiated encoding)
_EOL = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Span:
    """One applied edit: [start, old_end) of the old text became [start, new_end)."""

    start: Pos
    old_end: Pos
    new_end: Pos


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def span_of(start: Pos, end: Pos, text: str, encoding: str) -> Span:
    if end < start:
        start, end = end, start
    parts = _EOL.split(text)
    if len(parts) == 1:
        new_end = (start[0], start[1] + units(text, encoding))
    else:
        new_end = (start[0] + len(parts) - 1, units(parts[-1], encoding))
    return Span(start, end, new_end)


def merged(first: Span, then: Span) -> Span | None:
    """One span for `first` then `then` (in the text after `first`), when `then` stays on
    the line where `first`'s new text ends, inside that text or at its edges: what typing
    and backspacing at one place makes. A burst of keystrokes is then one span to map
    through, not one per keystroke. None when they do not combine so simply."""
    line = first.new_end[0]
    if not (then.start[0] == then.old_end[0] == then.new_end[0] == line):
        return None
    lo = first.start if first.start[0] == line else (line, 0)
    if then.start < lo or then.old_end > first.new_end:
        return None
    grown = (then.new_end[1] - then.start[1]) - (then.old_end[1] - then.start[1])
    return Span(first.start, first.old_end, (line, first.new_end[1] + grown))


def _shift(p: Pos, frm: Pos, to: Pos) -> Pos:
    if p[0] == frm[0]:
        return (to[0], to[1] + p[1] - frm[1])
    return (p[0] + to[0] - frm[0], p[1])


def _map(p: Pos, a: Pos, b: Pos, b2: Pos, bias: str | None) -> Pos | None:
    """Through one edit that turned [a, b) into [a, b2): p in the [a, b) side's text."""
    if p < a or (p == a and bias == "end"):
        return p
    if p >= b and not (p == b == a and bias == "end"):
        return _shift(p, b, b2)
    if bias == "start":
        return a
    if bias == "end":
        return b2
    return None


def to_old(p: Pos, spans: list[Span], bias: str | None = None) -> Pos | None:
    """A position of the current text in the text before `spans` (applied in order)."""
    for s in reversed(spans):
        q = _map(p, s.start, s.new_end, s.old_end, bias)
        if q is None:
            return None
        p = q
    return p


def to_new(p: Pos, spans: list[Span], bias: str | None = None) -> Pos | None:
    """A position of the text before `spans` in the current text."""
    for s in spans:
        q = _map(p, s.start, s.old_end, s.new_end, bias)
        if q is None:
            return None
        p = q
    return p


def range_to_new(a: Pos, b: Pos, spans: list[Span]) -> tuple[Pos, Pos] | None:
    """An old range [a, b) in the current text; None when an edit since touched its inside
    (its content is then not what the index knows)."""
    for s in spans:
        if s.old_end <= a:  # wholly before (an insertion right at a pushes the range along)
            a, b = _shift(a, s.old_end, s.new_end), _shift(b, s.old_end, s.new_end)
        elif s.start >= b:  # wholly after
            continue
        else:
            return None
    return a, b


_BIG = 1 << 40


def _back(p: Pos, spans: list[Span]) -> Pos | None:
    """A position of the current text carried back; None inside text an edit inserted."""
    for s in reversed(spans):
        if p >= s.new_end:
            p = _shift(p, s.new_end, s.old_end)
        elif p >= s.start:
            return None
    return p


def applied_span(start: Pos, end: Pos, text: str, encoding: str, spans: list[Span], lines) -> Span | None:
    """The span of a change as LSP applies it to the current text (a character past a
    line's end means the line's end, a line past the last one the document's end), found
    from an older text's line index (`lines`) and the edits made since (`spans`); None
    when that cannot be told without the text itself (the change joins or splits a CR LF
    pair, or lands on a line an edit since inserted whole)."""
    if end < start:
        start, end = end, start
    if "\r" in text or (lines.has_lone_cr and (start[1] == 0 or text.startswith("\n"))):
        return None
    doc_end = to_new(lines.position(len(lines.data), encoding), spans)
    if doc_end is None:
        return None

    def clamp(p: Pos) -> Pos | None:
        if p >= doc_end or p[0] > doc_end[0]:
            return doc_end
        old = _back((p[0], _BIG), spans)
        if old is None or old[0] >= lines.line_count:
            return None
        old_end = lines.position(lines.line_end(old[0]), encoding)
        now = to_new(old_end, spans)
        if now is None or now[0] != p[0]:
            return None
        return (p[0], min(p[1], now[1]))

    a, b = clamp(start), clamp(end)
    if a is None or b is None:
        return None
    return span_of(a, b, text, encoding)
