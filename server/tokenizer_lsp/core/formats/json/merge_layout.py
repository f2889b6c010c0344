"""Positions of many merge parts from their ranks, when the merges are laid out regularly.

HF writes merges in a few fixed layouts: pretty-printed pairs (`[`, part, part, `],` on
four lines per merge: gemma3, qwen3) or strings (one `"a b",` line per merge: llama3). When
the layout is verified for a whole merges array (once, with the navigation lookups), a
part's line follows from its rank and its column from the indentation and the widths of
literals, so the 40k parts that reference `▁` need no scan of the text each. Anything the
verification cannot vouch for (another layout, one line, a lone CR, a literal spelled
unlike the others...) gives None here, and the callers take the general path
(LineIndex.span_positions over the parts' spans), which tests compare this with.

Why a literal's width can come from its token: in JSON each character has one shortest
spelling (raw, `\\"`, `\\n`..., or `\\u00XX` for other controls, whose hex case does not
change a width), so a literal as long as the token's shortest one is spelled that way, and
has that one's width in every encoding.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from operator import add, and_, mul, rshift, sub

from ...text.lines import LineIndex, column_of, columns_of_many

_WINDOW = 1 << 15  # offsets per C-level pass: other threads get the interpreter between them
_HEAD = 512  # bytes before the first literal searched for its line's layout
_PAIR_HEAD = re.compile(rb"(\r?\n)([ \t]*)\[(\r?\n)([ \t]*)\Z")
_STRING_HEAD = re.compile(rb"(\r?\n)([ \t]*)\Z")


@dataclass(frozen=True)
class MergeLayout:
    """A verified layout of the merges array of one text (its size and first literal say
    which): each literal starts its own line after `indent` characters; merge r's first
    literal is on the first literal's line + lines_per_merge * r, a pair's second on the
    next line. `escaped`: the parts (as keys `4 * rank + part`) whose literal has a
    backslash, the only ones that may be spelled longer than their token's shortest
    literal, ascending (None: too many to keep; the spans' lengths tell then)."""

    pairs: bool
    data_size: int
    first_start: int
    literal_count: int
    indent: int
    lines_per_merge: int
    escaped: array | None = field(repr=False)

    def fits(self, data: bytes, starts: array) -> bool:
        return (
            len(data) == self.data_size
            and len(starts) == self.literal_count
            and bool(starts)
            and starts[0] == self.first_start
        )


def detect_layout(data: bytes, starts: array, ends: array, pairs: bool) -> MergeLayout | None:
    """The layout of merge literals at `starts`/`ends` (2 per merge for pairs), if regular."""
    n = len(starts)
    if not n or len(ends) != n or (pairs and n % 2):
        return None
    s0 = starts[0]
    head = (_PAIR_HEAD if pairs else _STRING_HEAD).search(data, max(0, s0 - _HEAD), s0)
    if head is None:
        return None
    if pairs:
        nl, outer, nl2, indent = head.groups()
        if nl2 != nl:
            return None
        # first parts after `[` on a line of its own, second parts after `,` ending the
        # first's line, each pair closed by `]` on the line after its second part
        checks = (
            (head.group(0), starts[0::2], True),
            (b"," + nl + indent, starts[1::2], True),
            (nl + outer + b"]", ends[1::2], False),
        )
        breaks = 4 * (n // 2) - 3  # 1 inside a pair, 3 between pairs: the fewest those allow
    else:
        nl, indent = head.groups()
        checks = ((b"," + nl + indent, starts[1:], True),)
        breaks = n - 1
    if not all(_around(data, text, offsets, before) for text, offsets, before in checks):
        return None
    # every gap holds at least the line breaks above; exactly that many in all: no more
    # anywhere, and each line break is one (no CR but in CRLF when the layout has CRLF)
    lo, hi = s0, starts[-1]
    crs = data.count(b"\r", lo, hi)
    if (
        data.count(b"\n", lo, hi) != breaks
        or crs != (breaks if nl == b"\r\n" else 0)
        or data.count(b"\r\n", lo, hi) != crs
    ):
        return None
    escaped = _escaped(data, starts, ends) if pairs else None  # strings: their bytes tell
    return MergeLayout(pairs, len(data), s0, n, len(indent), 4 if pairs else 1, escaped)


def _escaped(data: bytes, starts: array, ends: array) -> array | None:
    """Keys of the pair parts whose literal holds a backslash (a few thousand in gemma3)."""
    out: list[int] = []
    limit = max(1 << 12, len(starts) >> 5)
    hi = ends[-1]
    i = data.find(b"\\", starts[0], hi)
    while i >= 0 and len(out) < limit:
        k = bisect_right(starts, i) - 1  # a backslash is inside a literal (valid JSON)
        out.append(k)
        i = data.find(b"\\", ends[k], hi)
    # literal 2r + p is part p of merge r
    return array("I", map(add, out, map(and_, out, repeat(-2)))) if i < 0 else None


def _around(data: bytes, text: bytes, offsets: array, before: bool) -> bool:
    """Whether `text` ends (before) or starts (not before) at every offset."""
    shift = len(text) if before else 0
    for lo in range(0, len(offsets), _WINDOW):
        at = map(sub, offsets[lo : lo + _WINDOW], repeat(shift))
        if not all(map(data.startswith, repeat(text), at)):
            return False
    return True


_ESCAPES = {c: f"\\u{c:04x}" for c in range(0x20)}
_ESCAPES.update({0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})


def shortest_literal(token: str) -> bytes | None:
    """The token's shortest JSON spelling, quotes included (None: a lone surrogate, which
    has no UTF-8 form)."""
    try:
        return ('"' + token.translate(_ESCAPES) + '"').encode("utf-8")
    except UnicodeEncodeError:
        return None


@dataclass(frozen=True)
class RangeRun:
    """References that each lie within one line, in file order: the i-th on lines[i], from
    column `start` (or start[i]) to `end` (or end[i]); its byte span is span_of(first + i)
    (asked for a few, to place other references among them)."""

    lines: list[int]
    start: int | list[int]
    end: int | list[int]
    span_of: Callable[[int], tuple[int, int]]
    first: int = 0

    def __len__(self) -> int:
        return len(self.lines)

    def span(self, i: int) -> tuple[int, int]:
        return self.span_of(self.first + i)

    def part(self, lo: int, hi: int) -> RangeRun:
        cut = lambda v: v if isinstance(v, int) else v[lo:hi]
        return RangeRun(self.lines[lo:hi], cut(self.start), cut(self.end), self.span_of, self.first + lo)


def part_ranges(
    data: bytes,
    lines: LineIndex,
    layout: MergeLayout,
    literals: tuple[array, array],
    keys: array,
    token: str,
    encoding: str,
) -> RangeRun | None:
    """Ranges of the merge parts `keys` (4 * rank + part, ascending) that are the token,
    as the general path would give them, or None when the layout cannot tell them."""
    starts, ends = literals
    literal = shortest_literal(token)
    if literal is None or not layout.fits(data, starts):
        return None
    first_line = lines.line_of(layout.first_start)
    if layout.pairs:
        return _pair_parts(data, layout, starts, ends, keys, literal, first_line, encoding)
    return _string_parts(data, layout, starts, ends, keys, literal, first_line, encoding)


def _pair_parts(data, layout, starts, ends, keys, literal, first_line, encoding) -> RangeRun:
    """A part is its literal, quotes included: part p of merge r on line 4r + p."""
    lines = list(map(add, keys, repeat(first_line)))
    indent = layout.indent
    literal_of = lambda u: (u >> 1) + (u & 1)  # 4r + p -> 2r + p
    span_of = lambda i: (starts[literal_of(keys[i])], ends[literal_of(keys[i])])
    if b"\\" not in literal and layout.escaped is not None:
        # a literal without a backslash is spelled the shortest way: raw characters
        small, large = sorted((layout.escaped, keys), key=len)
        shortest = set(small).isdisjoint(large)
    else:  # no spelling is shorter than the shortest: the lengths add up only if all are that
        k = list(map(literal_of, keys))
        shortest = sum(map(ends.__getitem__, k)) - sum(map(starts.__getitem__, k)) == len(literal) * len(k)
    if shortest:
        return RangeRun(lines, indent, indent + column_of(literal, encoding), span_of)
    # some spelled otherwise (`\u2581` for `▁`): each its own width
    k = list(map(literal_of, keys))
    s, e = map(starts.__getitem__, k), map(ends.__getitem__, k)
    widths = columns_of_many(map(data.__getitem__, map(slice, s, e)), encoding)
    return RangeRun(lines, indent, list(map(add, repeat(indent), widths)), span_of)


def _string_parts(data, layout, starts, ends, keys, literal, first_line, encoding) -> RangeRun | None:
    """`"a b"`: a first part runs from after the quote to the first space, a second from
    after it to before the closing quote (json_resolve._string_merge_part)."""
    m = len(literal) - 2  # bytes of the part spelled shortest
    ranks = list(map(rshift, keys, repeat(2)))
    parts = list(map(and_, keys, repeat(3)))
    s = list(map(starts.__getitem__, ranks))
    e = list(map(ends.__getitem__, ranks))
    after_quote = list(map(add, s, repeat(1)))
    # a first part at s + 1, a second at e - 1 - m (were it spelled shortest)
    begin = list(map(add, after_quote, map(mul, parts, map(sub, map(sub, e, s), repeat(m + 2)))))
    seps = list(map(sub, map(add, begin, repeat(m)), map(mul, parts, repeat(m + 1))))
    # a raw space there is the literal's first one, and the part is spelled shortest: a
    # string merge is indexed only with one space in it (so none in either part), and a
    # longer spelling would put a byte of the part there (an escaped separator, its digit)
    if bytes(map(data.__getitem__, seps)).count(b" ") != len(keys):
        return None
    # the first part's columns before a second part
    head_end = list(map(add, after_quote, map(mul, parts, map(sub, seps, after_quote))))
    head = columns_of_many(map(data.__getitem__, map(slice, after_quote, head_end)), encoding)
    col = list(map(add, map(add, repeat(layout.indent + 1), head), parts))
    width = column_of(literal[1:-1], encoding)
    lines = list(map(add, repeat(first_line), map(mul, ranks, repeat(layout.lines_per_merge))))
    return RangeRun(lines, col, list(map(add, col, repeat(width))), lambda i: (begin[i], begin[i] + m))
