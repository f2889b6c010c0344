"""orjson parsing of large tokenizer.json texts, with model.merges left for later."""

from __future__ import annotations

import orjson

from ...detect import is_tokenizer_json
from .layout import line_windows, trailing_array_end, value_start

DEFER_MERGES_BYTES = 1 << 20  # smaller files are parsed in one piece


def parse_deferring_merges(data: bytes) -> tuple[object, tuple[int, int] | None]:
    """orjson.loads(data); for a large tokenizer.json, without model.merges, whose source
    range comes back instead. Checking the merges while parsing them in a forked child,
    in parallel with the vocabulary checks here, is what makes opening a file fast.
    Raises orjson.JSONDecodeError like orjson.loads (merges errors come out later)."""
    if len(data) >= DEFER_MERGES_BYTES:
        model = value_start(data, "model")
        start = value_start(data, "merges", model) if model is not None else None
        end = trailing_array_end(data, start) if start is not None else None
        if end is not None:
            view = memoryview(data)
            vocab = value_start(data, "vocab", model, start)
            vocab_end = data.rfind(b"}", vocab, start) + 1 if vocab is not None else 0
            cut = (vocab, vocab_end) if vocab_end > (vocab or 0) and data[vocab : vocab + 1] == b"{" else None
            pieces = (view[: cut[0]], b"{}", view[cut[1] : start]) if cut else (view[:start],)
            try:
                obj = orjson.loads(b"".join((*pieces, b"[]", view[end:])))
            except orjson.JSONDecodeError:
                obj = None
            if is_tokenizer_json(obj) and obj["model"].get("merges") == [] and obj["model"].get("type", "BPE") == "BPE":
                if cut is not None:
                    obj["model"]["vocab"] = _parse_object_in_pieces(data, *cut)
                return obj, (start, end)
    return orjson.loads(data), None


def _parse_object_in_pieces(data: bytes, start: int, end: int) -> dict:
    """orjson.loads(data[start:end]) for a flat object, 64 KB at a time: one
    call on the whole vocab holds the interpreter for 60 ms, and hovers wait for it."""
    out: dict = {}
    view = memoryview(data)
    for lo, hi in line_windows(data, start + 1, end - 1, 1 << 16):
        body = view[lo:hi].tobytes().rstrip()
        if body.endswith(b","):
            if hi >= end - 1:  # a comma before the closing brace: orjson says where
                return orjson.loads(view[start:end])
            body = body[:-1]
        try:
            part = orjson.loads(b"{" + body + b"}")
        except orjson.JSONDecodeError:  # not one entry per line: the object in one go
            return orjson.loads(view[start:end])
        out.update(part)
    return out
