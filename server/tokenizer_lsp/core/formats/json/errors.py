"""Where a JSON text stops parsing, said as a user can act on it: the json-syntax finding
(a cut character, a lone surrogate escape, a byte order mark, end of file...)."""

from __future__ import annotations

import re

import orjson

from ...model import Finding
from .layout import (
    value_start,
)

_BOM = b"\xef\xbb\xbf"
_SURROGATE_MESSAGES = (
    "no low surrogate in string",
    "invalid low surrogate in string",
    "invalid high surrogate in string",
)
_ESCAPE = re.compile(rb"\\u([0-9a-fA-F]{4})")


def _locate(data: bytes, err: orjson.JSONDecodeError | None, base: int = 0) -> tuple[Finding, int]:
    """(the finding, `limit`): data[:limit] is a valid start of a JSON text, i.e. the
    file is intact up to `limit` (for a byte order mark alone, past it). err: orjson's
    error on data[base:] (None: parse data to find it)."""
    if data.startswith(_BOM):
        rest, limit = _json_error(data, 3, None)
        msg = "the file starts with a UTF-8 byte order mark (BOM); JSON must not, and tokenizers cannot load it"
        return Finding("json-syntax", 0, 3, msg), (len(data) if rest is None else limit)
    found, limit = _json_error(data, base if err is not None else 0, err)
    if found is None:  # parses after all (an error met in a piece parsed apart)
        return Finding("json-syntax", 0, min(1, len(data)), "invalid JSON: model.merges is not an array"), 0
    return found, limit


def _json_error(data: bytes, base: int, err: orjson.JSONDecodeError | None) -> tuple[Finding | None, int]:
    """The first error of data[base:] as a finding in data's offsets, and where it is."""
    view = memoryview(data)[base:] if base else data
    if err is None:
        try:
            orjson.loads(view)
            return None, len(data)
        except orjson.JSONDecodeError as e:
            err = e
    msg = err.msg if isinstance(err.msg, str) else str(err)
    msg = msg.split(": line ")[0]
    if "UTF-8" in msg and "BOM" not in msg:
        bad = _first_bad_utf8(data, base)
        if bad is not None:
            start, end = bad
            # an earlier JSON error would have stopped a parser first (the end of the
            # valid part is not one)
            earlier, at = _json_error(data[:start], base, None)
            if earlier is not None and at < start:
                return earlier, at
            shown = " ".join(f"0x{b:02X}" for b in data[start:end])
            what = "byte" if end - start == 1 else "bytes"
            if end == len(data) and _cut_character(data[start:end]):
                msg = f"the file ends inside a UTF-8 character ({what} {shown}): it is cut short"
            else:
                msg = f"invalid UTF-8 {what} {shown} in the file (JSON must be UTF-8)"
            return Finding("json-syntax", start, end, msg), start
    start = base + _byte_offset(view, err)
    if start >= len(data):  # the data ends first: the error sits at the end of the file
        return Finding("json-syntax", len(data), len(data), f"invalid JSON: {msg}"), len(data)
    end = start + _char_length(data, start)
    if msg in _SURROGATE_MESSAGES:
        m = _ESCAPE.match(data, start)
        if m is not None:
            esc = m.group().decode()
            lone = "low" if 0xDC00 <= int(m.group(1), 16) <= 0xDFFF else "high"
            return Finding(
                "json-syntax",
                m.start(),
                m.end(),
                f"lone surrogate {esc} ({lone} surrogate without its pair): not valid in a "
                "tokenizer file; tokenizers cannot load it",
            ), start
    return Finding("json-syntax", start, end, f"invalid JSON: {msg}"), start


def _cut_character(tail: bytes) -> bool:
    """Whether tail is the start of a UTF-8 character that more bytes would complete."""
    try:
        tail.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.reason == "unexpected end of data"
    return False


def _first_bad_utf8(data: bytes, base: int) -> tuple[int, int] | None:
    try:
        data[base:].decode("utf-8")
    except UnicodeDecodeError as e:
        return base + e.start, base + e.end
    return None


def _error_base(err: orjson.JSONDecodeError, data: bytes) -> int | None:
    """Where the text orjson parsed when it raised err starts in data: 0 for all of it;
    model.vocab's offset when parse_deferring_merges parsed the vocab apart (the rest of
    the file parsed, so that error is the file's first); None when unknown."""
    doc = err.doc if isinstance(err.doc, str) else ""
    if not doc:
        return 0 if "UTF-8" in str(err.msg) else None  # orjson checks the encoding first
    head = doc[:64].encode("utf-8", "surrogatepass")
    if len(doc) * 4 >= len(data) and data.startswith(head):
        return 0
    model = value_start(data, "model")
    vocab = value_start(data, "vocab", model) if model is not None else None
    return vocab if vocab is not None and data.startswith(head, vocab) else None


def _byte_offset(view, err: orjson.JSONDecodeError) -> int:
    """orjson reports a character index; findings are in UTF-8 byte offsets. Found from
    the error's line and column (json counts lines at \\n only), so that only the line's
    start is counted, not the whole text before it re-encoded."""
    pos = max(0, err.pos)
    data = bytes(view) if isinstance(view, memoryview) else view
    if data.isascii():
        return min(pos, len(data))
    line, col = getattr(err, "lineno", 0) - 1, getattr(err, "colno", 0) - 1
    if line < 0 or col < 0:
        return len(data.decode("utf-8", "replace")[:pos].encode("utf-8"))
    start = _after_newlines(data, line)
    # the text is valid UTF-8 (orjson checks that first): col characters take at most
    # 4 * col bytes; a character the slice cuts lies past them
    text = data[start : start + 4 * col].decode("utf-8", "ignore")
    return min(len(data), start + len(text[:col].encode("utf-8", "surrogatepass")))


def _after_newlines(data: bytes, n: int) -> int:
    """Offset just after the n-th \\n (0 for n = 0), counted in C: chunks of 1 MB, then
    of 16 KB inside the one that holds it, then one find per line of that."""
    if n <= 0:
        return 0
    lo, hi = 0, len(data)
    for chunk in (1 << 20, 1 << 14):
        while lo < hi:
            here = data.count(b"\n", lo, min(hi, lo + chunk))
            if here >= n:
                hi = min(hi, lo + chunk)
                break
            n -= here
            lo += chunk
    i = lo - 1
    for _ in range(n):
        i = data.find(b"\n", i + 1)
        if i < 0:
            return len(data)
    return i + 1


def _char_length(data: bytes, i: int) -> int:
    """Bytes of the UTF-8 character starting at i (1 for a byte that starts none)."""
    b = data[i]
    n = 1 if b < 0xC0 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
    return max(1, min(n, len(data) - i))
