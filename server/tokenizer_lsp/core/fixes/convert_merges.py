"""Convert every merge of a tokenizer.json between the `"a b"` string form and the
`["a", "b"]` pair form (what tokenizers >= 0.20 writes, and what a merge whose parts hold
a space needs), as ONE edit of the merges array.

Fast on 500k merges: one regex split of the bytes of the array, the pieces joined again
in C (no Python call per merge), reusing each literal as written (its escapes kept) and
the separators between elements as they are (the file's indentation and line breaks
kept). Only a merge with several spaces takes the slow path, a Python call per literal.
"""

from __future__ import annotations

import json
import re
import weakref
from itertools import chain, repeat

from ..checks import readings
from ..decoding.tokens import Scheme
from ..formats.json.doc import JsonDocument
from ..formats.json.layout import trailing_array_end, value_span
from ..index.document import DocumentIndex
from .fix import REWRITE, Edit, Fix

_W = rb"[ \t\r\n]*"
_BODY = rb'([^"\\]*(?:\\.[^"\\]*)*)'  # a string literal's inside (unrolled: fast in sre)
_STR = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_PAIR = re.compile(rb"\[" + _W + b'"' + _BODY + b'"' + _W + b"," + _W + b'"' + _BODY + b'"' + _W + rb"\]")
# a string merge with exactly one raw space between two non-empty parts
_ONE_SPACE = re.compile(rb'"((?:[^"\\ ]|\\.)+) ((?:[^"\\ ]|\\.)+)"')
_ESCAPED_SPACE = b"\\u0020"


class CannotConvert(ValueError):
    """The merges cannot be written in the other form without changing their meaning."""


def merges_array(idx: DocumentIndex) -> tuple[int, int] | None:
    """[start, end) of the model.merges array in the index's text."""
    doc = idx.doc
    if not isinstance(doc, JsonDocument) or doc.merges_start is None or idx.syntax_error is not None:
        return None
    known = getattr(doc, "_merges_text", None)
    if known is not None:
        return known
    start = doc.merges_start
    end = trailing_array_end(idx.data, start)
    if end is None:
        colon = idx.data.rfind(b":", 0, start)
        span = value_span(idx.data, colon) if colon >= 0 else None
        end = span[1] if span else None
    return (start, end) if end is not None else None


def _merge_count(doc: JsonDocument) -> int:
    return doc.merge_count if getattr(doc, "merge_count", 0) else len(doc.all_merges())


def _layout(data: bytes, start: int, end: int) -> tuple[bytes | None, bytes, bytes]:
    """(indentation of an element or None when the array is on one line, one level of
    indentation, the separator after a comma inside a pair: `, ` on one line, else the
    file's line break)."""
    first = start + 1
    while first < end and data[first] in b" \t\r\n":
        first += 1
    lead = data[start + 1 : first]
    if b"\n" not in lead:
        m = _STR.search(data, first, end)
        after = data[m.end() : m.end() + 2] if m else b""
        return None, b"", b", " if after.startswith(b", ") or b", " in data[first : first + 200] else b","
    indent = lead[lead.rfind(b"\n") + 1 :].replace(b"\r", b"")
    eol = b"\r\n" if b"\r\n" in lead else b"\n"
    line = data.rfind(b"\n", 0, start) + 1
    key_indent = data[line:start][: len(data[line:start]) - len(data[line:start].lstrip(b" \t"))]
    unit = indent[len(key_indent) :] if indent.startswith(key_indent) and len(indent) > len(key_indent) else b"  "
    return indent, unit, eol


def _pair_text(indent: bytes | None, unit: bytes, comma: bytes, a: bytes, b: bytes) -> bytes:
    """A pair element from two string literals, in the file's layout."""
    if indent is None:
        return b"[" + a + comma + b + b"]"
    inner, eol = indent + unit, comma
    return b"[" + eol + inner + a + b"," + eol + inner + b + eol + indent + b"]"


def to_strings(idx: DocumentIndex) -> Edit:
    """Every pair `["a", "b"]` as the string `"a b"`; refused when a part holds a space
    (the string form could not say where it splits)."""
    span = merges_array(idx)
    if span is None or not idx.vocab.merges_as_pairs:
        raise CannotConvert("the merges are not a list of pairs")
    data, (s, e) = idx.data, span
    count = _merge_count(idx.doc)
    # split, not sub: a template costs a Python call per match; the pieces are joined in C
    pieces = _PAIR.split(data[s + 1 : e - 1])
    seps, firsts, seconds = pieces[0::3], pieces[1::3], pieces[2::3]
    if len(firsts) != count:
        raise CannotConvert("some merges are not pairs of two strings")
    for parts in (firsts, seconds):
        joined = b"\0".join(parts)
        if b" " in joined or _ESCAPED_SPACE in joined:
            rank = next(i for i, p in enumerate(parts) if b" " in p or _ESCAPED_SPACE in p)
            raise CannotConvert(f"merge {rank} has a part with a space: only the pair form can hold it")
    body = chain.from_iterable(zip(seps, repeat(b'"'), firsts, repeat(b" "), seconds, repeat(b'"')))
    return s + 1, e - 1, b"".join(body) + seps[-1]


def to_pairs(idx: DocumentIndex, chosen: dict[int, tuple[str, str]] | None = None) -> Edit:
    """Every string merge `"a b"` as the pair `["a", "b"]`. A merge with several spaces is
    split where `chosen` says, else where it is the only split into two vocab tokens."""
    span = merges_array(idx)
    if span is None or idx.vocab.merges_as_pairs:
        raise CannotConvert("the merges are not strings")
    data, (s, e) = idx.data, span
    indent, unit, comma = _layout(data, s, e)
    region = data[s + 1 : e - 1]
    count = _merge_count(idx.doc)
    if not chosen and _ESCAPED_SPACE not in region:
        pieces = _ONE_SPACE.split(region)
        seps, firsts, seconds = pieces[0::3], pieces[1::3], pieces[2::3]
        if len(firsts) == count:
            head, middle, tail = _pair_text(indent, unit, comma, b'"\0"', b'"\0"').split(b"\0")
            body = chain.from_iterable(zip(seps, repeat(head), firsts, repeat(middle), seconds, repeat(tail)))
            return s + 1, e - 1, b"".join(body) + seps[-1]
    return s + 1, e - 1, _to_pairs_slow(idx, region, count, indent, unit, comma, chosen or {})


def _to_pairs_slow(idx, region: bytes, count: int, indent, unit, comma, chosen) -> bytes:
    rank = 0

    def one(m: re.Match) -> bytes:
        nonlocal rank
        lit, r = m.group(), rank
        rank += 1
        spaces = [i for i, c in enumerate(lit) if c == 32]
        if len(spaces) == 1 and _ESCAPED_SPACE not in lit and 1 < spaces[0] < len(lit) - 2:
            return _pair_text(indent, unit, comma, lit[: spaces[0]] + b'"', b'"' + lit[spaces[0] + 1 :])
        text = json.loads(lit)
        found = readings(idx.vocab, text)
        pick = chosen.get(r) or (found[0] if len(found) == 1 else None)
        if pick is None:
            why = f"reads {len(found)} ways" if found else "does not split into two vocabulary tokens"
            raise CannotConvert(f"merge {r} `{text}` {why}")
        a, b = pick
        if _ESCAPED_SPACE not in lit and len(spaces) == text.count(" "):
            cut = spaces[a.count(" ")]
            return _pair_text(indent, unit, comma, lit[:cut] + b'"', b'"' + lit[cut + 1 :])
        enc = lambda t: json.dumps(t, ensure_ascii=not _non_ascii(lit)).encode("utf-8")
        return _pair_text(indent, unit, comma, enc(a), enc(b))

    new = _STR.sub(one, region)
    if rank != count:
        raise CannotConvert("some merges are not strings")
    return new


def _non_ascii(lit: bytes) -> bool:
    return any(c >= 0x80 for c in lit)


def convert(idx: DocumentIndex, how: dict) -> Edit:
    """The conversion a code action's data asks for: {"to": "pairs" | "strings"}, and for an
    ambiguous merge {"rank", "pair"} too."""
    if how.get("to") == "strings":
        return to_strings(idx)
    pair = how.get("pair")
    chosen = {int(how["rank"]): (pair[0], pair[1])} if "rank" in how and isinstance(pair, list) else None
    return to_pairs(idx, chosen)


# ---- what is offered where ------------------------------------------------------------

_space_tokens: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _vocab_has_spaces(idx: DocumentIndex) -> bool:
    """Whether some vocab token holds a raw space (then pairs may not become strings);
    once per index: code actions are asked on every move of the cursor."""
    if idx not in _space_tokens:
        v = idx.vocab
        _space_tokens[idx] = v.scheme not in (Scheme.BYTE_LEVEL,) and any(" " in t for t in v.tokens)
    return _space_tokens[idx]


def _count(idx: DocumentIndex) -> str:
    return f"{_merge_count(idx.doc):,}"


def conversions_at(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """The conversion of every merge to the other form, offered inside the merges array
    (not when a finding says some merge cannot be converted)."""
    span = merges_array(idx)
    if span is None or not span[0] <= start < span[1]:
        return []
    blocked = {"merge-malformed", "merge-ambiguous", "schema"}
    if any(f.code in blocked and span[0] <= f.start < span[1] for f in idx.findings):
        return []
    if idx.vocab.merges_as_pairs:
        if _vocab_has_spaces(idx):
            return []
        return [
            Fix(
                f'Convert all {_count(idx)} merges to "a b" strings',
                REWRITE,
                compute=lambda: [to_strings(idx)],
                key={"to": "strings"},
            )
        ]
    return [
        Fix(
            f'Convert all {_count(idx)} merges to ["a", "b"] pairs (the form tokenizers writes)',
            REWRITE,
            compute=lambda: [to_pairs(idx)],
            key={"to": "pairs"},
        )
    ]


def readings_conversions(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """On an ambiguous merge: convert every merge to pairs, this one read one way (one
    action per reading; the other ambiguous merges must have been decided already, so
    each is offered only when this is the only one left)."""
    span = merges_array(idx)
    if span is None or idx.vocab.merges_as_pairs:
        return []
    ref = idx.token_at(start)
    rank = ref.rank if ref is not None and ref.role == "merge" else None
    text = ref.token if ref is not None else None
    if rank is None or not isinstance(text, str):
        return []
    out = []
    for a, b in readings(idx.vocab, text):
        chosen = {rank: (a, b)}
        out.append(
            Fix(
                f'Convert all merges to pairs, merge {rank} as ["{a}", "{b}"]',
                REWRITE,
                "merge-ambiguous",
                (start, end),
                compute=(lambda chosen=chosen: [to_pairs(idx, chosen)]),
                key={"to": "pairs", "rank": rank, "pair": [a, b]},
            )
        )
    return out
