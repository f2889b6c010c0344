"""Inlay hints: the decoded text after each literal whose stored form differs from it."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ...core.decoding.display import clipped, hex_bytes, visible_text
from ...core.index.document import DocumentIndex
from ...core.navigation.pieces import pieces

MAX_LABEL = 40  # VS Code cuts labels at 43 characters


@dataclass(frozen=True)
class Hint:
    offset: int  # where the hint sits: right after the literal or merge part
    label: str
    tooltip: str


def _has_space_or_control(data: bytes) -> bool:
    """Whitespace or control characters among the decoded characters (a raw 0xA0 byte is
    the second byte of `à`, not a no-break space): spaces of every kind (U+0020, U+00A0,
    U+2009, U+3000...), \\t \\n \\r, C0 and C1 controls (U+0085), line and paragraph
    separators, format characters (U+200B, U+FEFF).

    Fragments: only their complete characters are judged. The bytes of a cut sequence
    (`\\xE2\\x80`, which could become U+2028 or a dash alike) are not a character yet, so
    they do not by themselves make a hint in this mode; `all` mode shows every fragment."""
    text = data.decode("utf-8", "replace")
    return any(c.isspace() or unicodedata.category(c) in _INVISIBLE for c in text)


_INVISIBLE = ("Cc", "Cf", "Zs", "Zl", "Zp")


# literals looked at per request: Neovim 0.11 asks for the whole document (262k hints on
# qwen3 took 11-41 s, and the requests after it waited); VS Code asks for the visible lines
MAX_LITERALS = 5000


def hints_in(idx: DocumentIndex, start: int, end: int, mode: str = "all") -> list[Hint]:
    if mode == "off" or idx.vocab is None or not getattr(idx.doc, "hints", True):
        return []
    out: list[Hint] = []
    # a plug-in's table (tekken, vocab.txt): the id its library gives is what the text
    # lacks, so every entry gets a hint naming it (a vocab.txt id is its line, never written)
    by_id = getattr(idx.doc, "hover_lines", None) is not None
    for ref in idx.tokens_in(start, end, MAX_LITERALS):
        ps = pieces(idx, ref)
        for i, p in enumerate(ps):
            d = p.decoded
            same = d.text == p.token
            if p.role != "tiktoken" and same and not (by_id and mode == "all"):
                continue
            if mode == "whitespace" and not _has_space_or_control(d.data):
                continue
            label = "" if same else visible_text(clipped(d.data, MAX_LABEL * 4)[0]) or "∅"
            if len(label) > MAX_LABEL:
                label = label[: MAX_LABEL - 1] + "…"
            if by_id and p.token_id is not None:
                label = f"{label} · id {p.token_id}" if label else f"id {p.token_id}"
            # the last piece of a literal sits after the literal (after its closing quote)
            at = ref.end if i == len(ps) - 1 else p.end
            head, left = clipped(d.data, 64)
            tip = f"bytes {hex_bytes(head)}{f' … ({left} more)' if left else ''}" if d.data else "empty token"
            if p.token_id is not None:
                tip += f" · {'rank' if p.role == 'tiktoken' else 'id'} {p.token_id}"
            if d.continues:  # `##ing` decodes to `ing`: a WordPiece continuation
                tip += f" · continues the previous word (prefix {d.continues} dropped)"
            if d.ends_word:
                tip += f" · ends a word ({d.ends_word} decoded as a space)"
            out.append(Hint(at, label, tip))
    return out
