"""Broken JSON: a json-syntax finding where the parser stopped, and what can still be learnt.

A tokenizer.json that does not parse (truncated, a stray comma, a bad byte) still holds
intact pieces: the sections before the model, the model's vocabulary before the error,
or the whole model when the error lies before it. Each piece is cut out of the original
bytes by its brackets and parsed with orjson on the slice, so every position stays that
of the file. A JsonDocument built from the pieces answers hovers and inlay hints, and
only the checks that hold on partial data run:

- utf8-fragment and duplicate-token / duplicate-id within what was recovered, always;
- not-byte-level only when the file's own decoder / pre_tokenizer / normalizer say
  byte-level and the added tokens (which are exempt) are known;
- added-token-mismatch when the added tokens were recovered;
- id-gap only when the whole vocabulary and the added tokens were recovered (a part
  would make every later id a gap).
Merges are parsed for hovers and hints (with a whole vocabulary only, and up to
MERGES_BUDGET bytes of them) but not checked: against a partial vocabulary every later
token would be "missing", and against a whole one the check costs as much as indexing
the file, which happens once it parses again.

The json-syntax finding comes first, the others after it in file order: VS Code shows
only the first 1000 diagnostics of a file, and the reason the file cannot load must be
among them. Nothing here raises: any failure falls back to the json-syntax finding alone.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field

import orjson

from .. import checks
from ..decoding.bytemap import BYTE_TO_CHAR
from ..decoding.tokens import Scheme
from ..model import Finding
from .json_doc import JsonDocument
from .json_layout import (
    STRING,
    element_boundary,
    escaped,
    key_count_estimate,
    line_windows,
    object_key_spans,
    value_start,
)

_BOM = b"\xef\xbb\xbf"
_WS = b" \t\r\n"
_SURROGATE_MESSAGES = ("no low surrogate in string", "invalid low surrogate in string",
                       "invalid high surrogate in string")
_ESCAPE = re.compile(rb"\\u([0-9a-fA-F]{4})")
_STRINGS = re.compile(STRING)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_PAIRS = re.compile(rb"\[\]|\{\}")
_SCAN = re.compile(STRING + rb'|[\[\]{}"]')
_VALUE_END = frozenset(b'0123456789"]}el')  # last character of a complete JSON value
_SECTIONS = ("added_tokens", "normalizer", "pre_tokenizer", "decoder")
_AFTER_KEY = re.compile(rb"\s*:\s*")
_CONFIG_SCALAR = re.compile(rb"null|true|false|-?[0-9][0-9.eE+-]*|" + STRING)
_PREFIX_TRIES = 24  # cut points tried before giving a container up
_PIECE = 1 << 16  # bytes parsed per orjson call in a large container
_OBJECT_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
# bytes of model.merges parsed at most (for hovers and hints on them): about 0.15 s of
# orjson; qwen3's and llama3's fit, gemma3's 25 MB do not
MERGES_BUDGET = 8 << 20


@dataclass
class Salvaged:
    """What a broken JSON file still tells."""

    error: Finding  # the json-syntax finding
    findings: list[Finding] = field(default_factory=list)  # error first, then file order
    doc: JsonDocument | None = None  # built from the recovered pieces (None: nothing)
    vocab_complete: bool = False
    merges_recovered: int | None = None  # merges parsed (None: none, e.g. vocab partial)


# ---- where the parser stopped ------------------------------------------------------


def syntax_finding(data: bytes, err: orjson.JSONDecodeError | None = None) -> Finding:
    """The json-syntax finding of data (err: orjson's error on the whole of it, if known)."""
    try:
        return _locate(data, err)[0]
    except Exception:  # never raise on a broken file
        return Finding("json-syntax", 0, min(1, len(data)), "invalid JSON")


def _locate(data: bytes, err: orjson.JSONDecodeError | None, base: int = 0) -> tuple[Finding, int]:
    """(the finding, `limit`): data[:limit] is a valid start of a JSON text, i.e. the
    file is intact up to `limit` (for a byte order mark alone, past it). err: orjson's
    error on data[base:] (None: parse data to find it)."""
    if data.startswith(_BOM):
        rest, limit = _json_error(data, 3, None)
        msg = ("the file starts with a UTF-8 byte order mark (BOM); JSON must not, and "
               "tokenizers cannot load it")
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
            return Finding("json-syntax", m.start(), m.end(),
                           f"lone surrogate {esc} ({lone} surrogate without its pair): not valid in a "
                           "tokenizer file; tokenizers cannot load it"), start
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


# ---- cutting pieces out ------------------------------------------------------------


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


def parse_value(data: bytes, start: int, stop: int | None = None, end_hint: int | None = None,
                scan: bool = True):
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


_TOP_KEYS = (b'"version"', b'"truncation"', b'"padding"', b'"added_tokens"', b'"normalizer"',
             b'"pre_tokenizer"', b'"post_processor"', b'"decoder"', b'"model"')


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


# ---- the salvage -------------------------------------------------------------------


def salvage(data: bytes, err: orjson.JSONDecodeError | None = None, path: str | None = None) -> Salvaged:
    """The json-syntax finding of a broken JSON file and what its intact parts tell.
    `err`: orjson's error on the whole of data, when the caller has it."""
    try:
        base = _error_base(err, data) if err is not None else 0
        if base is None:
            err, base = None, 0  # from a piece parsed apart: parse the file again
        error, limit = _locate(data, err, base)
    except Exception:
        error, limit = Finding("json-syntax", 0, min(1, len(data)), "invalid JSON"), 0
    out = Salvaged(error, [error])
    try:
        _recover(data, limit, path, out)
    except Exception:  # a file broken in a way not foreseen: the finding alone
        out.doc, out.findings = None, [error]
    return out


def _recover(data: bytes, limit: int, path: str | None, out: Salvaged) -> None:
    model_at = value_start(data, "model")
    if model_at is None or data[model_at] != 0x7B:
        _recover_vocab_json(data, limit, path, out)
        return
    # the sections before the model: the added tokens, and what decides the scheme. One
    # missing counts as absent only when the text before the model is intact (the break
    # could have eaten its name)
    intact_head = limit > model_at
    sections = {key: _section(data, key, model_at, limit) for key in _SECTIONS}

    def known(key: str) -> bool:
        status = sections[key][0]
        return status == "ok" or (status == "absent" and intact_head)

    if sections["added_tokens"][0] == "absent" and data.find(b'"added_tokens"', model_at) >= 0:
        sections["added_tokens"] = ("broken", None)  # after the model (or a token so named): unknown
    added = sections["added_tokens"][1]
    added_known = known("added_tokens") and (added is None or isinstance(added, list))
    config_known = all(known(k) for k in ("normalizer", "pre_tokenizer", "decoder"))

    found = _recover_model(data, model_at, limit)
    if found is None:
        return
    model, vocab_complete, vocab_end, merges = found
    obj = {"model": model, "added_tokens": added if added_known and isinstance(added, list) else []}
    for key in ("normalizer", "pre_tokenizer", "decoder"):
        status, value = sections[key]
        if status == "ok":
            obj[key] = value
    doc = JsonDocument(data, obj, "tokenizer.json")
    if not config_known and doc.vocab.scheme is Scheme.LITERAL:
        doc.vocab.scheme = _guess_scheme(doc.vocab.tokens, model)
    _set_key_count(doc, data, vocab_end)
    out.doc = doc
    out.vocab_complete = vocab_complete
    out.merges_recovered = len(merges) if merges is not None else None
    out.findings = [out.error] + _findings(doc, vocab_complete=vocab_complete, added_known=added_known,
                                           scheme_trusted=config_known)


def _recover_model(data: bytes, model_at: int, limit: int):
    """(model dict, vocab complete?, end of the recovered vocab text, merges or None)
    from the model object at model_at, whose text is intact up to `limit`; None when no
    vocabulary is left. The merges are kept only with a whole vocabulary (checked
    against a part of it, every later token would be "missing")."""
    vocab_at = value_start(data, "vocab", model_at + 1)
    if vocab_at is None:
        return None
    # the model's scalars before its vocab (type, byte_fallback, ...), unless the break
    # lies among them (then they do not parse)
    head: dict = {}
    key_at = data.rfind(b'"vocab"', model_at, vocab_at)
    if key_at > model_at:
        value = _loads(data, model_at, _strip_comma(data, model_at + 1, key_at), b"}")
        head = value if isinstance(value, dict) else {}
    merges_at = value_start(data, "merges", vocab_at + 1)
    if merges_at is not None and data[merges_at] != 0x5B:
        merges_at = None
    # HF writes the merges right after the vocab: its end is the last brace before them
    hint = data.rfind(b"}", vocab_at, merges_at) + 1 if merges_at is not None and data[vocab_at] == 0x7B else 0
    if vocab_at < limit:
        found = parse_value(data, vocab_at, limit, hint if 0 < hint <= limit else None)
        complete = found is not None
        if found is None:
            found = parse_prefix(data, vocab_at, limit)
    else:  # the break lies before the vocab: it may be whole
        found = parse_value(data, vocab_at, None, hint or None)
        complete = found is not None
    if found is None or not isinstance(found[0], (dict, list)) or not found[0]:
        return None
    vocab, vocab_end = found
    merges = None
    # merges serve hovers and hints only (they are not checked): past a budget, parsing
    # them costs more than they are worth while the file is broken
    within_budget = merges_at is not None and min(limit, len(data)) - merges_at <= MERGES_BUDGET
    if merges_at is not None and merges_at >= limit:
        within_budget = len(data) - merges_at <= MERGES_BUDGET
    if complete and within_budget and merges_at >= vocab_end:
        if merges_at < limit:
            # intact before the break: whole if it closes before it (the cut points of
            # parse_prefix then find its last merge), else its first part
            tail = trailing_close(data, merges_at, limit)
            found = parse_value(data, merges_at, None, tail, scan=False) if tail is not None else None
            if found is None:
                found = parse_prefix(data, merges_at, limit)
        else:
            found = parse_value(data, merges_at, None, trailing_close(data, merges_at))
        merges = found[0] if found is not None and isinstance(found[0], list) else None
    model = {k: v for k, v in head.items() if k not in ("vocab", "merges")}
    model["vocab"] = vocab
    if merges is not None:
        model["merges"] = merges
    if not isinstance(model.get("type"), str):
        model["type"] = "Unigram" if isinstance(vocab, list) else "BPE"
    return model, complete, vocab_end, merges


def trailing_close(data: bytes, start: int, end: int | None = None) -> int | None:
    """End of the array or object opening at `start` if it is the last value of the
    model, itself the root's last (as HF writes the merges): the bracket before the last
    two braces before `end`. Only a guess: callers parse to verify."""
    end = len(data) if end is None else end
    for _ in range(2):
        end = _skip_back(data, end, start)
        if end <= start or data[end - 1] != 0x7D:
            return None
        end -= 1
    end = _skip_back(data, end, start)
    closer = 0x5D if data[start] == 0x5B else 0x7D
    return end if end > start + 1 and data[end - 1] == closer else None


def _skip_back(data: bytes, end: int, floor: int) -> int:
    while end > floor and data[end - 1] in _WS:
        end -= 1
    return end


def _recover_vocab_json(data: bytes, limit: int, path: str | None, out: Salvaged) -> None:
    """A GPT-2 vocab.json (one token -> id object): its entries before the break."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    while start < len(data) and data[start] in _WS:
        start += 1
    if start >= len(data) or data[start] != 0x7B:
        return
    found = parse_value(data, start, limit) if limit > start else None
    complete = found is not None
    if found is None:
        found = parse_prefix(data, start, limit) if limit > start else None
    if found is None or not isinstance(found[0], dict) or not found[0]:
        return
    obj = found[0]
    if not all(type(v) is int for v in obj.values()):
        return
    base = os.path.basename(path or "").lower()
    named = base in ("vocab.json", "encoder.json")
    if base == "added_tokens.json" or not (named or sum(1 for c in BYTE_TO_CHAR if c in obj) >= 250):
        return
    doc = JsonDocument(data, obj, "vocab.json")
    _set_key_count(doc, data, found[1])
    out.doc = doc
    out.vocab_complete = complete
    out.findings = [out.error] + _findings(doc, vocab_complete=complete, added_known=True,
                                           scheme_trusted=True)


def _guess_scheme(tokens, model: dict) -> Scheme:
    """The scheme when the sections that declare it are broken: from the vocabulary."""
    if model.get("byte_fallback") is True or ("<0x41>" in tokens and "<0xE2>" in tokens):
        return Scheme.SENTENCEPIECE
    if "Ġ" in tokens and sum(1 for c in BYTE_TO_CHAR if c in tokens) >= 250:
        return Scheme.BYTE_LEVEL
    return Scheme.LITERAL


def _set_key_count(doc: JsonDocument, data: bytes, end: int) -> None:
    """The number of vocab keys as written in the recovered text (duplicates included),
    set before the document counts them past the break."""
    if doc.vocab_start is None or doc.unigram:
        return
    n = key_count_estimate(data, doc.vocab_start, end)
    if n <= len(doc.vocab.tokens):
        doc.__dict__["source_key_count"] = len(doc.vocab.tokens)
        return
    spans = [s for s in object_key_spans(data, doc.vocab_start) if s[1] <= end]
    doc._exact_key_spans = spans
    doc.__dict__["source_key_count"] = max(len(spans), len(doc.vocab.tokens))


def _findings(doc: JsonDocument, *, vocab_complete: bool, added_known: bool, scheme_trusted: bool) -> list[Finding]:
    """The checks that hold on what was recovered. Merges are not checked: against a
    partial vocabulary every later token would be missing, and against a whole one the
    check costs as much as indexing the file (they are, once it parses again)."""
    v = doc.vocab
    pending = [p for p in checks.vocab_findings(v, True)
               if p.code != "not-byte-level" or (added_known and scheme_trusted)]
    if added_known:
        pending += checks.added_findings(v, doc.added_list)
    gaps_valid = vocab_complete and added_known
    pending += [p for p in checks.id_findings(v, doc._duplicate_keys()) if p.code != "id-gap" or gaps_valid]
    spans = doc.resolve([p.ref for p in pending])
    found = [Finding(p.code, s, e, p.message) for p, (s, e) in zip(pending, spans)]
    found.sort(key=lambda f: f.start)
    return found
