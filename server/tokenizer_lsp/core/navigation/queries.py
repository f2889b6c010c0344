"""Definition and references within one index, as byte spans (the LSP layer pairs files).

A token occurrence is a vocab key, a merge part, a whole merge (its result), an added
token's content or a tiktoken base64 field. A merge's rank is its place in the merges
list; when several merges produce one token, "the" producing merge is the lowest ranked.
The navigation lookups (core.navigation.build) are an argument, held beside the index by
whoever built them (the server's document state): an index is never changed to hold them.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress, repeat
from operator import eq, methodcaller

from ..formats.json.merge_layout import RangeRun, part_ranges
from ..index.document import DocumentIndex
from .build import Navigation

Span = tuple[int, int]


def vocab_entry(idx: DocumentIndex, token: str) -> Span | None:
    """The key literal of the token's vocab entry in this index's own file."""
    return idx.span_of_token(token)


def added_entry(idx: DocumentIndex, token: str) -> Span | None:
    """The content literal of the token's added_tokens entry."""
    doc = idx.doc
    spans = (getattr(doc, "_tables", None) or {}).get("added") or []
    entries = getattr(doc, "added_list", [])
    # the matching entries found in C (gemma3 has 6415 added tokens)
    same = map(eq, map(methodcaller("get", "content"), entries[: len(spans)]), repeat(token))
    for k in compress(range(len(spans)), same):
        if spans[k][1] > spans[k][0]:
            return spans[k]
    return None


def producing_merge(idx: DocumentIndex, nav: Navigation | None, token: str) -> tuple[int, Span] | None:
    """(rank, whole merge span) of the lowest-ranked merge whose result is the token."""
    o = idx.ordinal_of(token)
    if nav is None or o is None:
        return None
    rank = nav.producer(o)
    span = idx.merge_span(rank) if rank is not None else None
    return (rank, span) if span is not None else None


def references(idx: DocumentIndex, nav: Navigation | None, token: str, include_declaration: bool) -> list[Span]:
    """Every occurrence of the token in this index's file, in file order: merges using it
    (each part itself), the merges producing it, its added_tokens entry, and its vocab
    entry when the declaration is asked for."""
    uses: list[Span] = []  # by rank then part: already in file order
    o = idx.ordinal_of(token)
    if nav is not None and o is not None:
        uses = [span for span in idx.merge_part_spans(nav.using(o)) if span is not None]
    out = _other_occurrences(idx, nav, token, include_declaration)
    # sorting 40k spans again (`▁` in gemma3) costs more than finding them
    return sorted(set(uses + out)) if out else uses


def _other_occurrences(idx: DocumentIndex, nav: Navigation | None, token: str, include_declaration: bool) -> list[Span]:
    """The occurrences that are not merge parts: producing merges, added and vocab entry."""
    out: list[Span] = []
    o = idx.ordinal_of(token)
    if nav is not None and o is not None:
        for rank in nav.producers(o):
            span = idx.merge_span(rank)
            if span is not None:
                out.append(span)
    added = added_entry(idx, token)
    if added is not None:
        out.append(added)
    if include_declaration:
        decl = vocab_entry(idx, token)
        if decl is not None:
            out.append(decl)
    return out


Range = tuple[tuple[int, int], tuple[int, int]]


def reference_ranges(
    idx: DocumentIndex,
    nav: Navigation | None,
    token: str,
    include_declaration: bool,
    encoding: str,
    use_layout: bool = True,
) -> list[Range | RangeRun]:
    """The ranges of references() in file order, in the client's column encoding: the merge
    parts as one RangeRun (split around the other occurrences) when the merges' layout
    gives their positions (core.formats.json.merge_layout), else each range computed from its span.
    use_layout=False: always the latter (the reference the former is tested against)."""
    run = _layout_parts(idx, nav, token, encoding) if use_layout else None
    if run is None:
        return idx.lines.span_positions(references(idx, nav, token, include_declaration), encoding)
    others = sorted(set(_other_occurrences(idx, nav, token, include_declaration)))
    out: list[Range | RangeRun] = []
    lo = 0
    for span, rng in zip(others, idx.lines.span_positions(others, encoding)):
        i = bisect_left(range(len(run)), span, lo, key=run.span)
        if i < len(run) and run.span(i) == span:
            continue  # a part already (references() keeps each span once)
        if i > lo:
            out.append(run.part(lo, i))
        out.append(rng)
        lo = i
    if lo < len(run):
        out.append(run.part(lo, len(run)))
    return out


def _layout_parts(idx: DocumentIndex, nav: Navigation | None, token: str, encoding: str) -> RangeRun | None:
    o = idx.ordinal_of(token)
    layout = nav.merge_layout if nav is not None else None
    offsets = getattr(idx.doc, "merge_literal_offsets", None)
    literals = offsets() if layout is not None and o is not None and offsets is not None and idx.lookups_ready else None
    if literals is None:
        return None
    return part_ranges(idx.data, idx.lines, layout, literals, nav.use_keys(o), token, encoding)


CUT = "…"  # where a tree was cut by its limits


def split_tree(root, split, max_depth: int = 6, max_nodes: int = 40) -> list[tuple[int, object, int | None]]:
    """`root` split recursively by `split(node) -> (rank, parts)` (no parts: a leaf):
    (depth, node, rank) in depth-first order, a CUT node where the limits stop it."""
    out: list[tuple[int, object, int | None]] = []
    # an explicit stack, not a recursive closure: that is a reference cycle, which kept
    # `split` (and through it a whole index) alive until the next collection
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if len(out) >= max_nodes:
            if out[-1][1] != CUT:
                out.append((depth, CUT, None))
            break
        rank, parts = split(node)
        out.append((depth, node, rank))
        if parts and depth + 1 >= max_depth:
            out.append((depth + 1, CUT, None))
            continue
        stack.extend((part, depth + 1) for part in reversed(parts))
    return out


def merge_tree(
    idx: DocumentIndex, nav: Navigation | None, token: str, max_depth: int = 6, max_nodes: int = 40
) -> list[tuple[int, str, int | None]]:
    """The token split by its producing merge, recursively, down to base tokens (whose
    rank is None)."""
    if nav is None:
        return []

    def by_merge(t: str):
        o = idx.ordinal_of(t)
        rank = nav.producer(o) if o is not None else None
        pair = idx.merge_at(rank) if rank is not None else None
        return (rank, pair) if pair is not None else (None, ())

    return split_tree(token, by_merge, max_depth, max_nodes)
