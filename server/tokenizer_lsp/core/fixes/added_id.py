"""Ids that disagree with the vocabulary: an added token's `id` (added-token-mismatch) and a
tokenizer_config.json `added_tokens_decoder` key (config-id-mismatch), set to the vocab's."""

from __future__ import annotations

import re

from ..formats.json.components import member_span
from ..formats.json.doc import JsonDocument
from ..formats.json.layout import array_element_spans, value_span
from ..index.document import DocumentIndex
from .fix import QUICKFIX, Fix


def set_added_id(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """Write the vocabulary's id into the added token's entry. It means the same: on load
    the vocab id wins anyway. Safe (fixAll) unless another added token holds that id."""
    doc, v = idx.doc, idx.vocab
    if not isinstance(doc, JsonDocument) or v is None or doc.added_start is None:
        return []
    spans = (doc._tables or {}).get("added") or doc._added_content_spans()
    k = next((k for k, (s, e) in enumerate(spans) if s <= start < e or s == start), None)
    if k is None or k >= len(doc.added_list):
        return []
    entry = doc.added_list[k]
    content, vid = (
        entry.get("content"),
        v.tokens.get(entry.get("content")) if isinstance(entry.get("content"), str) else None,
    )
    if vid is None or vid == entry.get("id"):
        return []
    place = doc.added_positions[k]
    element = array_element_spans(idx.data, doc.added_start, {place}).get(place)
    found = member_span(idx.data, element[0], "id") if element else None
    value = value_span(idx.data, found[0][1]) if found else None
    if value is None:
        return []
    clash = any(a.get("id") == vid for j, a in enumerate(doc.added_list) if j != k)
    title = f"Set the id of added token `{content}` to {vid}, its vocabulary id"
    return [
        Fix(
            title + (" (another added token has it)" if clash else ""),
            QUICKFIX,
            "added-token-mismatch",
            (start, end),
            preferred=not clash,
            safe=not clash,
            edits=[(value[0], value[1], str(vid).encode())],
        )
    ]


_VOCAB_ID = re.compile(r"is id (\d+) in ")


def set_decoder_key(idx: DocumentIndex, start: int, end: int, message: str = "") -> list[Fix]:
    """Rename an `added_tokens_decoder` key to the id the tokenizer gives its token (the
    finding's message names it: a config index does not hold the tokenizer's ids)."""
    doc = idx.doc
    item_at = getattr(doc, "item_at", None)
    item = item_at(start) if item_at is not None else None
    found = _VOCAB_ID.search(message)
    if item is None or item.role != "decoder-key" or found is None:
        return []
    tid = int(found.group(1))
    taken = any(i.role == "decoder-key" and i.tid == tid and i.start != item.start for i in doc.items)
    title = f"Set the added_tokens_decoder key of `{item.token}` to {tid}, its id in the tokenizer"
    return [
        Fix(
            title + (" (the key is taken)" if taken else ""),
            QUICKFIX,
            "config-id-mismatch",
            (start, end),
            preferred=not taken,
            edits=[(item.start, item.end, b'"%d"' % tid)],
        )
    ]
