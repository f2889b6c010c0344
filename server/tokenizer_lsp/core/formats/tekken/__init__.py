"""Mistral tekken (`tekken_*.json`): a tiktoken-style byte-level BPE in JSON, read as
mistral-common's Tekkenizer reads it (read.py), encoded with tiktoken as Tekkenizer encodes
(engine.py)."""

from __future__ import annotations

from ..table import FormatError as FormatError  # re-exported: the format's error
from ..table import TokenTable
from . import read as _read


class _Tekken:
    name = "tekken"
    label = "Mistral tekken (tekken_*.json)"
    binary = False
    checks = "tekken.checks"  # core/formats/tekken/checks.py

    @staticmethod
    def named(name: str) -> bool:
        """mistral-common's own rule (tekken.is_tekken): "tekken" in the name, a .json file."""
        return "tekken" in name and name.endswith(".json")

    @staticmethod
    def row_kind(table: TokenTable, row) -> str:
        return "special" if row.special else "byte-level"  # bytes, as tiktoken's ranks

    sniff = staticmethod(_read.sniff)
    hover_note = staticmethod(lambda table, row: hover_note(table, row))
    read = staticmethod(_read.read)
    read_bytes = staticmethod(_read.read_bytes)

    @staticmethod
    def encode(table: TokenTable, text: str, special: bool, folder: str | None = None) -> list[int]:
        """mistral-common's `Tekkenizer.encode(text, bos=special, eos=False)` of the file
        (docs/formats/tekken.md), done as Tekkenizer does it: tiktoken with the file's ranks and
        pattern (engine.py), so a default install needs no mistral-common."""
        from .engine import encode

        return encode(table, text, special)

    @staticmethod
    def stats_extra(table: TokenTable) -> dict:
        return stats_extra(table)


PLUGIN = _Tekken()


def stats_extra(table: TokenTable) -> dict:
    """stats' account of the numbers as mistral-common's Tekkenizer has them: its
    `num_special_tokens` special tokens take ids 0..n-1 before the vocabulary (the file's
    listed ones, or its default ones for a file without a list, then `<SPECIAL_n>`
    fillers, all control tokens but a listed one with `is_control: false`), then the first
    `default_vocab_size - n` vocab entries (its tiktoken model's `n_vocab`)."""
    n = table.meta["default_num_special_tokens"]
    listed = (
        table.file_specials
        if table.file_specials is not None
        else tuple((i, s, True) for i, s in enumerate(_read.DEFAULT_SPECIALS))
    )
    named = min(len(listed), n)
    return {
        "special_ids": [0, n - 1] if n else None,
        "control_tokens": sum(1 for _, _, control in listed[:named] if control) + (n - named),
        "named_special_tokens": named,
        "filler_special_tokens": n - named,
        "vocab_entries_used": len(table.rows) - n,
        "vocab_entries_in_file": table.meta["vocab_entries"],
    }


def hover_note(table: TokenTable, row) -> list[str]:
    """How mistral-common gives this row its id (a hover's lines)."""
    n = table.meta["default_num_special_tokens"]
    if row.special:
        where = (
            "listed in the file's `special_tokens`"
            if table.file_specials is not None and row.id < len(table.file_specials)
            else "one of mistral-common's default special tokens (a v3 file lists none)"
            if table.file_specials is None and row.id < len(_read.DEFAULT_SPECIALS)
            else "a filler mistral-common adds up to default_num_special_tokens"
        )
        return [f"- special token {row.id} of {n}: {where}"]
    rank = row.id - n
    lines = [f"- mistral-common id {row.id} = rank {rank} + {n} special tokens"]
    _, _, token_str = table.entries[rank]
    lines.append("- token_str: null" if token_str is None else f"- token_str: `{token_str!r}`")
    return lines
