"""The outline of a tokenizer file: its sections with counts, one child per added token,
never one entry per vocabulary token (VS Code caps outlines at 5000 items anyway).

Section ranges come from a bracket scan that jumps over the vocabulary and the merges,
whose extents the literal tables already know: the rest of a tokenizer.json is small.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..decoding.display import visible_text
from ..formats.json.layout import STRING
from ..index.document import DocumentIndex

_SCAN = re.compile(STRING + rb"|[{}\[\],:]")
_SECTIONS = (
    "version",
    "truncation",
    "padding",
    "added_tokens",
    "normalizer",
    "pre_tokenizer",
    "post_processor",
    "decoder",
    "model",
)


@dataclass
class Section:
    name: str
    detail: str
    kind: str  # "module" | "array" | "object" | "key" | "string" | "number"
    start: int
    end: int
    select_start: int
    select_end: int
    children: list[Section] = field(default_factory=list)


def outline(idx: DocumentIndex) -> list[Section]:
    doc, v = idx.doc, idx.vocab
    if doc is None or v is None:
        return []
    n = len(idx.data)
    if idx.format == "merges.txt":
        count = len(v.merges or [])
        return [Section(f"merges ({count:,})", "merges file", "array", 0, n, 0, min(n, 1))]
    sections = getattr(doc, "sections", None)  # a plug-in's table (tekken, vocab.txt)
    if sections is not None:
        return [Section(name, detail, "array", s, e, s, min(e, s + 1)) for name, detail, s, e in sections()]
    if idx.format == "tiktoken":
        return [Section(f"ranks ({len(v.tokens):,})", "tiktoken", "array", 0, n, 0, min(n, 1))]
    if idx.format == "vocab.json":
        return [Section(f"vocab ({len(v.tokens):,})", "token -> id", "object", 0, n, 0, min(n, 1))]
    return _tokenizer_json(idx)


def _skips(idx: DocumentIndex) -> dict[int, int]:
    """Start -> end of the big regions the scan jumps over (vocab and merges values)."""
    doc, data = idx.doc, idx.data
    out: dict[int, int] = {}
    tables = getattr(doc, "_tables", None) or {}
    vocab = tables.get("vocab")
    if vocab is not None and len(vocab) and doc.vocab_start is not None:
        last = vocab.span(len(vocab) - 1)[1]
        close = data.find(b"]", data.find(b"]", last) + 1) if doc.unigram else data.find(b"}", last)
        if close > 0:
            out[doc.vocab_start] = close + 1
    merges = getattr(doc, "_merges_text", None)
    if merges is not None:
        out[merges[0]] = merges[1]
    return out


def _tokenizer_json(idx: DocumentIndex) -> list[Section]:
    data = idx.data
    skips = _skips(idx)
    found: dict[tuple[int, str], tuple[int, int]] = {}  # (depth, key) -> (key start, value end)
    stack: list[tuple[int, str | None]] = []  # (value start, key) of open containers
    key: tuple[int, int, str] | None = None  # the last key seen: start, end, name
    pending: list[tuple[int, str, int, int]] = []  # values whose end we wait for: depth, key, key start, value start
    pos = data.find(b"{")
    after_key = re.compile(rb"\s*:")
    while 0 <= pos < len(data):
        m = _SCAN.search(data, pos)
        if m is None:
            break
        if m.start() in skips:  # a vocab or merges value: its end is known
            pos = skips[m.start()]
            _close_pending(pending, len(stack), pos, found)
            continue
        tok, pos = m.group(), m.end()
        if tok == b"{" or tok == b"[":
            stack.append((m.start(), key[2] if key else None))
            key = None
        elif tok == b"}" or tok == b"]":
            if stack:
                stack.pop()
            _close_pending(pending, len(stack), m.end(), found)
        elif tok == b",":
            _close_pending(pending, len(stack), m.start(), found)
            key = None
        elif tok == b":":
            if key is not None:
                pending.append((len(stack), key[2], key[0], m.end()))
        elif len(stack) <= 2 and after_key.match(data, m.end()) is not None:
            key = (m.start(), m.end(), tok[1:-1].decode("utf-8", "replace"))
        if not stack:
            break
    return _sections(idx, found)


def _close_pending(pending, depth: int, end: int, found) -> None:
    while pending and pending[-1][0] >= depth:
        d, name, key_start, _ = pending.pop()
        found.setdefault((d, name), (key_start, end))


def _sections(idx: DocumentIndex, found) -> list[Section]:
    v, doc = idx.vocab, idx.doc
    out: list[Section] = []
    for name in _SECTIONS:
        where = found.get((1, name))
        if where is None:
            continue
        s, e = where
        sel = (s, s + len(name) + 2)
        if name == "added_tokens":
            sec = Section(f"added_tokens ({len(doc.added_list):,})", "", "array", s, e, *sel)
            spans = (getattr(doc, "_tables", None) or {}).get("added") or []
            for entry, (cs, ce) in zip(doc.added_list, spans):
                if ce <= cs:
                    continue
                es = idx.data.rfind(b"{", s, cs)
                ee = idx.data.find(b"}", ce)
                content = entry.get("content", "")
                label = visible_text(content.encode("utf-8", "surrogatepass")) or "∅"
                detail = f"id {entry.get('id')}" + (", special" if entry.get("special") else "")
                sec.children.append(
                    Section(label, detail, "key", es if es >= 0 else cs, ee + 1 if ee >= 0 else ce, cs, ce)
                )
        elif name == "model":
            sec = Section("model", v.model_type, "module", s, e, *sel)
            for sub, label in (
                ("vocab", f"vocab ({len(v.tokens):,})"),
                ("merges", f"merges ({getattr(doc, 'merge_count', 0) or len(idx.merges()):,})"),
            ):
                w = found.get((2, sub))
                if w is not None:
                    sec.children.append(
                        Section(
                            label, "", "array" if sub == "merges" else "object", w[0], w[1], w[0], w[0] + len(sub) + 2
                        )
                    )
        else:
            sec = Section(name, "", "object", s, e, *sel)
        out.append(sec)
    return out
