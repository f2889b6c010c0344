"""Inlay hints: the decoded text after each literal whose stored form differs from it."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ..decoding.display import clipped, hex_bytes, visible_text
from ..index import DocumentIndex
from .tokens import pieces

MAX_LABEL = 40  # VS Code cuts labels at 43 characters


@dataclass(frozen=True)
class Hint:
    offset: int  # where the hint sits: right after the literal or merge part
    label: str
    tooltip: str


def _has_space_or_control(data: bytes) -> bool:
    """Whitespace or control characters among the decoded characters (a raw 0xA0 byte is
    the second byte of `à`, not a no-break space)."""
    text = data.decode("utf-8", "replace")
    return any(c.isspace() or unicodedata.category(c) in _INVISIBLE for c in text)


_INVISIBLE = ("Cc", "Cf", "Zs", "Zl", "Zp")


def hints_in(idx: DocumentIndex, start: int, end: int, mode: str = "all") -> list[Hint]:
    if mode == "off" or idx.vocab is None:
        return []
    out: list[Hint] = []
    for ref in idx.tokens_in(start, end):
        ps = pieces(idx, ref)
        for i, p in enumerate(ps):
            d = p.decoded
            if p.role != "tiktoken" and d.text == p.token:
                continue
            if d.continues and d.text == p.token[len(d.continues):]:
                continue  # `##ing` reads as it is: the hover explains the prefix
            if mode == "whitespace" and not _has_space_or_control(d.data):
                continue
            label = visible_text(clipped(d.data, MAX_LABEL * 4)[0]) or "∅"
            if len(label) > MAX_LABEL:
                label = label[: MAX_LABEL - 1] + "…"
            # the last piece of a literal sits after the literal (after its closing quote)
            at = ref.end if i == len(ps) - 1 else p.end
            head, left = clipped(d.data, 64)
            tip = f"bytes {hex_bytes(head)}{f' … ({left} more)' if left else ''}" if d.data else "empty token"
            if p.token_id is not None:
                tip += f" · {'rank' if p.role == 'tiktoken' else 'id'} {p.token_id}"
            out.append(Hint(at, label, tip))
    return out
