"""A typing fast path: an edit inside one token literal updates the last index instead
of re-parsing the file.

Re-parsing a 33 MB tokenizer.json takes over a second; renaming one vocab key or one
merge part changes only that token's own findings and those of the merges that use the
old or the new token. Anything else (quotes, escapes, duplicates, added tokens, edits
that touch structure) returns None and the caller re-indexes the whole file.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace
from struct import calcsize, pack, pack_into

import orjson

from ... import checks
from ...compact_vocab import unwrapped
from ...model import Finding, RenamedTokens, Vocabulary
from .doc import MERGE_HASH, JsonDocument, merge_hash
from .literal_table import ShiftedTable

_SIZE = calcsize(MERGE_HASH)
_WINDOW = 1 << 18  # bytes of packed hashes searched per call (a multiple of _SIZE)
MAX_DEPTH = 32  # edits stacked on one parse before a full re-index is due anyway
_UNSAFE = frozenset(b'"\\\n\r') | frozenset(range(0x20))


def ranks_using(doc: JsonDocument, tokens: set[str]) -> list[int]:
    """Ranks of merges that have one of `tokens` as a part or as their result."""
    v = doc.vocab
    candidates: set[int] = set()
    for t in tokens:
        needle = pack(MERGE_HASH, merge_hash(t))
        for packed in doc.merge_hashes or ():
            # in windows: one find over 4 MB holds the interpreter for milliseconds
            for lo in range(0, len(packed), _WINDOW):
                hi = min(lo + _WINDOW + _SIZE - 1, len(packed))
                i = packed.find(needle, lo, hi)
                while i >= 0:
                    if i % _SIZE == 0:
                        candidates.add(i // _SIZE)
                    i = packed.find(needle, i + 1, hi)
    found = []
    for r in sorted(candidates):  # hashes can collide: confirm with the strings
        pair = doc.merge_at(r)
        if pair is not None and (pair[0] in tokens or pair[1] in tokens or v.merge_result(*pair) in tokens):
            found.append(r)
    return found


def _replace_hashes(hashes, rank: int, values: tuple[str, str, str]):
    out = []
    for packed, value in zip(hashes, values):
        buf = bytearray(packed)
        pack_into(MERGE_HASH, buf, rank * _SIZE, merge_hash(value))
        out.append(bytes(buf))
    return tuple(out)


def apply_edit(
    doc: JsonDocument, old_findings: list[Finding], start: int, end: int, new: bytes, new_data: bytes
) -> tuple[JsonDocument, list[Finding]] | None:
    tables = doc._tables
    if tables is None or not _UNSAFE.isdisjoint(new):
        return None
    delta = len(new) - (end - start)
    for role in ("vocab", "merges"):
        table = tables.get(role)
        if table is None or table.depth >= MAX_DEPTH:
            continue
        k = table.at_offset(start)
        if k is None:
            continue
        ls, le = table.span(k)
        if not (ls < start and end < le):
            return None
        old_lit = doc.data[ls:le]
        if b"\\" in old_lit:
            return None
        try:
            token = orjson.loads(old_lit[: start - ls] + new + old_lit[end - ls :])
            old = orjson.loads(old_lit)
        except orjson.JSONDecodeError:
            return None
        if role == "vocab":
            return _edit_vocab_key(doc, old_findings, k, (ls, le), old, token, end, delta, new_data)
        return _edit_merge(doc, old_findings, k, (ls, le), token, end, delta, new_data)
    return None


def _new_doc(doc: JsonDocument, vocab: Vocabulary, end: int, delta: int, new_data: bytes) -> JsonDocument:
    out = object.__new__(JsonDocument)
    out.__dict__.update(doc.__dict__)
    out.data = new_data
    out.vocab = vocab
    out._tables = {
        role: ShiftedTable(t, end, delta) if role != "added" else _shift_spans(t, end, delta)
        for role, t in doc._tables.items()
    }
    for attr in ("vocab_start", "merges_start", "added_start"):
        if getattr(out, attr) is not None and getattr(out, attr) >= end:
            setattr(out, attr, getattr(out, attr) + delta)
    return out


def _shift_spans(spans: list[tuple[int, int]], at: int, delta: int) -> list[tuple[int, int]]:
    """Spans in source order, shifted after `at`; those wholly before it are shared."""
    i = bisect_left(spans, (at, at)) if spans else 0
    while i > 0 and spans[i - 1][1] >= at:  # a span that ends at or after the edit
        i -= 1
    return spans if i == len(spans) else spans[:i] + [_shift_span(s, at, delta) for s in spans[i:]]


def _shift_span(span: tuple[int, int], at: int, delta: int) -> tuple[int, int]:
    s, e = span
    return (s + delta if s >= at else s, e + delta if e >= at else e)


def _rebuild_findings(
    old: list[Finding], drop: list[tuple[int, int]], at: int, delta: int, added: list[Finding]
) -> list[Finding] | None:
    drop.sort()
    out = []
    for f in old:
        if any(s <= f.start < e for s, e in drop):
            continue
        if f.start >= at:
            f = Finding(f.code, f.start + delta, f.end + delta, f.message)
        out.append(f)
    out.extend(added)
    out.sort(key=lambda f: f.start)
    return out


def _merge_spans(doc: JsonDocument, rank: int) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """(whole span, per-part spans) of a merge in the (shifted) merges table."""
    table = doc._tables["merges"]
    if doc.vocab.merges_as_pairs:
        a, b = table.span(2 * rank), table.span(2 * rank + 1)
        return (a[0], b[1]), [a, b]
    s, e = table.span(rank)
    sep = doc.data.find(b" ", s + 1, e)
    return (s, e), [(s + 1, sep), (sep + 1, e - 1)]


def _merge_findings_at(doc: JsonDocument, ranks: list[int]) -> list[Finding] | None:
    out = []
    v = doc.vocab
    for r in ranks:
        pair = doc.merge_at(r)
        if pair is None:
            return None
        whole, part_spans = _merge_spans(doc, r)
        for p in checks.one_merge(v, r, pair[0], pair[1], v.merge_result(*pair)):
            s, e = part_spans[p.ref.part] if p.ref.part is not None else whole
            out.append(Finding(p.code, s, e, p.message))
    return out


def _edit_vocab_key(doc, old_findings, k, lit, old, token, end, delta, new_data):
    v = doc.vocab
    if doc.unigram or doc.source_key_count != len(v.tokens) or token == old:
        return None
    if token in v.tokens or token in v.added or old in v.added:
        return None
    if old not in v.tokens:
        return None
    if doc.merges_start is not None and doc.merge_hashes is None:
        return None  # merges that cannot be searched: re-parse
    # over the table itself, not the pending one it came in (core.index.staged)
    tokens = v.tokens if isinstance(v.tokens, RenamedTokens) else RenamedTokens(unwrapped(v.tokens))
    new_v = replace(v, tokens=tokens.rename(old, token))
    affected = ranks_using(doc, {old, token}) if doc.merge_count else []
    new_doc = _new_doc(doc, new_v, end, delta, new_data)
    ls, le = lit
    on_literal = [f for f in old_findings if ls <= f.start < le]
    if any(f.code not in ("utf8-fragment", "not-byte-level") for f in on_literal):
        return None  # id findings anchored here would need their messages rebuilt
    one = Vocabulary(
        scheme=v.scheme, tokens={token: v.tokens[old]}, added=v.added, special=v.special, word_suffix=v.word_suffix
    )
    added = [Finding(p.code, ls, le + delta, p.message) for p in checks.vocab_findings(one)]
    drop = [(ls, le)] + [_merge_spans(doc, r)[0] for r in affected]
    merge_found = _merge_findings_at(new_doc, affected)
    if merge_found is None:
        return None
    return new_doc, _rebuild_findings(old_findings, drop, end, delta, added + merge_found)


def _edit_merge(doc, old_findings, k, lit, token, end, delta, new_data):
    v = doc.vocab
    if doc.merge_hashes is None:
        return None
    if v.merges_as_pairs:
        rank = k // 2
    else:
        rank = k
        if len(token.split(" ")) != 2:
            return None
    new_doc = _new_doc(doc, v, end, delta, new_data)
    pair = new_doc.merge_at(rank)  # read back from the edited literal
    if pair is None:
        return None
    a, b = pair
    new_doc.merge_hashes = _replace_hashes(doc.merge_hashes, rank, (a, b, v.merge_result(a, b)))
    drop = [_merge_spans(doc, rank)[0]]
    added = _merge_findings_at(new_doc, [rank])
    if added is None:
        return None
    return new_doc, _rebuild_findings(old_findings, drop, end, delta, added)
