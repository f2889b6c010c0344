"""Two of mistral-common's loader asserts as findings: each entry's rank is its place (the
first 256 the single bytes), and default_vocab_size fits the file. Here, below the checks,
because the engine (engine.py) refuses a file on them before building its Encoding, and
checks.py reports them with the other tekken codes."""

from __future__ import annotations

from collections.abc import Iterator

from ...decoding.display import hex_head
from ..table import TableFinding

__all__ = ["_at", "_data", "_used", "tekken_rank", "vocab_size"]


def _used(table) -> int:
    """How many vocab entries mistral-common reads."""
    m = table.meta
    return max(0, min(m["default_vocab_size"] - m["default_num_special_tokens"], len(table.entries)))


def _at(table, i: int) -> dict:
    """Where vocab entry i is: its token_bytes literal, and the id it gets."""
    n = table.meta["default_num_special_tokens"]
    span = table.spans[n + i] if table.spans is not None and n + i < len(table.spans) else None
    return {"id": n + i, "start": span[0] if span else None, "end": span[1] if span else None}


def _data(table, i: int) -> bytes:
    """The bytes of used vocab entry i (decoded once, by the reader)."""
    return table.rows[table.meta["default_num_special_tokens"] + i].data


def tekken_rank(table) -> Iterator[TableFinding]:
    for i in range(_used(table)):
        rank = table.entries[i][0]
        if rank != i:
            yield TableFinding(
                "tekken-rank",
                f"vocab entry {i} has rank {rank!r}: mistral-common asserts that "
                "each entry's rank is its place and refuses the file",
                **_at(table, i),
            )
        elif i < 256 and _data(table, i) != bytes([i]):
            data = _data(table, i)
            yield TableFinding(
                "tekken-rank",
                f"rank {i} holds {hex_head(data) if data else 'no bytes'}: the first "
                f"256 ranks must be the single bytes 00..FF in order (this one {i:02X}); "
                "mistral-common refuses the file",
                **_at(table, i),
            )


def vocab_size(table) -> Iterator[TableFinding]:
    m = table.meta
    size, n = m["default_vocab_size"], m["default_num_special_tokens"]
    if size > len(table.entries) + n:
        yield TableFinding(
            "vocab-size",
            f"default_vocab_size {size} is more than the {len(table.entries)} vocab "
            f"entries and {n} special tokens: mistral-common refuses the file",
            key="default_vocab_size",
        )
    elif size < n:
        yield TableFinding(
            "vocab-size",
            f"default_vocab_size {size} is less than default_num_special_tokens {n}: no vocabulary entry is used",
            key="default_vocab_size",
        )
