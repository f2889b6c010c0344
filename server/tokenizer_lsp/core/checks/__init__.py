"""Findings from a parsed vocabulary. Pure: positions come from the document's layout.

Checks name what they flag by reference (the k-th vocab entry, the merge of rank r,
the i-th added token); the document turns references into source ranges in one
forward pass, so only flagged tokens ever get located.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress, count, groupby, islice, repeat
from operator import eq, lt, sub

from ..decoding.bulk import byte_fallback_fragments, byte_level_scan
from ..decoding.bytemap import outside_alphabet
from ..decoding.display import hex_head
from ..decoding.display import quoted as _q
from ..decoding.tokens import Scheme
from ..decoding.utf8 import short_fragment_kind
from ..model import PendingFinding, Ref, Vocabulary

__all__ = [
    "PendingFinding",
    "Ref",
    "_q",
    "added_findings",
    "ambiguous_merge_findings",
    "id_findings",
    "merge_findings",
    "one_merge",
    "readings",
    "vocab_findings",
]


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


# the merge checks (a module of their own: this one would pass 400 lines), re-exported:
# callers say checks.merge_findings whatever module holds it
from .merges import ambiguous_merge_findings, merge_findings, one_merge, readings  # noqa: E402
