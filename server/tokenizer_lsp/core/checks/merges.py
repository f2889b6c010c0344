"""The merge checks of a vocabulary's merges (tokenizer.json, vocab.json + merges.txt):
merge-malformed, merge-unknown-token, merge-result-missing, merge-ambiguous."""

from __future__ import annotations

import json
from itertools import compress
from operator import not_

from ..decoding.display import quoted as _q
from ..decoding.tokens import Scheme
from ..model import PendingFinding, Ref, Vocabulary, split_merge, split_well_formed


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
        out.extend(one_merge(v, base + rank, parts[2 * rank], parts[2 * rank + 1], results[rank]))
    return out


def one_merge(v: Vocabulary, rank: int, a: str, b: str, result: str) -> list[PendingFinding]:
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
        out.extend(one_merge(v, rank, pair[0], pair[1], v.merge_result(*pair)))
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
