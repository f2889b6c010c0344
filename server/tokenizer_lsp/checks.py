"""Findings from a parsed vocabulary. Pure: positions come from the document's layout.

Checks name what they flag by reference (the k-th vocab entry, the merge of rank r,
the i-th added token); the document turns references into source ranges in one
forward pass, so only flagged tokens ever get located.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, compress, count, repeat
from operator import eq, not_

from .decoding.bulk import byte_fallback_fragments, byte_level_scan
from .decoding.bytemap import outside_alphabet
from .decoding.tokens import Scheme
from .decoding.utf8 import short_fragment_kind
from .model import Vocabulary, split_merge


@dataclass(frozen=True, slots=True)
class Ref:
    """What a finding points at: ("vocab", ordinal), ("merge", rank), ("added", index),
    ("added-id", id), or ("span", start, end) when the position is already known."""

    kind: str
    key: int  # ordinal, rank, index or start; sorting by it gives source order
    end: int = 0
    token: str | None = None  # for "vocab" refs whose ordinal is approximate
    part: int | None = None  # for "merge" refs: 0 or 1 to point at one part only


@dataclass(slots=True)
class PendingFinding:
    code: str
    ref: Ref
    message: str


def _q(token: str) -> str:
    return "`" + token.replace("`", "\\`") + "`" if len(token) < 80 else "`" + token[:77] + "...`"


def vocab_findings(v: Vocabulary, fragments: bool = True) -> list[PendingFinding]:
    out: list[PendingFinding] = []
    tokens = list(v.tokens)
    if v.scheme is Scheme.BYTE_LEVEL:
        outside, bad_utf8, bad_bytes = byte_level_scan(tokens)
        for i in outside:
            tok = tokens[i]
            if tok in v.added:  # added/special tokens are matched literally
                continue
            chars = ", ".join(f"{c!r} U+{ord(c):04X}" for c in outside_alphabet(tok)[:3])
            out.append(PendingFinding(
                "not-byte-level", Ref("vocab", i),
                f"{_q(tok)} has characters outside the byte-level alphabet ({chars}); "
                "the ByteLevel decoder will emit its own UTF-8 instead of bytes",
            ))
        if fragments:
            for i, data in zip(bad_utf8, bad_bytes):
                out.append(PendingFinding(
                    "utf8-fragment", Ref("vocab", i),
                    f"{_q(tokens[i])} = bytes {data.hex(' ').upper()}: {short_fragment_kind(data)}",
                ))
    elif v.scheme is Scheme.SENTENCEPIECE and fragments:
        for tok in byte_fallback_fragments(v.tokens):
            byte = bytes([int(tok[3:5], 16)])
            out.append(PendingFinding(
                "utf8-fragment", Ref("vocab", v.tokens[tok], token=tok),
                f"{_q(tok)} = byte {byte.hex().upper()}: {short_fragment_kind(byte)}, "
                "a byte-fallback token that is not UTF-8 on its own",
            ))
    return out


def id_findings(v: Vocabulary, duplicates: list[tuple[int, int, str]] | None = None) -> list[PendingFinding]:
    """duplicate-id, id-gap, and duplicate-token (when the source holds more keys than the dict)."""
    out: list[PendingFinding] = []
    ids = list(v.tokens.values())
    in_order = all(map(eq, ids, count()))  # the usual layout: no duplicates, no gaps
    if not in_order and len(set(ids)) != len(ids):
        first: dict[int, str] = {}
        for i, (tok, tid) in enumerate(v.tokens.items()):
            if tid in first:
                out.append(PendingFinding(
                    "duplicate-id", Ref("vocab", i),
                    f"id {tid} of {_q(tok)} is already the id of {_q(first[tid])}",
                ))
            else:
                first[tid] = tok
    if duplicates:
        for start, end, tok in duplicates:
            out.append(PendingFinding(
                "duplicate-token", Ref("span", start, end),
                f"{_q(tok)} appears more than once in the vocabulary; the last id "
                f"({v.tokens.get(tok)}) wins and the earlier entry is lost",
            ))
    out.extend(_gaps(v, in_order))
    return out


def _gaps(v: Vocabulary, in_order: bool = False) -> list[PendingFinding]:
    n = len(v.tokens)
    if in_order and n:  # vocab ids are 0..n-1: a gap can only come from added ids after them
        extra = {i for i in v.added.values() if not 0 <= i < n}
        if extra == set(range(n, n + len(extra))):
            return []
    all_ids = set(v.tokens.values())
    all_ids.update(v.added.values())
    if not all_ids:
        return []
    lo, hi = min(all_ids), max(all_ids)
    if hi - lo + 1 == len(all_ids) and lo == 0:
        return []
    ordinal_of_id: dict[int, int] = {}
    out: list[PendingFinding] = []
    ordered = sorted(all_ids)
    prev = -1
    gaps: list[tuple[int, int, int]] = []
    for tid in ordered:
        if tid > prev + 1:
            gaps.append((prev + 1, tid - 1, tid))
        prev = tid
    if gaps:
        wanted = {nxt for _, _, nxt in gaps}
        for i, tid in enumerate(v.tokens.values()):
            if tid in wanted and tid not in ordinal_of_id:
                ordinal_of_id[tid] = i
    for a, b, nxt in gaps:
        span = f"id {a}" if a == b else f"ids {a}..{b} ({b - a + 1} ids)"
        ref = Ref("vocab", ordinal_of_id[nxt]) if nxt in ordinal_of_id else Ref("added-id", nxt)
        out.append(PendingFinding("id-gap", ref, f"{span} missing: no token has {'this id' if a == b else 'these ids'}"))
    return out


def merge_findings(v: Vocabulary, start: int = 0, stop: int | None = None,
                   merges: list | None = None) -> list[PendingFinding]:
    """Findings for the merges of rank start..stop (all by default); `merges`, when given,
    holds those merges (parsed apart from the vocabulary)."""
    if merges is None:
        if not v.merges:
            return []
        merges = v.merges if start == 0 and stop is None else v.merges[start:stop]
    return _merge_findings(v, merges, start) if merges else []


_MERGE_BATCH = 1 << 15  # merges checked per pass: bounds the strings made on the way


def _merge_findings(v: Vocabulary, merges: list, base: int) -> list[PendingFinding]:
    if len(merges) > _MERGE_BATCH:
        out: list[PendingFinding] = []
        for lo in range(0, len(merges), _MERGE_BATCH):
            out += _merge_findings(v, merges[lo : lo + _MERGE_BATCH], base + lo)
        return out
    split = None if v.subword_prefix else _split_well_formed(merges, v.merges_as_pairs)
    if split is None:
        return _merge_findings_slow(v, merges, base)
    parts, results = split
    contains = v.tokens.__contains__
    # the common case, every part and result known, in C-level passes over 1M strings
    if all(map(contains, parts)) and all(map(contains, results)):
        return []
    bad_parts = compress(range(len(parts)), map(not_, map(contains, parts)))
    bad_results = compress(range(len(results)), map(not_, map(contains, results)))
    ranks = sorted({i // 2 for i in bad_parts} | set(bad_results))
    out: list[PendingFinding] = []
    for rank in ranks:
        out.extend(_one_merge(v, base + rank, parts[2 * rank], parts[2 * rank + 1], results[rank]))
    return out


def _split_well_formed(merges: list, as_pairs: bool) -> tuple[list[str], list[str]] | None:
    """(first and second parts interleaved, results) when every merge is well formed and
    results are plain concatenations; None sends the caller to the per-merge path."""
    n = len(merges)
    if as_pairs:
        if set(map(type, merges)) != {list} or set(map(len, merges)) != {2}:
            return None
        try:
            results = list(map("".join, merges))  # TypeError on a part that is not a string
        except TypeError:
            return None
        return list(chain.from_iterable(merges)), results
    if set(map(type, merges)) != {str}:
        return None
    parts = " ".join(merges).split(" ")
    # 2n parts and a space in each merge: exactly one space in each
    if len(parts) != 2 * n or not all(map(str.__contains__, merges, repeat(" "))):
        return None
    return parts, list(map(str.__add__, parts[0::2], parts[1::2]))


def _one_merge(v: Vocabulary, rank: int, a: str, b: str, result: str) -> list[PendingFinding]:
    out = []
    vocab = v.tokens
    missing = [p for p in dict.fromkeys((a, b)) if p not in vocab]
    if missing:
        out.append(PendingFinding(
            "merge-unknown-token", Ref("merge", rank, part=0 if a not in vocab else 1),
            f"merge {rank} ({_q(a)} + {_q(b)}): {', '.join(map(_q, missing))} "
            f"{'is' if len(missing) == 1 else 'are'} not in the vocabulary",
        ))
    if result not in vocab:
        out.append(PendingFinding(
            "merge-result-missing", Ref("merge", rank),
            f"merge {rank} ({_q(a)} + {_q(b)}) produces {_q(result)}, which is not in the vocabulary",
        ))
    return out


def _merge_findings_slow(v: Vocabulary, merges: list, base: int) -> list[PendingFinding]:
    out: list[PendingFinding] = []
    for rank, m in enumerate(merges, base):
        pair = split_merge(m, v.merges_as_pairs)
        if pair is None:
            shape = "is not a pair of two strings" if v.merges_as_pairs else "does not split on one space into exactly two parts"
            out.append(PendingFinding("merge-malformed", Ref("merge", rank), f"merge {rank} ({m!r}) {shape}"))
            continue
        out.extend(_one_merge(v, rank, pair[0], pair[1], v.merge_result(*pair)))
    return out


def added_findings(v: Vocabulary, added_list: list[dict]) -> list[PendingFinding]:
    out: list[PendingFinding] = []
    for i, entry in enumerate(added_list):
        content = entry.get("content")
        aid = entry.get("id")
        if not isinstance(content, str) or not isinstance(aid, int):
            continue
        vid = v.tokens.get(content)
        if vid is not None and vid != aid:
            out.append(PendingFinding(
                "added-token-mismatch", Ref("added", i),
                f"added token {_q(content)} has id {aid} but the vocabulary gives it id {vid}; "
                "on load the vocabulary id wins",
            ))
    return out
