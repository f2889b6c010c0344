"""Mistral tekken (`tekken_*.json`): a tiktoken-style byte-level BPE in JSON, read as
mistral-common's Tekkenizer reads it (read.py), encoded by Tekkenizer itself."""

from __future__ import annotations

from ..table import FormatError, TokenTable
from . import read as _read


class _Tekken:
    name = "tekken"
    label = "Mistral tekken (tekken_*.json)"
    binary = False
    checks = "tekken_checks"  # core/checks/tekken_checks.py

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
        (INTERFACE Part 3): the library itself, loaded from the file, so the ids are its own."""
        from ..engine_cache import engine_for

        return engine_for(table, tekkenizer).encode(text, bos=special, eos=False)


def tekkenizer(table: TokenTable):
    """The real Tekkenizer: from the file when there is one (from_file is what users call),
    else built from the table's entries as from_file would build it."""
    try:
        from mistral_common.tokens.tokenizers.base import TokenizerVersion
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    except ImportError:
        raise FormatError("encoding tekken needs mistral-common: pip install mistral-common") from None
    try:
        path = getattr(table, "path", None)
        if path is not None:
            return Tekkenizer.from_file(path)
        m = table.meta
        vocab = [{"rank": r, "token_bytes": b, "token_str": s} for r, b, s in table.entries]
        specials = ([{"rank": r, "token_str": s, "is_control": c} for r, s, c in table.file_specials]
                    if table.file_specials is not None else list(Tekkenizer.DEPRECATED_SPECIAL_TOKENS))
        return Tekkenizer(vocab, specials, m["pattern"], m["default_vocab_size"],
                          m["default_num_special_tokens"], TokenizerVersion(m["version"]))
    except (AssertionError, ValueError, KeyError, TypeError) as e:
        raise FormatError(f"mistral-common cannot load this tekken file ({type(e).__name__}: "
                          f"{str(e)[:200] or 'a check of its loader failed'}); `check` says why") from None


PLUGIN = _Tekken()


def hover_note(table: TokenTable, row) -> list[str]:
    """How mistral-common gives this row its id (a hover's lines)."""
    n = table.meta["default_num_special_tokens"]
    if row.special:
        where = ("listed in the file's `special_tokens`" if table.file_specials is not None
                 and row.id < len(table.file_specials) else
                 "one of mistral-common's default special tokens (a v3 file lists none)"
                 if table.file_specials is None and row.id < len(_read.DEFAULT_SPECIALS) else
                 "a filler mistral-common adds up to default_num_special_tokens")
        return [f"- special token {row.id} of {n}: {where}"]
    rank = row.id - n
    lines = [f"- mistral-common id {row.id} = rank {rank} + {n} special tokens"]
    _, _, token_str = table.entries[rank]
    lines.append("- token_str: null" if token_str is None else f"- token_str: `{token_str!r}`")
    return lines
