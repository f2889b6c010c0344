"""Where things are in JSON source text, found without a full scan.

orjson gives values but no positions. Dicts keep source order, so the k-th token of
a vocab is the k-th key in the source: finding the literals of the few tokens a
finding or a hover needs is a forward search whose total cost is one pass over the
region, done in C by bytes.find. Unusual escaping falls back to decoding literals.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate

import orjson

STRING = rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
_STRING_RE = re.compile(STRING)
_SPLIT_RE = re.compile(b"(" + STRING + b")")
_WS = b" \t\r\n"


_AFTER_KEY = re.compile(rb"\s*:\s*([\[{])")


def value_start(data: bytes, key: str, start: int = 0, end: int | None = None) -> int | None:
    """Offset of the `{` or `[` that opens the value of the first `"key":` at or after start."""
    needle = b'"' + key.encode() + b'"'
    stop = len(data) if end is None else end
    i = data.find(needle, start, stop)
    while i >= 0:
        m = _AFTER_KEY.match(data, i + len(needle))
        if m and not escaped(data, i):
            return m.start(1)
        i = data.find(needle, i + 1, stop)
    return None


_LAST_VALUE_TAIL = re.compile(rb"\]\s*\}\s*\}\s*\Z")


def trailing_array_end(data: bytes, start: int) -> int | None:
    """End (exclusive) of the array opening at `start`, when it is the last value of an
    object that is itself the root's last value (as `model.merges` is in every
    tokenizer.json the HF library writes). Callers verify by parsing both sides."""
    m = _LAST_VALUE_TAIL.search(data, max(start, len(data) - 4096))
    return m.start() + 1 if m and data[start : start + 1] == b"[" else None


_PAIR_BOUNDARY = re.compile(rb"\]\s*,\s*\[")
_STRING_BOUNDARY = re.compile(rb'"\s*,\s*"')


def element_boundary(data: bytes, at: int, end: int, pairs: bool) -> tuple[int, int] | None:
    """(end of one element, start of the next) of an array of pairs or of strings, at or
    after `at`. Not checked against strings' contents: callers verify by parsing."""
    m = (_PAIR_BOUNDARY if pairs else _STRING_BOUNDARY).search(data, at, end)
    while m is not None and escaped(data, m.start()):
        m = (_PAIR_BOUNDARY if pairs else _STRING_BOUNDARY).search(data, m.start() + 1, end)
    return (m.start() + 1, m.end() - 1) if m else None


def literal_forms(token: str, ascii_file: bool) -> list[bytes]:
    raw = orjson.dumps(token)
    if ascii_file:
        esc = json.dumps(token).encode()
        return [esc] if esc == raw else [esc, raw]
    return [raw]


def escaped(data: bytes, i: int) -> bool:
    n = 0
    while i > 0 and data[i - 1] == 0x5C:  # backslash
        n += 1
        i -= 1
    return n % 2 == 1


def next_char(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _WS:
        i += 1
    return data[i] if i < n else -1


class Locator:
    """Finds literals of given tokens in a region, moving forward only."""

    def __init__(self, data: bytes, start: int) -> None:
        self.data = data
        self.origin = start
        self.pos = start
        self.ascii_file = data.isascii()

    def find(self, token: str, followed_by: bytes) -> tuple[int, int] | None:
        """Next literal equal to token whose next non-space character is in followed_by.

        Requests usually come in source order; one out of order costs a second search
        from the start of the region.
        """
        forms = literal_forms(token, self.ascii_file)
        span = self._fast_find(forms, followed_by, self.pos, len(self.data))
        if span is None and self.pos > self.origin:
            span = self._fast_find(forms, followed_by, self.origin, self.pos)
        if span is None:
            self.pos = self.origin
            span = self._slow_find(token, followed_by)
        if span is not None:
            self.pos = span[1]
        return span

    def _fast_find(self, forms: list[bytes], followed_by: bytes, start: int, stop: int) -> tuple[int, int] | None:
        data = self.data
        for form in forms:
            i = data.find(form, start, stop + len(form))
            while i >= 0:
                end = i + len(form)
                if not escaped(data, i) and next_char(data, end) in followed_by:
                    return i, end
                i = data.find(form, i + 1, stop + len(form))
        return None

    def _slow_find(self, token: str, followed_by: bytes) -> tuple[int, int] | None:
        data = self.data
        for m in _STRING_RE.finditer(data, self.pos):
            if next_char(data, m.end()) not in followed_by:
                continue
            try:
                value = orjson.loads(m.group())
            except orjson.JSONDecodeError:
                continue
            if value == token:
                self.pos = m.end()
                return m.span()
        return None

    def find_pair(self, a: str, b: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Next `["a", "b"]` pair: the spans of its two literals."""
        tried = 0
        while tried < 1_000_000:
            tried += 1
            first = self.find(a, b",")
            if first is None:
                return None
            m = _STRING_RE.match(self.data, _skip(self.data, _skip(self.data, first[1]) + 1))
            if m is not None:
                try:
                    if orjson.loads(m.group()) == b:
                        self.pos = m.end()
                        return first, m.span()
                except orjson.JSONDecodeError:
                    pass
        return None


def _skip(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _WS:
        i += 1
    return i


_KEY_END = re.compile(rb'":[ \t]*-?[0-9]')


def key_count_estimate(data: bytes, start: int, end: int) -> int:
    """Keys with a number value in a region, counted as `": <digit>` (C-level passes).

    A token holding `": 1` (escaped as `\\": 1`) is counted too; an over-count only
    sends the caller to the exact, slower walk.
    """
    total = 0
    for lo, hi in line_windows(data, start, end):
        total += len(_KEY_END.findall(data, lo, hi))
    return total


def count_in_windows(data: bytes, needle: bytes, start: int, end: int, size: int = 1 << 20) -> int:
    """data.count(needle, start, end) in C calls of about a millisecond each."""
    total = 0
    for lo in range(start, end, size):
        # occurrences that start in [lo, lo + size), including one cut by the window's end
        total += data.count(needle, lo, min(lo + size + len(needle) - 1, end))
    return total


def line_windows(data: bytes, start: int, end: int, size: int = 1 << 18):
    """[lo, hi) pieces of a region that starts outside any string, each about `size` long,
    so that a C-level pass over each lets other threads have the interpreter between.
    A piece ends after a line break (JSON strings never hold one) or, on a line longer than
    `size` (a minified file is one line), after a comma outside strings."""
    lo = start
    while lo < end:
        target = lo + size
        if target >= end:
            yield lo, end
            return
        nl = data.find(b"\n", target, min(end, target + size))
        hi = nl + 1 if nl >= 0 else _after_last_comma(data, lo, target)
        if hi is None:  # no comma outside strings in the piece: up to the next line break
            nl = data.find(b"\n", target, end)
            hi = end if nl < 0 else nl + 1
        yield lo, hi
        lo = hi


def _after_last_comma(data: bytes, lo: int, hi: int) -> int | None:
    """The offset after the last comma outside strings in data[lo:hi] (lo outside any)."""
    c = data.rfind(b",", lo, hi)
    # quick: with no escaped backslash in the way, a quote is escaped exactly when a
    # backslash precedes it, and a comma is outside strings after an even number of quotes
    for _ in range(8):
        if c < 0 or data.find(b"\\\\", lo, c) >= 0:
            break
        if (data.count(b'"', lo, c) - data.count(b'\\"', lo, c)) % 2 == 0:
            return c + 1
        c = data.rfind(b",", lo, c)
    parts = _SPLIT_RE.split(data[lo:hi])
    # even parts lie between strings; in the last, a quote may open one that hi cuts
    parts[-1] = parts[-1].split(b'"', 1)[0]
    ends = list(accumulate(map(len, parts), initial=lo))
    for k in range(len(parts) - 1, -1, -2):
        c = parts[k].rfind(b",")
        if c >= 0:
            return ends[k] + c + 1
    return None


_ENTRY = re.compile(rb"\s*(" + STRING + rb")\s*:\s*(?:-?[0-9][0-9.eE+-]*|null|true|false|" + STRING + rb")\s*([,}])")


def object_key_spans(data: bytes, brace: int) -> list[tuple[int, int]]:
    """Exact spans of the keys of the flat object opening at `brace` (slow: one match per key)."""
    out: list[tuple[int, int]] = []
    pos = brace + 1
    match = _ENTRY.match
    while True:
        m = match(data, pos)
        if m is None:
            break
        out.append(m.span(1))
        pos = m.end()
        if m.group(2) == b"}":
            break
    return out


_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},]|[^\s\[\]{},"]+')


def array_element_spans(data: bytes, start: int, wanted: set[int]) -> dict[int, tuple[int, int]]:
    """Spans of the elements of the JSON array opening at `start` whose indices are in
    `wanted` (any shape: for malformed merges, which the literal tables do not cover).
    One regex pass up to the last wanted element."""
    out: dict[int, tuple[int, int]] = {}
    if not wanted:
        return out
    last = max(wanted)
    depth, index, first, end = 0, 0, -1, -1
    for m in _JSON_TOKEN.finditer(data, start):
        c = data[m.start()]
        if c in b"[{":
            if depth == 1 and first < 0:
                first = m.start()
            depth += 1
        elif c in b"]}":
            depth -= 1
            if depth == 1:
                end = m.end()
            elif depth == 0:
                if first >= 0 and index in wanted:
                    out[index] = (first, end)
                break
        elif c == 44:  # a comma
            if depth == 1:
                if first >= 0 and index in wanted:
                    out[index] = (first, end)
                index, first = index + 1, -1
                if index > last:
                    break
        elif depth == 1:
            if first < 0:
                first = m.start()
            end = m.end()
    return out


_COLON = re.compile(rb"\s*:\s*")
_SCALAR = re.compile(rb"[^\s\[\]{},]+")


def value_span(data: bytes, key_end: int) -> tuple[int, int] | None:
    """Span of the value after a key literal ending at `key_end` (any shape: a number,
    a string, an array or object with what it holds)."""
    m = _COLON.match(data, key_end)
    if m is None:
        return None
    i = m.end()
    c = data[i : i + 1]
    if c == b'"':
        s = _STRING_RE.match(data, i)
        return s.span() if s else None
    if c in (b"[", b"{"):
        depth = 0
        for t in _JSON_TOKEN.finditer(data, i):
            ch = data[t.start()]
            if ch in b"[{":
                depth += 1
            elif ch in b"]}":
                depth -= 1
                if depth == 0:
                    return i, t.end()
        return None
    s = _SCALAR.match(data, i)
    return s.span() if s else None
