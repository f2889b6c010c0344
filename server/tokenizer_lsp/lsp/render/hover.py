"""Hover text: decoded text, bytes, id, code points; fragments explained; merges in full."""

from __future__ import annotations

from ...core.decoding.display import clipped, code_points, code_span, escaped, hex_bytes, visible_text
from ...core.decoding.tokens import Kind
from ...core.decoding.utf8 import Utf8Kind, describe_fragment
from ...core.index.document import DocumentIndex
from ...core.navigation.pieces import Piece
from .merge_tree import merge_lines


def _label(p: Piece, idx: DocumentIndex) -> str:
    v = idx.vocab
    if p.role == "tiktoken":
        return "tiktoken token"
    if getattr(idx.doc, "hover_lines", None) is not None:  # a plug-in's table: never matched literally
        return "special token" if p.token in v.special else f"{idx.format} token"
    if p.token in v.added and p.token in v.special:
        return "special token (added token, matched literally)"
    if p.token in v.added:
        return "added token (matched literally)"
    return {
        Kind.BYTE_LEVEL: "byte-level token",
        Kind.BYTE_FALLBACK: "byte-fallback token",
        Kind.SPECIAL: "special token",
        Kind.LITERAL: "token",
    }[p.decoded.kind]


MAX_BYTES = 256  # a hover about a line of megabytes stays a hover


def _more(n: int) -> str:
    return f" … ({n} more bytes)" if n else ""


def hover_markdown(idx: DocumentIndex, p: Piece, navigation=None) -> str:
    """navigation: the index's navigation lookups (core.navigation.build), when built."""
    d = p.decoded
    head_data, left = clipped(d.data, MAX_BYTES)
    shown = visible_text(head_data) + ("…" if left else "")
    lines = []
    ident = "rank" if p.role == "tiktoken" else "id"
    head = f"{code_span(shown)} — {_label(p, idx)}"
    if p.role == "merge":
        head = f"{code_span(shown)} — merge part {p.part + 1} of 2, {_label(p, idx)}"
    if p.token_id is not None:
        head += f", {ident} {p.token_id}"
    elif p.role == "merge":
        head += ", **not in the vocabulary**"
    if d.utf8 is not Utf8Kind.VALID:
        head += " — **UTF-8 fragment**"
    lines.append(head)
    lines.append("")
    lines.append(
        f"- bytes: {code_span(hex_bytes(head_data)) if d.data else '(empty)'}{_more(left)} "
        f"({len(d.data)} byte{'s' if len(d.data) != 1 else ''})"
    )
    if d.utf8 is Utf8Kind.VALID:
        if d.data:
            cps, cps_left = clipped(d.data, 64)
            lines.append(f"- code points: {code_points(cps.decode('utf-8', 'ignore'))}{' …' if cps_left else ''}")
    else:
        lines.append(f"- {describe_fragment(d.data) if not left else 'not valid UTF-8'}")
    if d.continues:
        lines.append(
            f"- continues the previous word: WordPiece prefix {code_span(d.continues)}, "
            "dropped when decoding (no space before it)"
        )
    if d.ends_word:
        lines.append(f"- ends a word: suffix {code_span(d.ends_word)}, decoded as a space")
    if p.role == "tiktoken":
        kept = idx.vocab.tokens.get(p.token) if idx.vocab is not None else None
        if kept is not None and kept != p.token_id:
            # tiktoken's loader builds a dict from the lines: the last rank of repeated bytes wins
            lines.append(
                f"- the same bytes come again at rank {kept}: tiktoken keeps that last rank, "
                f"so rank {p.token_id} is never used"
            )
    if p.token != d.text:
        lines.append(f"- stored as: {code_span(_stored(p.token))}")
    table_lines = getattr(idx.doc, "hover_lines", None)  # a plug-in's table: its library's id
    if table_lines is not None:
        lines.extend(table_lines(p.token_id))
    if p.role == "merge" and p.merge is not None:
        lines.extend(_merge_lines(idx, p))
    lines.extend(merge_lines(idx, navigation, p))  # once the navigation lookups are built
    return "\n".join(lines)


def _merge_lines(idx: DocumentIndex, p: Piece) -> list[str]:
    v = idx.vocab
    a, b = p.merge
    result = v.merge_result(a, b)
    rid = v.tokens.get(result)
    show = [visible_text(clipped(v.decode(t).data, MAX_BYTES)[0]) for t in (a, b, result)]
    rid_text = f"id {rid}" if rid is not None else "**not in the vocabulary**"
    return [
        "",
        f"**merge rank {p.rank}**: {code_span(show[0])} + {code_span(show[1])} → {code_span(show[2])} ({rid_text})",
        "",
        f"- stored: {code_span(_stored(a))} + {code_span(_stored(b))} → {code_span(_stored(result))}",
        f"- result bytes: {code_span(hex_bytes(clipped(v.decode(result).data, MAX_BYTES)[0]))}"
        f"{_more(clipped(v.decode(result).data, MAX_BYTES)[1])}",
    ]


def _stored(token: str) -> str:
    """A stored form on one line and of bounded length (gemma3 stores raw newlines)."""
    text = escaped(token)
    return text if len(text) <= MAX_BYTES else text[:MAX_BYTES] + "…"
