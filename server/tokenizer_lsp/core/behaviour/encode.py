"""Encode text with a loaded tokenizer: ids exactly as its engine gives them, and for each
token its stored form, bytes, decoded text and the span of the input it covers.

Lone surrogates: a Python str may hold them (a JSON `\\ud800`, argv bytes that are not
UTF-8), but they have no UTF-8 form. tiktoken's own `encode_ordinary` then re-encodes the
text as `text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")`: each lone
surrogate becomes U+FFFD (and a split surrogate pair is joined). HF tokenizers refuses such
text outright (TypeError: TextInputSequence must be str), so there is nothing else to
mirror: both engines get tiktoken's replacement, and offsets are mapped back to the text
as given. NUL and other control characters need nothing: both engines take them as they
are.
"""

from __future__ import annotations

import base64
import re
from bisect import bisect_right

from ..decoding.columns import ELLIPSIS, cell
from ..decoding.display import hex_bytes, visible_text
from ..decoding.tokens import decode_token
from ..decoding.utf8 import Utf8Kind, classify
from .loaded import LoadedTokenizer, TokenDecoding

_SURROGATE = re.compile("[\ud800-\udfff]")


def encode(loaded: LoadedTokenizer, text: str, special: bool = False, path: str | None = None) -> dict:
    """{"ids": [...], "tokens": [{"id", "token", "bytes", "text", "start", "end"}], "notes": [...]}:
    ids equal to `Tokenizer.encode(text, add_special_tokens=special).ids`, or tiktoken's
    `encode_ordinary(text)` (which has no special tokens to add). With `special` and a
    tokenizer_config.json beside the tokenizer.json at `path`, a note names the rule the
    special tokens followed (core/behaviour/special_rule.py: the file's post-processor, as
    transformers 5's AutoTokenizer applies it). `notes` say what else shaped the ids: the
    file's padding and truncation."""
    clean, back = encodable(text)
    notes: list[str] = list(loaded.notes)
    if loaded.kind == "tiktoken":
        ids, rows = _tiktoken_rows(loaded, clean)
    else:
        rule = None
        if special and loaded.source == "tokenizer.json":
            from .special_rule import special_rule

            rule = special_rule(loaded.engine, path)
        if rule is not None:
            notes.append(rule.note)
        ids, rows = _tokenizers_rows(loaded, clean, special, notes)
    if back is not None:
        for row in rows:
            row["start"], row["end"] = back[row["start"]], back[row["end"]]
    out = {"ids": ids, "tokens": rows}
    if notes:
        out["notes"] = notes
    return out


def encodable(text: str) -> tuple[str, list[int] | None]:
    """The text the engines can take (lone surrogates replaced as tiktoken does), and when
    that changed its length (a split surrogate pair joined), the original offset of every
    code point of it and of its end."""
    if _SURROGATE.search(text) is None:
        return text, None
    clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if len(clean) == len(text):
        return clean, None
    back, i = [], 0
    while i < len(text):
        back.append(i)
        pair = "\ud800" <= text[i] <= "\udbff" and i + 1 < len(text) and "\udc00" <= text[i + 1] <= "\udfff"
        i += 2 if pair else 1
    back.append(len(text))
    return clean, back


def _shaping_notes(engine, enc) -> list[str]:
    """The file's padding and truncation, applied as tokenizers applies them, said."""
    notes = []
    trunc = engine.truncation
    if trunc and enc.overflowing:
        notes.append(
            f"truncated to {trunc.get('max_length')} by tokenizer.json's truncation "
            f"({trunc.get('direction', 'right')} side cut: the rest of the text is not in these ids)"
        )
    pad = engine.padding
    pads = list(enc.attention_mask).count(0) if pad else 0
    if pads:
        how = f"length {pad['length']}" if pad.get("length") else "to the longest of the batch"
        notes.append(
            f"padded to {len(enc.ids)} by tokenizer.json's padding ({how}, {pads} × "
            f"{pad.get('pad_token')!s} on the {pad.get('direction', 'right')})"
        )
    return notes


def _tokenizers_rows(
    loaded: LoadedTokenizer, text: str, special: bool, notes: list[str] | None = None
) -> tuple[list[int], list[dict]]:
    enc = loaded.engine.encode(text, add_special_tokens=special)
    if notes is not None:
        notes.extend(_shaping_notes(loaded.engine, enc))
    decoding = loaded.decoding
    if decoding is None:
        from .load import token_decoding

        decoding = token_decoding(loaded.engine)
    ids = list(enc.ids)
    rows = []
    prev_start = prev_end = 0
    n = len(text)
    # an id's bytes and text are the same at every occurrence: decoded once per call (a
    # 100 KB text is ~30,000 tokens of a few thousand distinct ids)
    seen: dict[int, dict] = {}
    for tid, token, (start, end) in zip(ids, enc.tokens, enc.offsets):
        # tokens the post-processor adds (BOS/EOS) cover nothing: (0, 0) even at the end;
        # keep them where they stand so offsets never go back
        if start == end:
            start = end = min(max(prev_end, start), n)
        else:
            start, end = min(max(start, prev_start), n), min(end, n)
            end = max(end, start)
        prev_start, prev_end = start, max(prev_end, end)
        first = seen.get(tid)
        if first is None:
            first = seen[tid] = _row(tid, token, _token_bytes(token, tid, decoding), start, end)
            rows.append(first)
        else:
            rows.append({**first, "start": start, "end": end})
    return ids, rows


def _token_bytes(token: str, tid: int, decoding: TokenDecoding) -> bytes:
    if tid in decoding.added_only:
        return token.encode("utf-8", "surrogatepass")
    return decode_token(token, decoding.scheme, False, decoding.subword_prefix, decoding.word_suffix).data


def _tiktoken_rows(loaded: LoadedTokenizer, text: str) -> tuple[list[int], list[dict]]:
    enc = loaded.engine
    ids = enc.encode_ordinary(text)
    pieces = enc.decode_tokens_bytes(ids)
    char_at = _char_index(text)
    rows = []
    pos = 0  # byte offset into the text's UTF-8 (the pieces concatenate to exactly it)
    for tid, data in zip(ids, pieces):
        start = char_at(pos)
        end = char_at(pos + len(data) - 1) + 1 if data else start
        pos += len(data)
        rows.append(_row(tid, base64.b64encode(data).decode("ascii"), data, start, end))
    return ids, rows


def _char_index(text: str):
    """byte offset in text's UTF-8 -> index of the code point that byte belongs to."""
    if text.isascii():
        return lambda b: min(b, len(text))
    starts, b = [], 0
    for ch in text:
        starts.append(b)
        o = ord(ch)
        b += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
    return lambda at: bisect_right(starts, at) - 1 if at < b else len(text)


def _row(tid: int, token: str, data: bytes, start: int, end: int) -> dict:
    kind = classify(data)
    return {
        "id": tid,
        "token": token,
        "bytes": data.hex(),
        "text": data.decode("utf-8") if kind is Utf8Kind.VALID else None,
        "start": start,
        "end": end,
    }


# ---- for people ------------------------------------------------------------------------------


def render_text(result: dict, text: str) -> str:
    """One line per token (id, decoded text with invisibles escaped, stored form, bytes, the
    span of the input), a header line and a footer line. Columns keep their width in a
    terminal (double-width CJK counts two); a text or stored form wider than its column is
    cut with `…`, and the whole stored form then ends the line."""
    import orjson

    lines = [f"{'id':>8}  {'text':<18} {'token':<22} {'bytes':<24} chars"]
    for t in result["tokens"]:
        data = bytes.fromhex(t["bytes"])
        try:
            stored = orjson.dumps(t["token"]).decode()
        except TypeError:  # a lone surrogate in a stored form
            stored = repr(t["token"])
        stored_cell, cut = cell(stored, 22)
        hexed = hex_bytes(data) if len(data) <= 8 else f"{hex_bytes(data[:7])} {ELLIPSIS}"
        line = f"{t['id']:>8}  {cell(visible_text(data), 18)[0]} {stored_cell} {hexed:<24} {t['start']}-{t['end']}"
        lines.append(f"{line}  {stored}" if cut else line)
    n = len(result["ids"])
    lines.append(f"{n} token{'s' if n != 1 else ''} for {len(text)} character{'s' if len(text) != 1 else ''}")
    lines.extend(result.get("notes", ()))
    return "\n".join(lines)
