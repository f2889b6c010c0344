"""encode with SentencePiece's own engine (the `sentencepiece` package), loaded from the
model's bytes: only `encode` and the unreachable-token check load it, never `decode`."""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate

from .wire import LEN, VARINT, fields


@lru_cache(maxsize=2)
def processor(model: bytes):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor()
    sp.LoadFromSerializedProto(model)
    return sp


def encode_spans(model: bytes, text: str, special: bool) -> list[tuple[int, int, int]]:
    """(id, start, end) of each piece, start/end in code points of `text`. The ids are
    `encode(text, add_bos=special)`'s; BOS covers nothing (0, 0). Lone surrogates (input
    bytes that were not UTF-8) are U+FFFD to the engine, as for the other engines."""
    clean = text if _utf8_ok(text) else text.encode("utf-8", "replace").decode("utf-8")
    sp = processor(model)
    ids = sp.encode(clean, add_bos=special)
    spans = _offsets(sp, clean)
    if special and len(ids) == len(spans) + 1:
        spans = [(0, 0), *spans]
    if len(spans) != len(ids):  # never seen; the ids are what counts
        spans = [(0, 0)] * len(ids)
    return [(i, s, e) for i, (s, e) in zip(ids, spans)]


def _offsets(sp, text: str) -> list[tuple[int, int]]:
    try:  # sentencepiece 0.2.1+: code point offsets for str input
        return list(sp.encode(text, out_type="offset_mapping")["offsets"])
    except (ValueError, TypeError, KeyError):
        pass
    # older releases: the serialized SentencePieceText (pieces = 2: begin 4, end 5 in bytes)
    raw = sp.encode(text, out_type="serialized_proto")
    ends = list(accumulate(len(c.encode("utf-8")) for c in text))

    def char_at(b: int) -> int:
        return bisect_right(ends, b - 1) if b > 0 else 0

    out = []
    for number, wire, value, _ in fields(raw):
        if number == 2 and wire == LEN:
            got = {n: v for n, w, v, _ in fields(raw, *value) if w == VARINT}
            out.append((char_at(got.get(4, 0)), char_at(got.get(5, 0))))
    return out


def encode_ids(model: bytes, text: str, special: bool = False) -> list[int]:
    return processor(model).encode(text, add_bos=special)


def _utf8_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False
