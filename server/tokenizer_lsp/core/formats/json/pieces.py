"""Cutting intact pieces out of broken JSON by their brackets, each parsed by orjson on
its own slice so every position stays that of the file."""

from __future__ import annotations

import re
from bisect import bisect_right

import orjson

from .layout import (
    STRING,
    element_boundary,
    escaped,
    line_windows,
)

_WS = b" \t\r\n"
_STRINGS = re.compile(STRING)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_PAIRS = re.compile(rb"\[\]|\{\}")
_SCAN = re.compile(STRING + rb'|[\[\]{}"]')
_VALUE_END = frozenset(b'0123456789"]}el')  # last character of a complete JSON value
_AFTER_KEY = re.compile(rb"\s*:\s*")
_CONFIG_SCALAR = re.compile(rb"null|true|false|-?[0-9][0-9.eE+-]*|" + STRING)
_PREFIX_TRIES = 24  # cut points tried before giving a container up
_PIECE = 1 << 16  # bytes parsed per orjson call in a large container
_OBJECT_BOUNDARY = re.compile(rb"\}\s*,\s*\{")


def match_close(data: bytes, start: int, stop: int | None = None) -> int | None:
    """End (exclusive) of the object or array opening at `start` (strings respected),
    if it closes before `stop`; None otherwise, or when a quote is left unmatched.
    C-level passes over windows; only the window where it closes is walked token by token."""
    stop = len(data) if stop is None else min(stop, len(data))
    if start >= stop or data[start] not in b"[{":
        return None
    depth = 1
    for lo, hi in line_windows(data, start + 1, stop, 1 << 18):
        gaps = _STRINGS.sub(b"", data[lo:hi])
        if b'"' in gaps:  # a string this window cuts, or one never closed
            return _walk(data, lo, stop, depth)
        brackets = _NOT_BRACKET.sub(b"", gaps)
        if not brackets:
            continue
        while True:  # drop balanced pairs: what is left is closers, then openers
            reduced = _PAIRS.sub(b"", brackets)
            if reduced == brackets:
                break
            brackets = reduced
        closers = len(brackets) - len(brackets.lstrip(b"]}"))
        if closers >= depth:
            return _walk(data, lo, hi, depth)
        opened = brackets.count(b"[") + brackets.count(b"{")
        depth += opened - (len(brackets) - opened)
    return None


def _walk(data: bytes, lo: int, hi: int, depth: int) -> int | None:
    for m in _SCAN.finditer(data, lo, hi):
        c = data[m.start()]
        if c == 0x22:  # a string, or a lone quote (unterminated string)
            if m.end() - m.start() == 1:
                return None
            continue
        depth += 1 if c in b"[{" else -1
        if depth == 0:
            return m.end()
    return None


def _whole(data: bytes, start: int, end: int, closer: bytes = b""):
    """orjson.loads(data[start:end] + closer), or None."""
    view = memoryview(data)[start:end]
    try:
        return orjson.loads(b"".join((view, closer)) if closer else view)
    except orjson.JSONDecodeError:
        return None


def _pieces(data: bytes, start: int, end: int):
    """[lo, hi) runs of whole elements (if the text is what it seems: callers parse them)
    covering data[start + 1:end], the content of the object or array opening at start:
    cut after line breaks or commas outside strings in an object, between elements in
    an array of arrays or of strings."""
    if data[start] == 0x7B:
        yield from line_windows(data, start + 1, end, _PIECE)
        return
    first = _skip(data, start + 1, end)
    lead = data[first] if first < end else -1
    lo = start + 1
    while lo < end:
        cut = None
        if lo + _PIECE < end and lead in b'["':
            cut = element_boundary(data, lo + _PIECE, end, lead == 0x5B)
        elif lo + _PIECE < end and lead == 0x7B:  # objects (added tokens)
            m = _OBJECT_BOUNDARY.search(data, lo + _PIECE, end)
            cut = (m.start() + 1, m.end() - 1) if m else None
        if cut is None:
            yield lo, end
            return
        yield lo, cut[0]
        lo = cut[1]


def _piece(data: bytes, lo: int, hi: int, opener: int):
    """One run of elements parsed as a container of its own, or None."""
    body = data[lo:hi].strip(_WS)
    if body.startswith(b","):
        body = body[1:]
    if body.endswith(b","):
        body = body[:-1]
    wrap = (b"{", b"}") if opener == 0x7B else (b"[", b"]")
    try:
        return orjson.loads(b"".join((wrap[0], body, wrap[1])))
    except orjson.JSONDecodeError:
        return None


def _loads(data: bytes, start: int, end: int, closer: bytes = b""):
    """orjson.loads(data[start:end] + closer) for an object or array (None if it does
    not parse), a piece of about 64 KB at a time: one call on a 7 MB vocab holds the
    interpreter for 100 ms, and hovers wait for it. A piece that does not parse on its
    own (a cut the pieces guessed wrong) sends it to one call on the whole."""
    content_end = end if closer else end - 1
    opener = data[start] if start < len(data) else -1
    if content_end - start < 4 * _PIECE or opener not in b"[{":
        return _whole(data, start, end, closer)
    if not closer and data[end - 1] != (0x7D if opener == 0x7B else 0x5D):
        return None
    out: dict | list = {} if opener == 0x7B else []
    for lo, hi in _pieces(data, start, content_end):
        part = _piece(data, lo, hi, opener)
        if type(part) is not type(out):
            return _whole(data, start, end, closer)
        if opener == 0x7B:
            out.update(part)
        else:
            out.extend(part)
    return out


def parse_value(data: bytes, start: int, stop: int | None = None, end_hint: int | None = None, scan: bool = True):
    """(value, end) of the complete object or array opening at `start`, or None.
    `end_hint`: a likely end to try first (one orjson call instead of a scan);
    scan=False: that guess only."""
    if end_hint is not None and end_hint > start:
        value = _loads(data, start, end_hint)
        if value is not None:
            return value, end_hint
    if not scan:
        return None
    end = match_close(data, start, stop)
    if end is None:
        return None
    value = _loads(data, start, end)
    return (value, end) if value is not None else None


def parse_prefix(data: bytes, start: int, limit: int):
    """(container, end of its last complete element) for the object or array opening at
    `start` whose text is intact up to `limit` but breaks there (or is cut): the
    elements wholly before the break, closed. None if not even an empty one.
    Cut points are tried from the break backwards: a cut inside a string or inside an
    element does not parse. Each is first tried on the run of elements it ends (a few
    KB), then the whole prefix is parsed once."""
    if start >= len(data) or data[start] not in b"[{":
        return None
    closer = b"}" if data[start] == 0x7B else b"]"
    lo = start + 1
    limit = min(limit, len(data))
    first = _skip(data, lo, limit)
    lead = data[first] if first < limit else -1  # how elements start (all alike in a vocab or merges)
    runs = [r[0] for r in _pieces(data, start, limit)] if limit - start >= 4 * _PIECE else [lo]

    def attempt(cut: int):
        run = runs[max(0, bisect_right(runs, cut - 1) - 1)]
        if run > lo and _piece(data, run, cut, data[start]) is None:
            return None  # the run it ends does not close there
        value = _loads(data, start, cut, closer)
        return (value, cut) if value is not None else None

    cut = _strip_comma(data, lo, limit)
    if limit < len(data) and cut > lo and data[limit - 1] in b' \t\r\n",' and data[cut - 1] in b'"0123456789el':
        # a break right after a scalar value that something ended (a "missing comma"
        # error): that value is complete. (At the end of the data it may be cut short.)
        found = attempt(cut)
        if found is not None:
            return found
    p = limit - 1
    tries = 0
    while p >= lo and tries < _PREFIX_TRIES:
        c = _last_delimiter(data, lo, p)
        if c < 0:
            break
        p = c - 1
        if data[c] == 0x2C:  # a comma: the element before it is complete
            q = c - 1
            while q >= lo and data[q] in _WS:
                q -= 1
            if q < lo or data[q] not in _VALUE_END:
                continue
            nxt = _skip(data, c + 1, limit)
            if nxt < limit and data[nxt] != lead:  # not between two elements
                continue
            cut = c
        else:  # a closing bracket: an element that is itself an array or object
            nxt = _skip(data, c + 1, limit)
            if nxt < limit and data[nxt] not in b"," + closer:
                continue
            cut = c + 1
        tries += 1
        found = attempt(cut)
        if found is not None:
            return found
    value = _whole(data, start, lo, closer)  # nothing complete: an empty container
    return (value, lo) if value is not None else None


def _skip(data: bytes, i: int, end: int) -> int:
    while i < end and data[i] in _WS:
        i += 1
    return i


def _last_delimiter(data: bytes, lo: int, p: int) -> int:
    """The last `,`, `]` or `}` in data[lo:p + 1], looked for in growing windows (a
    bracket that never occurs must not cost a search through megabytes each time)."""
    window = 1 << 12
    hi = p + 1
    while hi > lo:
        wlo = max(lo, hi - window)
        c = max(data.rfind(b",", wlo, hi), data.rfind(b"]", wlo, hi), data.rfind(b"}", wlo, hi))
        if c >= 0:
            return c
        hi = wlo
        window *= 4
    return -1


def _strip_comma(data: bytes, lo: int, end: int) -> int:
    while end > lo and data[end - 1] in _WS:
        end -= 1
    if end > lo and data[end - 1] == 0x2C:
        end -= 1
    return end


def _key_value(data: bytes, key: str, start: int, stop: int) -> int | None:
    """Offset of the value of the first `"key":` in data[start:stop] (any value kind)."""
    needle = b'"' + key.encode() + b'"'
    i = data.find(needle, start, stop)
    while i >= 0:
        m = _AFTER_KEY.match(data, i + len(needle))
        if m is not None and m.end() < len(data) and not escaped(data, i):
            return m.end()
        i = data.find(needle, i + 1, stop)
    return None


_TOP_KEYS = (
    b'"version"',
    b'"truncation"',
    b'"padding"',
    b'"added_tokens"',
    b'"normalizer"',
    b'"pre_tokenizer"',
    b'"post_processor"',
    b'"decoder"',
    b'"model"',
)


def _section(data: bytes, key: str, stop: int, limit: int) -> tuple[str, object]:
    """("ok", value) | ("absent", None) | ("broken", None) for a top-level section
    before the model (at `stop`); the text is intact up to `limit`."""
    at = _key_value(data, key, 0, stop)
    if at is None:
        return ("absent", None)
    bound = limit if at < limit else stop  # a value after the break is cut out whole
    if data[at] in b"[{":
        # the value likely ends at its last closing bracket before the next top-level key
        nxt = min((i for i in (data.find(k, at, stop) for k in _TOP_KEYS) if i >= 0), default=stop)
        hint = data.rfind(b"]" if data[at] == 0x5B else b"}", at, nxt) + 1
        found = parse_value(data, at, bound, hint if 0 < hint <= bound else None)
        return ("ok", found[0]) if found is not None else ("broken", None)
    m = _CONFIG_SCALAR.match(data, at)
    if m is not None and m.end() <= bound:
        try:
            return ("ok", orjson.loads(m.group()))
        except orjson.JSONDecodeError:
            pass
    return ("broken", None)
