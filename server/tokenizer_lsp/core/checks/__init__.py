"""Findings from a parsed vocabulary. Pure: positions come from the document's layout.

Checks name what they flag by reference (the k-th vocab entry, the merge of rank r,
the i-th added token); the document turns references into source ranges in one
forward pass, so only flagged tokens ever get located.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from dataclasses import dataclass
from itertools import chain, compress, count, groupby, islice, repeat
from operator import eq, lt, not_, sub

from ..decoding.bulk import byte_fallback_fragments, byte_level_scan
from ..decoding.bytemap import outside_alphabet
from ..decoding.display import escape, hex_head
from ..decoding.tokens import Scheme
from ..decoding.utf8 import short_fragment_kind
from ..model import Vocabulary, split_merge


@dataclass(frozen=True, slots=True)
class Ref:
    """What a finding points at: ("vocab", ordinal), ("merge", rank), ("added", index),
    ("added-id", id), or ("span", start, end) when the position is already known."""

    kind: str
    key: int  # ordinal, rank, index or start; sorting by it gives source order
    end: int = 0
    token: str | None = None  # for "vocab" refs whose ordinal is approximate
    part: int | None = None  # for "merge" refs: 0 or 1 to point at one part only
    pair: tuple[str, str] | None = None  # for "merge" refs: the parts, to find the literal by


@dataclass(slots=True)
class PendingFinding:
    code: str
    ref: Ref
    message: str


def _q(token: str) -> str:
    """A token quoted for a message: one line, its invisible characters escaped.

    A message is one line of `check` output and of an editor's problem list: controls
    (\\n, \\t, U+0085...), line and paragraph separators (U+2028, U+2029), format
    characters (bidi overrides that reorder the line, U+FEFF), lone surrogates and other
    blanks than the space are written as escapes; a backslash and a backtick (which
    closes the quote) are escaped too."""
    long = len(token) >= 80
    shown = token[:77] if long else token
    shown = escape(shown, backtick=True)
    return f"`{shown}...`" if long else f"`{shown}`"


def vocab_findings(v: Vocabulary, fragments: bool = True) -> list[PendingFinding]:
    out: list[PendingFinding] = []
    tokens = list(v.tokens)
    if v.scheme is Scheme.BYTE_LEVEL:
        scanned = tokens
        if v.word_suffix:  # CLIP: `âĪ</w>` decodes to E2 88 and a space (Ġ), as decode says
            n, suffix = len(v.word_suffix), v.word_suffix
            scanned = [t[:-n] + "\u0120" if t.endswith(suffix) and len(t) > n else t for t in tokens]
        outside, bad_utf8, bad_bytes = byte_level_scan(scanned)
        for i in outside:
            tok = tokens[i]
            if tok in v.added:  # added/special tokens are matched literally
                continue
            chars = ", ".join(f"{c!r} U+{ord(c):04X}" for c in outside_alphabet(tok)[:3])
            out.append(
                PendingFinding(
                    "not-byte-level",
                    Ref("vocab", i),
                    f"{_q(tok)} has characters outside the byte-level alphabet ({chars}); "
                    "the ByteLevel decoder will emit its own UTF-8 instead of bytes",
                )
            )
        if fragments:
            for i, data in zip(bad_utf8, bad_bytes):
                out.append(
                    PendingFinding(
                        "utf8-fragment",
                        Ref("vocab", i),
                        f"{_q(tokens[i])} = bytes {hex_head(data)}: {short_fragment_kind(data)}",
                    )
                )
    elif v.scheme is Scheme.SENTENCEPIECE and fragments:
        for tok in byte_fallback_fragments(v.tokens):
            byte = bytes([int(tok[3:5], 16)])
            out.append(
                PendingFinding(
                    "utf8-fragment",
                    Ref("vocab", v.tokens[tok], token=tok),
                    f"{_q(tok)} = byte {byte.hex().upper()}: {short_fragment_kind(byte)}, "
                    "a byte-fallback token that is not UTF-8 on its own",
                )
            )
    return out


def id_findings(v: Vocabulary, duplicates: list[tuple[int, int, str]] | None = None) -> list[PendingFinding]:
    """duplicate-id, id-gap, and duplicate-token (when the source holds more keys than the dict)."""
    out: list[PendingFinding] = []
    what = "rank" if v.scheme is Scheme.RAW_BYTES else "id"  # tiktoken: ranks are the ids
    ids = list(v.tokens.values())
    # sorted ids (a C-level pass whatever the layout; files usually list ids in order)
    ordered = ids if all(map(eq, ids, count())) else sorted(ids)
    if any(map(eq, ordered, islice(ordered, 1, None))):
        first: dict[int, str] = {}
        for i, (tok, tid) in enumerate(v.tokens.items()):
            if tid in first:
                out.append(
                    PendingFinding(
                        "duplicate-id",
                        Ref("vocab", i),
                        f"{what} {tid} of {_q(tok)} is already the {what} of {_q(first[tid])}",
                    )
                )
            else:
                first[tid] = tok
    if duplicates:
        for start, end, tok in duplicates:
            out.append(
                PendingFinding(
                    "duplicate-token",
                    Ref("span", start, end),
                    f"{_q(tok)} appears more than once in the vocabulary; the last {what} "
                    f"({v.tokens.get(tok)}) wins and the earlier entry is lost",
                )
            )
    # Unigram ids are list positions: dense by construction; with unloadable ids (reported
    # as `schema`) the gaps they leave would only repeat that finding
    if v.model_type != "Unigram" and not v.unloadable:
        out.extend(_gaps(v, ids, ordered))
    return out


def _gaps(v: Vocabulary, ids: list[int], ordered_ids: list[int]) -> list[PendingFinding]:
    """id-gap findings; ids: the vocab's ids in source order, ordered_ids: sorted."""
    if any(map(eq, ordered_ids, islice(ordered_ids, 1, None))):
        ordered_ids = [k for k, _ in groupby(ordered_ids)]  # duplicate ids (reported apart)

    def in_vocab(tid: int) -> bool:
        k = bisect_left(ordered_ids, tid)
        return k < len(ordered_ids) and ordered_ids[k] == tid

    extra = sorted(i for i in set(v.added.values()) if not in_vocab(i))  # added-only ids: few
    merged = sorted(ordered_ids + extra) if extra else ordered_ids  # two sorted runs: one merge
    if not merged or (merged[0] == 0 and merged[-1] == len(merged) - 1):
        return []
    # (first missing, last missing, next present) for every hole, in C-level passes
    holes = compress(count(), map(lt, repeat(1), map(sub, islice(merged, 1, None), merged)))
    gaps = [(merged[i] + 1, merged[i + 1] - 1, merged[i + 1]) for i in holes]
    if merged[0] > 0:
        gaps.insert(0, (0, merged[0] - 1, merged[0]))
    ordinal_of_id: dict[int, int] = {}  # where the id after each hole is, when in the vocab
    wanted = {nxt for _, _, nxt in gaps}
    if len(wanted) <= 16:
        for tid in wanted:
            if in_vocab(tid):
                ordinal_of_id[tid] = ids.index(tid)
    else:
        for i, tid in enumerate(ids):
            if tid in wanted and tid not in ordinal_of_id:
                ordinal_of_id[tid] = i
    out: list[PendingFinding] = []
    for a, b, nxt in gaps:
        what = "rank" if v.scheme is Scheme.RAW_BYTES else "id"  # tiktoken: ranks are the ids
        span = f"{what} {a}" if a == b else f"{what}s {a}..{b} ({b - a + 1} {what}s)"
        ref = Ref("vocab", ordinal_of_id[nxt]) if nxt in ordinal_of_id else Ref("added-id", nxt)
        out.append(
            PendingFinding(
                "id-gap", ref, f"{span} missing: no token has {f'this {what}' if a == b else f'these {what}s'}"
            )
        )
    return out


def merge_findings(
    v: Vocabulary, start: int = 0, stop: int | None = None, merges: list | None = None
) -> list[PendingFinding]:
    """Findings for the merges of rank start..stop (all by default); `merges`, when given,
    holds those merges (parsed apart from the vocabulary)."""
    if merges is None:
        if not v.merges:
            return []
        merges = v.merges if start == 0 and stop is None else v.merges[start:stop]
    return _merge_findings(v, merges, start) if merges else []


_MERGE_BATCH = 1 << 11  # merges per pass: bounds the strings made and each C call's length


def _merge_findings(v: Vocabulary, merges: list, base: int) -> list[PendingFinding]:
    if len(merges) > _MERGE_BATCH:
        out: list[PendingFinding] = []
        for lo in range(0, len(merges), _MERGE_BATCH):
            out += _merge_findings(v, merges[lo : lo + _MERGE_BATCH], base + lo)
        return out
    split = None if v.subword_prefix else split_well_formed(merges, v.merges_as_pairs)
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


def split_well_formed(merges: list, as_pairs: bool) -> tuple[list[str], list[str]] | None:
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
    if not a or not b:  # "ab " splits in two, but an empty part merges nothing
        stored = [a, b] if v.merges_as_pairs else f"{a} {b}"
        return [
            PendingFinding(
                "merge-malformed",
                Ref("merge", rank, pair=(a, b)),
                f"merge {rank} {_malformed(stored, v.merges_as_pairs)}",
            )
        ]
    out = []
    vocab, unloadable = v.tokens, v.unloadable

    def known(token: str) -> bool:  # an entry reported as `schema` is not "missing" too
        return token in vocab or token in unloadable

    missing = [p for p in dict.fromkeys((a, b)) if not known(p)]
    if missing:
        out.append(
            PendingFinding(
                "merge-unknown-token",
                Ref("merge", rank, part=0 if not known(a) else 1, pair=(a, b)),
                f"merge {rank} ({_q(a)} + {_q(b)}): {', '.join(map(_q, missing))} "
                f"{'is' if len(missing) == 1 else 'are'} not in the vocabulary",
            )
        )
    if not known(result):
        out.append(
            PendingFinding(
                "merge-result-missing",
                Ref("merge", rank, pair=(a, b)),
                f"merge {rank} ({_q(a)} + {_q(b)}) produces {_q(result)}, which is not in the vocabulary",
            )
        )
    return out


def _merge_findings_slow(v: Vocabulary, merges: list, base: int) -> list[PendingFinding]:
    out: list[PendingFinding] = []
    for rank, m in enumerate(merges, base):
        pair = split_merge(m, v.merges_as_pairs)
        if pair is None:
            # not a string nor a pair of strings (or the other form than the list's):
            # tokenizers refuses the whole list, so it is `schema`, not a merge's defect
            misshapen = not isinstance(m, str) if not v.merges_as_pairs else not _is_pair(m)
            out.append(
                PendingFinding(
                    "schema" if misshapen else "merge-malformed",
                    Ref("merge", rank),
                    f"merge {rank} {_malformed(m, v.merges_as_pairs)}",
                )
            )
            out.extend(ambiguous_merge_findings(v, rank, m))
            continue
        out.extend(_one_merge(v, rank, pair[0], pair[1], v.merge_result(*pair)))
    return out


def _is_pair(m) -> bool:
    return isinstance(m, list) and len(m) == 2 and all(isinstance(p, str) for p in m)


def readings(v: Vocabulary, merge: str) -> list[tuple[str, str]]:
    """The ways a string merge with several spaces splits into two vocabulary tokens (at
    one of its spaces; the others stay inside a part)."""
    out = []
    at = merge.find(" ")
    while at >= 0:
        a, b = merge[:at], merge[at + 1 :]
        if a and b and a in v.tokens and b in v.tokens:
            out.append((a, b))
        at = merge.find(" ", at + 1)
    return out


def ambiguous_merge_findings(v: Vocabulary, rank: int, merge) -> list[PendingFinding]:
    """merge-ambiguous: a string merge with several spaces that splits into two vocabulary
    tokens at one or more of them (its parts hold a space). Only where a token may hold a raw space: in byte-level vocabularies a
    space is `Ġ`. tokenizers refuses any string merge with more than one space ("Merges
    text file invalid"): only the pair form can say which reading is meant."""
    if v.merges_as_pairs or not isinstance(merge, str) or v.scheme in (Scheme.BYTE_LEVEL, Scheme.RAW_BYTES):
        return []
    if merge.count(" ") < 2:
        return []
    found = readings(v, merge)
    if not found:
        return []  # no split into two vocabulary tokens: merge-malformed says it all
    shown = " or ".join(f"{_q(a)} + {_q(b)}" for a, b in found)
    # one reading is still a part holding a space: the string form cannot say so, and
    # tokenizers refuses the whole list; the pair form (the quick fix) can
    what = (
        f"reads {len(found)} ways: {shown}"
        if len(found) > 1
        else f"has a part holding a space (it splits into vocabulary tokens only as {shown})"
    )
    return [
        PendingFinding(
            "merge-ambiguous",
            Ref("merge", rank),
            f"merge {rank} {_q(merge)} {what}; tokenizers refuses a string merge with more "
            "than one space (it does not pick one): write the merges as pairs",
        )
    ]


def added_findings(v: Vocabulary, added_list: list[dict]) -> list[PendingFinding]:
    out: list[PendingFinding] = []
    by_content: dict[str, int] = {}
    by_id: dict[int, str] = {}
    for i, entry in enumerate(added_list):
        content = entry.get("content")
        aid = entry.get("id")
        if not isinstance(content, str) or not isinstance(aid, int):
            continue
        if content in by_content:
            ids = f"id {aid}" if by_content[content] == aid else f"ids {by_content[content]} and {aid}"
            out.append(
                PendingFinding(
                    "duplicate-token",
                    Ref("added", i),
                    f"added token {_q(content)} is listed twice ({ids})",
                )
            )
        elif aid in by_id:
            out.append(
                PendingFinding(
                    "duplicate-id",
                    Ref("added", i),
                    f"added token {_q(content)} has id {aid}, already the id of added token {_q(by_id[aid])}",
                )
            )
        by_content.setdefault(content, aid)
        by_id.setdefault(aid, content)
        vid = v.tokens.get(content)
        if vid is not None and vid != aid:
            out.append(
                PendingFinding(
                    "added-token-mismatch",
                    Ref("added", i),
                    f"added token {_q(content)} has id {aid} but the vocabulary gives it id {vid}; "
                    "on load the vocabulary id wins",
                )
            )
    return out


def _malformed(m, as_pairs: bool) -> str:
    shown = _q(m) if isinstance(m, str) else _q(json.dumps(m, ensure_ascii=False))
    one_space = "a merge is two tokens separated by one space"
    if as_pairs:
        if isinstance(m, list) and len(m) != 2:
            return f"{shown} has {len(m)} part{'s' if len(m) != 1 else ''}; a merge is a pair of two tokens"
        if isinstance(m, list):
            bad = [p for p in m if not isinstance(p, str)]
            if bad:
                which = "a part that is not a string" if len(bad) == 1 else "parts that are not strings"
                return f"{shown} has {which}; a merge is a pair of two tokens (strings)"
            return f"{shown} has an empty part; a merge is a pair of two non-empty tokens"
        return f"{shown} is not a pair of two tokens (a list of two strings)"
    if not isinstance(m, str):
        return f"{shown} is not a string; {one_space}, in one string"
    spaces = m.count(" ")
    if spaces == 0:
        tab = "\t" in m
        return f"{shown} has no space{' (a tab is not a separator)' if tab else ''}: {one_space}"
    if m.startswith(" "):
        return f"{shown} starts with a space, so its first part is empty: {one_space}"
    if m.endswith(" "):
        return f"{shown} ends with a space, so its last part is empty: {one_space}"
    if "  " in m:
        return f"{shown} has two spaces in a row: {one_space}"
    return f"{shown} has {spaces} spaces, so {spaces + 1} parts: {one_space}"
