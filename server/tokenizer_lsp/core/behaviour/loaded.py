"""A tokenizer file loaded into its engine: the one type every behaviour module takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..decoding.tokens import Scheme


class LoadError(Exception):
    """The file cannot be loaded by its engine. The message says where and why, in the
    user's terms (never only "data did not match any variant of untagged enum")."""


@dataclass(frozen=True)
class TokenDecoding:
    """How the engine's token strings turn into bytes, by the same rules the hovers use
    (core/decoding): the file's scheme, WordPiece prefix, end-of-word suffix, and the ids of
    added tokens outside the model vocab (their content is their text)."""

    scheme: Scheme
    subword_prefix: str = ""
    word_suffix: str = ""
    added_only: frozenset[int] = frozenset()


@dataclass(frozen=True)
class LoadedTokenizer:
    kind: str  # "tokenizers" (tokenizer.json, vocab.json + merges) or "tiktoken"
    engine: Any  # a tokenizers.Tokenizer, or a tiktoken.Encoding
    ranks: dict[bytes, int] | None = None  # tiktoken: the file's mergeable ranks
    pattern: str | None = None  # tiktoken: the split pattern
    encoding_name: str | None = None  # tiktoken: the known encoding it was recognised as
    # "tokenizer.json" | "vocab.json" | "merges.txt" | "tiktoken" (None: built by hand)
    source: str | None = None
    # tokenizers: set by load_tokenizer; computed from the engine when absent
    decoding: TokenDecoding | None = None
    notes: tuple[str, ...] = ()  # what encode says about how the file was loaded
