"""The decoded vocabulary as `decode` prints it: one row per entry (decoded_rows: the
jsonl rows; text_row: one aligned text line of a row).

Shared by the command line (`decode`) and the server (`tokenizer-lsp.decodedVocabulary`),
which renders the open document's index: so the entries are read in the mapping's own
order without a lookup per key (the compact mapping of a served index answers a lookup
in microseconds, which is seconds over a 262k-token vocabulary).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import chain

import orjson

from .compact_vocab import CompactTokens, unwrapped
from .decoding.display import visible_text
from .decoding.tokens import decode_token
from .model import RenamedTokens


def entries(tokens: Mapping[str, int]) -> Iterable[tuple[str, int]]:
    """(token, id) pairs in the mapping's order, as `tokens.items()`, in one pass."""
    tokens = unwrapped(tokens)
    if isinstance(tokens, CompactTokens):
        return zip(tokens, tokens.ids())
    if isinstance(tokens, RenamedTokens) and isinstance(unwrapped(tokens.base), CompactTokens):
        base, removed = unwrapped(tokens.base), tokens.removed
        kept = ((k, i) for k, i in zip(base, base.ids()) if k not in removed) if removed else zip(base, base.ids())
        return chain(kept, tokens.renamed.items())
    return tokens.items()


def text_row(row: dict) -> str:
    """One row of `decode`'s text output, from a row of `decode --format jsonl`."""
    data = bytes.fromhex(row["bytes"])
    stored = orjson.dumps(row["token"]).decode()
    text = row["text"]
    # printable text without a backslash is shown as it is, spaces made visible: what
    # visible_text gives, without its character-by-character pass (most rows)
    shown = (
        text.replace(" ", "\u2423")
        if text is not None and text.isprintable() and "\\" not in text
        else visible_text(data)
    )
    hexed = data.hex(" ").upper()
    tail = row["kind"] if row["utf8"] == "valid" else f"{row['kind']}, {row['utf8']} UTF-8"
    tid = "-" if row["id"] is None else str(row["id"])
    return f"{tid:>7}  {stored:<20} {shown:<16} {hexed:<24} {tail}"


def listing(idx) -> tuple[str, int]:
    """(`decode`'s whole text output for this index, its number of rows)."""
    lines = [text_row(row) for row in decoded_rows(idx)]
    return ("\n".join(lines) + "\n" if lines else ""), len(lines)


def decoded_rows(idx) -> Iterator[dict]:
    """One row per vocabulary entry, as `decode --format jsonl` prints it."""
    v = idx.vocab
    if v is None:
        return
    if idx.format == "merges.txt":
        for rank, merge in enumerate(v.merges or []):
            a, sep, b = merge.partition(" ")
            d = v.decode(v.merge_result(a, b) if sep else merge)
            yield _row(rank, merge, d)
        return
    scheme, special, prefix, suffix = v.scheme, v.special, v.subword_prefix, v.word_suffix
    # a .tiktoken key is the canonical base64 of the bytes; the row shows the field as stored
    stored = idx.doc.stored_fields() if idx.format == "tiktoken" else {}
    for token, tid in entries(v.tokens):  # a served index's compact vocab: no lookup per key
        d = decode_token(token, scheme, token in special, prefix, suffix)
        yield _row(tid, stored.get(token, token), d)
    for token, tid in v.added.items():
        if token not in v.tokens:
            yield _row(tid, token, v.decode(token, in_vocab=False))


def _row(tid, token, d) -> dict:
    return {
        "id": tid,
        "token": token,
        "bytes": d.data.hex(),
        "text": d.text,
        "utf8": d.utf8.value,
        "kind": d.kind.value,
    }
