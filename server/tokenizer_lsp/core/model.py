"""The vocabulary model every format parses into, and the findings checks produce."""

from __future__ import annotations

from array import array
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from dataclasses import dataclass, field
from itertools import chain, repeat

from .decoding.tokens import Decoded, Scheme, decode_token

SEVERITIES = ("error", "warning", "information", "hint")

DEFAULT_SEVERITY: dict[str, str] = {
    "json-syntax": "error",
    "schema": "error",
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
    "merge-ambiguous": "warning",
    "unreachable-token": "information",
    "config-token-missing": "error",
    "config-id-mismatch": "error",
    "vocab-size": "error",  # a vocab_size above the highest id is information (Finding.level)
    "chat-template-token": "warning",
    # Part 3: SentencePiece, tekken, WordPiece, GGUF (docs/formats/)
    "spm-byte-pieces": "error",
    "special-id": "error",
    "tekken-rank": "error",
    "tekken-token-str": "warning",
    "wordpiece-unreachable": "warning",
    "wordpiece-unk-missing": "error",
    "gguf-pre-missing": "warning",
    "gguf-token-type": "error",
    "gguf-mismatch": "error",
    "gguf-special-id": "error",
    "gguf-chat-template": "warning",
    # Part 4: chat templates (docs/guides/check-a-chat-template.md)
    "chat-template-syntax": "error",
    "chat-template-render": "error",
    "chat-template-rejects": "information",
    "chat-template-double-bos": "warning",
    "chat-template-stop-token": "error",
    "chat-template-generation-prompt": "warning",
    "chat-template-portability": "warning",
    "chat-template-copies": "warning",
    "chat-template-clock": "information",
    "chat-template-missing": "information",
}


@dataclass(slots=True)
class Finding:
    code: str
    start: int  # byte offsets into the document's UTF-8
    end: int
    message: str
    level: str | None = None  # when this finding's default differs from its code's (vocab-size)
    fix: bytes | None = None  # bytes replacing [start, end) that resolve it (a portable spelling)

    @property
    def severity(self) -> str:
        return self.level or DEFAULT_SEVERITY[self.code]


class RenamedTokens(Mapping):
    """A vocab dict with a few keys renamed, without copying it.

    The typing fast path renames one key per keystroke; copying a 262k-entry dict is a
    single 9 ms C call that stalls hovers. The base dict is shared and never changed.
    Iteration order matches the copy-and-rename it stands for: renamed keys come last.
    """

    __slots__ = ("base", "origin", "removed", "renamed")

    def __init__(
        self,
        base: dict[str, int],
        renamed: dict[str, int] | None = None,
        removed: frozenset[str] = frozenset(),
        origin: dict[str, str] | None = None,
    ) -> None:
        self.base, self.renamed, self.removed = base, renamed or {}, removed
        self.origin = origin or {}  # renamed key -> the base key it stands for

    def rename(self, old: str, new: str) -> RenamedTokens:
        """A new mapping with `old` renamed to `new` (not already a key)."""
        renamed, origin = dict(self.renamed), dict(self.origin)
        if old in renamed:
            value, removed = renamed.pop(old), self.removed
            origin[new] = origin.pop(old)
        else:
            value, removed = self.base[old], self.removed | {old}
            origin[new] = old
        renamed[new] = value
        return RenamedTokens(self.base, renamed, removed, origin)

    def ordinal(self, key: str) -> int | None:
        """The place of a key in the source order (a renamed key keeps its entry's place)."""
        if key in self.renamed:
            key = self.origin[key]
        elif key in self.removed:
            return None
        find = getattr(self.base, "ordinal", None)
        return find(key) if find is not None else None

    def key_at(self, o: int) -> str:
        key = self.base.key_at(o)
        if key in self.removed:
            return next(new for new, old in self.origin.items() if old == key)
        return key

    def __getitem__(self, key: str) -> int:
        if key in self.renamed:
            return self.renamed[key]
        if key in self.removed:
            raise KeyError(key)
        return self.base[key]

    def __contains__(self, key: object) -> bool:
        return key in self.renamed or (key not in self.removed and key in self.base)

    def get(self, key, default=None):
        # one lookup in the base, not `in` and then [] (each a search of the compact table)
        if key in self.renamed:
            return self.renamed[key]
        if key in self.removed:
            return default
        return self.base.get(key, default)

    def __len__(self) -> int:
        return len(self.base) - len(self.removed) + len(self.renamed)

    def __iter__(self) -> Iterator[str]:
        removed = self.removed
        yield from (k for k in self.base if k not in removed) if removed else self.base
        yield from self.renamed

    def max_id(self) -> int | None:
        """The highest value: the base's, since renaming moves values and never changes
        them (config checks ask after every edit; a copy of gemma3's ids was 33 ms)."""
        top = getattr(self.base, "max_id", None)
        if top is not None:
            return top()
        return max(self.base.values(), default=None)

    def ids(self) -> array:
        """The values in key order, from the base's own array when it has one (one copy,
        no lookup per key)."""
        base_ids = getattr(self.base, "ids", None)
        if base_ids is None:
            return array("q", (self[k] for k in self))
        out = array("q", base_ids())
        ordinals = sorted((self.base.ordinal(k) for k in self.removed), reverse=True)
        for o in ordinals:
            if o is not None:
                del out[o]
        out.extend(self.renamed.values())
        return out

    def values(self) -> ValuesView:
        from .compact_vocab import KeyOrderValues

        return KeyOrderValues(self)

    def items(self) -> ItemsView:
        from .compact_vocab import KeyOrderItems

        return KeyOrderItems(self)


@dataclass
class Vocabulary:
    """Tokens, ids, merges and added tokens, whatever file they came from."""

    scheme: Scheme
    # token as stored -> id, in source order of first occurrence (a CompactTokens once
    # an index is ready for lookups, a RenamedTokens after edits)
    tokens: Mapping[str, int]
    model_type: str = "BPE"
    merges: list | None = None  # as stored: "a b" strings or [a, b] pairs
    merges_as_pairs: bool = False
    added: dict[str, int] = field(default_factory=dict)  # added token content -> id
    special: set[str] = field(default_factory=set)
    subword_prefix: str = ""
    word_suffix: str = ""  # end-of-word suffix of a BPE model (CLIP: </w>)
    ignore_merges: bool = False
    # tokens whose vocab entry tokenizers refuses (an id that is not an integer): reported
    # once as `schema`, so the merges naming them are not also "unknown token"
    unloadable: frozenset[str] = frozenset()

    def id_of(self, token: str) -> int | None:
        i = self.tokens.get(token)
        return self.added.get(token) if i is None else i

    def decode(self, token: str, in_vocab: bool = True) -> Decoded:
        """Decode by the rule of the row: vocab rows follow the scheme, added tokens are literal."""
        special = token in self.special
        if in_vocab and token in self.tokens:
            return decode_token(token, self.scheme, special, self.subword_prefix, self.word_suffix)
        if token in self.added:
            return decode_token(token, Scheme.LITERAL, special)
        return decode_token(token, self.scheme, special, self.subword_prefix, self.word_suffix)

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


def split_well_formed(merges: list, as_pairs: bool) -> tuple[list[str], list[str]] | None:
    """(first and second parts interleaved, results) when every merge is well formed and
    results are plain concatenations; None sends the caller to the per-merge path."""
    n = len(merges)
    if as_pairs:
        if set(map(type, merges)) != {list} or set(map(len, merges)) != {2}:
            return None
        try:
            results = list(map("".join, merges))  # TypeError on a part that is not a string
        except TypeError:
            return None
        return list(chain.from_iterable(merges)), results
    if set(map(type, merges)) != {str}:
        return None
    parts = " ".join(merges).split(" ")
    # 2n parts and a space in each merge: exactly one space in each
    if len(parts) != 2 * n or not all(map(str.__contains__, merges, repeat(" "))):
        return None
    return parts, list(map(str.__add__, parts[0::2], parts[1::2]))


@dataclass(frozen=True, slots=True)
class TokenRef:
    """A token literal in the source and what it is."""

    start: int
    end: int
    role: str  # "vocab" | "merge" | "added" | "tiktoken" | "merges-line"
    token: str
    rank: int | None = None  # merge rank
    part: int | None = None  # 0 or 1 within a merge, None for a whole-merge literal


@dataclass(frozen=True, slots=True)
class Ref:
    """What a finding points at: ("vocab", ordinal), ("merge", rank), ("added", index),
    ("added-id", id), or ("span", start, end) when the position is already known."""

    kind: str
    key: int  # ordinal, rank, index or start; sorting by it gives source order
    end: int = 0
    token: str | None = None  # for "vocab" refs whose ordinal is approximate
    part: int | None = None  # for "merge" refs: 0 or 1 to point at one part only
    pair: tuple[str, str] | None = None  # for "merge" refs: the parts, to find the literal by


@dataclass(slots=True)
class PendingFinding:
    code: str
    ref: Ref
    message: str
