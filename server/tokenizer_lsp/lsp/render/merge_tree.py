"""Hover lines about merges: the merge that makes a token, how many use it, its tree."""

from __future__ import annotations

from ...core.decoding.display import clipped, code_span, visible_text
from ...core.formats.tiktoken.split import inferred_split, rank_lookup
from ...core.index.document import DocumentIndex
from ...core.navigation.build import Navigation
from ...core.navigation.pieces import Piece
from ...core.navigation.queries import CUT, merge_tree, split_tree

MAX_DEPTH, MAX_NODES = 6, 40


def _shown(data: bytes) -> str:
    return code_span(visible_text(clipped(data, 64)[0]) or "∅")


def _tree_lines(nodes, data_of) -> list[str]:
    out = []
    for depth, node, rank in nodes:
        indent = "  " * (depth + 1)
        if node == CUT:
            out.append(f"{indent}- {CUT}")
        else:
            out.append(f"{indent}- {_shown(data_of(node))}" + (f" rank {rank}" if rank is not None else " (base)"))
    return out


def merge_lines(idx: DocumentIndex, nav: Navigation | None, p: Piece) -> list[str]:
    """The merge lines of a hover, from the index's navigation lookups (none: not built yet)."""
    v = idx.vocab
    if nav is None or v is None:
        return []
    if p.role == "tiktoken":
        return _tiktoken_lines(idx, p)
    o = idx.ordinal_of(p.token)
    if o is None:
        return []
    out = [""]
    rank = nav.producer(o)
    pair = idx.merge_at(rank) if rank is not None else None
    if pair is not None:
        a, b = (_shown(v.decode(t).data) for t in pair)
        out.append(f"- made by merge rank {rank}: {a} + {b}")
    elif nav.merge_count == 0:
        return []  # no merges to tell of (WordPiece, a vocab.json without its merges file)
    else:
        out.append("- an added token: no merge makes it" if p.token in v.added else "- made by no merge (a base token)")
    n = nav.uses(o)
    out.append(f"- used by {n} merge{'s' if n != 1 else ''} as a part")
    if pair is not None:
        out.append("- merge tree:")
        out += _tree_lines(merge_tree(idx, nav, p.token, MAX_DEPTH, MAX_NODES), lambda t: v.decode(t).data)
    return out


def _tiktoken_lines(idx: DocumentIndex, p: Piece) -> list[str]:
    rank, data = p.token_id, p.decoded.data
    if rank is None or len(data) < 2:
        return []
    lookup = rank_lookup(idx.vocab.tokens)
    parts = inferred_split(data, rank, lookup)
    if len(parts) != 2:
        return [
            "",
            f"- no single merge builds it (inferred: merging with lower ranks stops at "
            f"{len(parts)} pieces: {' + '.join(_shown(x) for x in parts[:8])}{' …' if len(parts) > 8 else ''})",
        ]

    def inferred(piece: bytes):
        r = lookup(piece)
        sub = inferred_split(piece, r, lookup) if r is not None and len(piece) > 1 else []
        return r, tuple(sub) if len(sub) == 2 else ()

    out = [
        "",
        f"- made by merge rank {rank} (inferred): {_shown(parts[0])} + {_shown(parts[1])}",
        "- merge tree (inferred):",
    ]
    return out + _tree_lines(split_tree(data, inferred, MAX_DEPTH, MAX_NODES), lambda b: b)
