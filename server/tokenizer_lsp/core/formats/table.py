"""The common shape of a format plug-in's output: a token table, built once, never rewritten.

The formats of Part 3 (SentencePiece `.model`, Mistral tekken, WordPiece `vocab.txt`, GGUF)
are lists of tokens by id, some of them binary. A plug-in reads its file into a TokenTable
(rows by id plus the file's metadata); checks in core/checks/ read the table and produce
TableFindings; the CLI and the server render both. Text formats (tekken, vocab.txt) also
give each row's byte span in the document so the server can hover and hint; binary formats
(`.model`, `.gguf`) have no spans: their findings name an id or a metadata key, and the
editor shows the decoded listing (decoded_view.py) instead of the bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

# SentencePiece's ModelProto.SentencePiece.Type names (also GGUF's llama_token_type values
# 1..6): the `type` of a decode row.
PIECE_TYPES = ("NORMAL", "UNKNOWN", "CONTROL", "USER_DEFINED", "UNUSED", "BYTE")


class FormatError(ValueError):
    """The file claims to be this format but cannot be read as it (truncated, lying
    header, bad protobuf). The message is for the user: one line, no traceback."""


class TableRow(NamedTuple):
    """One token. A NamedTuple, not a frozen dataclass: the same fields, constructor and
    immutability, built 5x faster (a frozen dataclass's __init__ was 60% of reading a
    32k-piece .model; GGUF and Gemma have 256k rows)."""

    id: int
    token: str  # the piece as stored (tekken: token_str, or token_bytes' base64 where it is null)
    data: bytes  # what the piece stands for (docs/cli.md, decode: `bytes` of a row)
    type: str | None = None  # one of PIECE_TYPES, where the format has types
    score: float | None = None  # where the format has scores
    special: bool = False


@dataclass(frozen=True, slots=True)
class TableFinding:
    code: str  # a code of core.model.DEFAULT_SEVERITY
    message: str
    id: int | None = None  # the token it is about (binary formats)
    key: str | None = None  # or the metadata key (GGUF: tokenizer.ggml.eos_token_id)
    start: int | None = None  # byte offsets in the document (text formats)
    end: int | None = None
    level: str | None = None  # a severity other than the code's default

    @property
    def severity(self) -> str:
        from ..model import DEFAULT_SEVERITY

        return self.level or DEFAULT_SEVERITY[self.code]


@dataclass(frozen=True)
class TokenTable:
    """A file's tokens by id, built once by its plug-in and frozen."""

    format: str  # the plug-in's name: "sentencepiece", "tekken", "wordpiece", "gguf"
    rows: tuple[TableRow, ...]
    # what stats shows and the checks read (model type, special ids, byte_fallback, pre, ...)
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # text formats: (start, end) byte span of each row's token in the document, by row index
    spans: tuple[tuple[int, int], ...] | None = None
    # findings the reader made while reading (a malformed line, a bad rank): structural
    # facts only; everything that can be judged from the rows is a check in core/checks/
    read_findings: tuple[TableFinding, ...] = ()
    # the file's bytes, for an engine that loads from them (SentencePiece: the model proto);
    # None when the plug-in does not keep them (GGUF: never the whole file)
    source: bytes | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.meta, MappingProxyType):
            object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))
