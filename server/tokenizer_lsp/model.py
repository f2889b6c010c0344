"""The vocabulary model every format parses into, and the findings checks produce."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .decoding.tokens import Decoded, Scheme, decode_token

SEVERITIES = ("error", "warning", "information", "hint")

DEFAULT_SEVERITY: dict[str, str] = {
    "json-syntax": "error",
    "utf8-fragment": "hint",
    "not-byte-level": "error",
    "merge-unknown-token": "error",
    "merge-result-missing": "error",
    "merge-malformed": "error",
    "duplicate-token": "error",
    "duplicate-id": "error",
    "id-gap": "information",
    "added-token-mismatch": "warning",
    "merges-header": "warning",
    "tiktoken-malformed": "error",
}


@dataclass(slots=True)
class Finding:
    code: str
    start: int  # byte offsets into the document's UTF-8
    end: int
    message: str

    @property
    def severity(self) -> str:
        return DEFAULT_SEVERITY[self.code]


@dataclass
class Vocabulary:
    """Tokens, ids, merges and added tokens, whatever file they came from."""

    scheme: Scheme
    tokens: dict[str, int]  # token as stored -> id, in source order of first occurrence
    model_type: str = "BPE"
    merges: list | None = None  # as stored: "a b" strings or [a, b] pairs
    merges_as_pairs: bool = False
    added: dict[str, int] = field(default_factory=dict)  # added token content -> id
    special: set[str] = field(default_factory=set)
    subword_prefix: str = ""
    ignore_merges: bool = False

    @cached_property
    def by_id(self) -> dict[int, str]:
        out: dict[int, str] = {}
        for tok, i in self.tokens.items():
            out.setdefault(i, tok)
        for tok, i in self.added.items():
            out.setdefault(i, tok)
        return out

    def id_of(self, token: str) -> int | None:
        i = self.tokens.get(token)
        return self.added.get(token) if i is None else i

    def decode(self, token: str, in_vocab: bool = True) -> Decoded:
        """Decode by the rule of the row: vocab rows follow the scheme, added tokens are literal."""
        special = token in self.special
        if in_vocab and token in self.tokens:
            return decode_token(token, self.scheme, special)
        if token in self.added:
            return decode_token(token, Scheme.LITERAL, special)
        return decode_token(token, self.scheme, special)

    def merge_result(self, a: str, b: str) -> str:
        if self.subword_prefix and b.startswith(self.subword_prefix):
            return a + b[len(self.subword_prefix) :]
        return a + b


def split_merge(merge, as_pair: bool) -> tuple[str, str] | None:
    if as_pair:
        if isinstance(merge, list) and len(merge) == 2 and all(isinstance(p, str) for p in merge):
            return merge[0], merge[1]
        return None
    if isinstance(merge, str):
        parts = merge.split(" ")
        if len(parts) == 2:
            return parts[0], parts[1]
    return None
