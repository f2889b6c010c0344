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

from ..compact_vocab import CompactTokens, unwrapped
from ..model import RenamedTokens
from .columns import ELLIPSIS, cell
from .display import visible_text
from .tokens import decode_token


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


# column widths of `decode`'s text rows (display columns); the decoded view's header names them
STORED_COLUMNS, TEXT_COLUMNS, HEX_COLUMNS = 20, 16, 24
_HEX_BYTES = 7  # bytes shown in the hex column when they do not all fit ("3C 7C … " = 23 columns)


def text_row(row: dict, extra: str = "") -> str:
    """One row of `decode`'s text output, from a row of `decode --format jsonl`; `extra`
    goes after the kind (the decoded view's piece type)."""
    return text_row_and_stored(row, extra)[0]


def text_row_and_stored(row: dict, extra: str = "") -> tuple[str, int]:
    """(the row, the index in it of the whole stored form). Every column keeps its width in
    a terminal (double-width CJK counts two): a stored form or text wider than its column
    is cut with `…`, and the whole stored form then ends the row, so a long special token
    is still there in full (and findable) without pushing the columns after it."""
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
    if len(hexed) > HEX_COLUMNS:
        hexed = data[:_HEX_BYTES].hex(" ").upper() + " " + ELLIPSIS
    tail = row["kind"] if row["utf8"] == "valid" else f"{row['kind']}, {row['utf8']} UTF-8"
    tid = "-" if row["id"] is None else str(row["id"])
    stored_cell, cut = cell(stored, STORED_COLUMNS)
    head = f"{tid:>7}  "
    line = f"{head}{stored_cell} {cell(shown, TEXT_COLUMNS)[0]} {hexed:<{HEX_COLUMNS}} {tail}{extra}"
    if not cut:
        return line, len(head)
    return f"{line}  {stored}", len(line) + 2


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
