"""The decoded vocabulary as `decode` prints it in text format: one aligned row per entry.

Shared by the command line (`decode`) and the server (`tokenizer-lsp.decodedVocabulary`),
which renders the open document's index: so the entries are read in the mapping's own
order without a lookup per key (the compact mapping of a served index answers a lookup
in microseconds, which is seconds over a 262k-token vocabulary).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain

import orjson

from .compact_vocab import CompactTokens
from .decoding.display import visible_text
from .model import RenamedTokens


def entries(tokens: Mapping[str, int]) -> Iterable[tuple[str, int]]:
    """(token, id) pairs in the mapping's order, as `tokens.items()`, in one pass."""
    if isinstance(tokens, CompactTokens):
        return zip(tokens, tokens.ids())
    if isinstance(tokens, RenamedTokens) and isinstance(tokens.base, CompactTokens):
        base, removed = tokens.base, tokens.removed
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
    shown = text.replace(" ", "\u2423") if text is not None and text.isprintable() and "\\" not in text \
        else visible_text(data)
    hexed = data.hex(" ").upper()
    tail = row["kind"] if row["utf8"] == "valid" else f"{row['kind']}, {row['utf8']} UTF-8"
    tid = "-" if row["id"] is None else str(row["id"])
    return f"{tid:>7}  {stored:<20} {shown:<16} {hexed:<24} {tail}"


def listing(idx) -> tuple[str, int]:
    """(`decode`'s whole text output for this index, its number of rows)."""
    from .files import decoded_rows

    lines = [text_row(row) for row in decoded_rows(idx)]
    return ("\n".join(lines) + "\n" if lines else ""), len(lines)
