"""Hover text: decoded text, bytes, id, code points; fragments explained; merges in full."""

from __future__ import annotations

from ..decoding.display import code_points, code_span, hex_bytes, visible_text
from ..decoding.tokens import Kind
from ..decoding.utf8 import Utf8Kind, describe_fragment
from ..index import DocumentIndex
from .tokens import Piece


def _label(p: Piece, idx: DocumentIndex) -> str:
    v = idx.vocab
    if p.role == "tiktoken":
        return "tiktoken token"
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


def hover_markdown(idx: DocumentIndex, p: Piece) -> str:
    d = p.decoded
    shown = visible_text(d.data)
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
    lines.append(f"- bytes: {code_span(hex_bytes(d.data)) if d.data else '(empty)'} ({len(d.data)} byte{'s' if len(d.data) != 1 else ''})")
    if d.utf8 is Utf8Kind.VALID:
        if d.data:
            lines.append(f"- code points: {code_points(d.data.decode('utf-8'))}")
    else:
        lines.append(f"- {describe_fragment(d.data)}")
    if p.token != d.text:
        lines.append(f"- stored as: {code_span(p.token)}")
    if p.role == "merge" and p.merge is not None:
        lines.extend(_merge_lines(idx, p))
    return "\n".join(lines)


def _merge_lines(idx: DocumentIndex, p: Piece) -> list[str]:
    v = idx.vocab
    a, b = p.merge
    result = v.merge_result(a, b)
    rid = v.tokens.get(result)
    show = [visible_text(v.decode(t).data) for t in (a, b, result)]
    rid_text = f"id {rid}" if rid is not None else "**not in the vocabulary**"
    return [
        "",
        f"**merge rank {p.rank}**: {code_span(show[0])} + {code_span(show[1])} → {code_span(show[2])} ({rid_text})",
        "",
        f"- stored: {code_span(a)} + {code_span(b)} → {code_span(result)}",
        f"- result bytes: {code_span(hex_bytes(v.decode(result).data))}",
    ]
