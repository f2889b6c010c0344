"""The per-document index: one version of a text, its parse and findings, then lookups by
position/id/token.

core.index.build.build_index decides everything about a version of a text at once (its format,
whether it was salvaged from broken JSON, its findings) and makes one of these; the index
does not change after that, except for the lookup tables hovers need, which
`prepare_lookups` adds once, off the event loop, before the index serves any request.
This module is below every index builder (model_folder, the decoded view's), so they make
indexes without importing the dispatcher that calls them.
"""

from __future__ import annotations

import gc
import itertools
from array import array
from collections.abc import Callable
from contextlib import contextmanager
from functools import cached_property

from ..compact_vocab import CompactTokens, settled_tokens
from ..formats.json.doc import JsonDocument, TokenRef
from ..formats.merges.doc import MergesDocument
from ..formats.tiktoken.doc import TiktokenDocument
from ..model import Finding, RenamedTokens, Vocabulary
from ..text.lines import LineIndex

_PARSES = itertools.count()


def new_parse_id() -> int:
    return next(_PARSES)


@contextmanager
def collector_paused():
    """An index holds millions of small objects that never form cycles: keep the cyclic
    collector from walking them (a full pass costs a tenth of a second) while building."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class DocumentIndex:
    """Everything the features need about one version of one document."""

    def __init__(
        self,
        data: bytes,
        path: str | None,
        format: str | None = None,
        doc=None,
        findings: list[Finding] | None = None,
        syntax_error: Finding | None = None,
        not_tokenizer_reason: str = "",
        parse_id: int | None = None,
    ) -> None:
        self.data = data
        self.path = path
        self.format = format  # "tokenizer.json" | "vocab.json" | "merges.txt" | "tiktoken" | "json"
        self.doc: JsonDocument | MergesDocument | TiktokenDocument | None = doc
        self.findings: list[Finding] = findings or []
        self.syntax_error = syntax_error
        self.not_tokenizer_reason = not_tokenizer_reason
        # the parse it comes from: indexes derived by edited() share it, and with it their
        # vocabulary ordinals and merge ranks (so their navigation lookups)
        self.parse_id = new_parse_id() if parse_id is None else parse_id
        self._built = True  # from here on an attribute cannot be set (__setattr__)

    def __setattr__(self, name: str, value) -> None:
        # A built index is never rewritten: handlers on other threads read it with no lock,
        # and a newer version of the text is a newer index (docs/architecture.md).
        if getattr(self, "_built", False):
            raise AttributeError(f"a built DocumentIndex is never rewritten (set {name!r})")
        object.__setattr__(self, name, value)

    def adopted(self, parse_id: int) -> None:
        """The last step of a build made in a forked child (index/staged.py), before anything
        serves the index: a parse id of this process (a child's counter does not advance the
        parent's)."""
        object.__setattr__(self, "parse_id", parse_id)

    @property
    def is_tokenizer(self) -> bool:
        return self.format is not None

    @property
    def salvaged(self) -> bool:
        """Built from what broken JSON still holds: a partial view of the file."""
        return self.syntax_error is not None and self.doc is not None

    @property
    def vocab(self) -> Vocabulary | None:
        return self.doc.vocab if self.doc is not None else None

    def ordinal_of(self, token: str) -> int | None:
        """The place of a token in the vocabulary's order (its literal table index)."""
        v = self.vocab
        tokens = settled_tokens(v) if v is not None else None
        if tokens is None or token not in tokens:
            return None
        if isinstance(tokens, CompactTokens) or (isinstance(tokens, RenamedTokens) and hasattr(tokens.base, "ordinal")):
            return tokens.ordinal(token)
        return self._key_ordinals.get(token)

    def token_at_ordinal(self, o: int) -> str:
        return self._key_at()(o)

    def _key_at(self) -> Callable[[int], str]:
        """ordinal -> token: the compact table's own (an edited key: its renamed table, never
        a list of every key), else the list of the keys."""
        tokens = settled_tokens(self.vocab)
        if isinstance(tokens, CompactTokens) or (isinstance(tokens, RenamedTokens) and hasattr(tokens.base, "key_at")):
            return tokens.key_at
        return self._token_list.__getitem__

    def vocab_span(self, ordinal: int) -> tuple[int, int] | None:
        f = getattr(self.doc, "vocab_span", None)
        return f(ordinal) if f is not None and self.lookups_ready else None

    def merge_span(self, rank: int, part: int | None = None) -> tuple[int, int] | None:
        f = getattr(self.doc, "merge_span", None)
        return f(rank, part) if f is not None and self.lookups_ready else None

    def merge_part_spans(self, uses: list[tuple[int, int]]) -> list[tuple[int, int] | None]:
        """merge_span(rank, part) for many (rank, part) uses at once."""
        if not self.lookups_ready or getattr(self.doc, "merge_span", None) is None:
            return [None] * len(uses)
        bulk = getattr(self.doc, "merge_part_spans", None)
        if bulk is not None:
            return bulk(uses)
        return [self.doc.merge_span(rank, part) for rank, part in uses]

    def merges(self) -> list:
        """All merges as stored ("a b" strings or [a, b] pairs), read from the text."""
        doc = self.doc
        if isinstance(doc, JsonDocument):
            return doc.all_merges()
        return list(doc.vocab.merges or []) if doc is not None and doc.vocab is not None else []

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.data)

    def edited(self, edits: list[tuple[int, int, bytes]], new_data: bytes) -> DocumentIndex | None:
        """The index of new_data derived from this one, when every edit stays inside one
        token literal (see formats.incremental); None when the file must be re-parsed."""
        from ..formats.json.incremental import apply_edit

        if not isinstance(self.doc, JsonDocument) or self.syntax_error is not None or not self.lookups_ready:
            return None
        doc, findings, data = self.doc, self.findings, self.data
        breaks_kept = True  # no edit removed or inserted a line break: the line index carries over
        for i, (start, end, new) in enumerate(edits):
            breaks_kept = breaks_kept and not any(c in new or c in data[start:end] for c in (b"\n", b"\r"))
            # the caller already built the final text; only intermediate ones are made here
            data = new_data if i == len(edits) - 1 else data[:start] + new + data[end:]
            step = apply_edit(doc, findings, start, end, new, data)
            if step is None:
                return None
            doc, findings = step
        out = DocumentIndex(new_data, self.path, self.format, doc, findings, parse_id=self.parse_id)
        # its line index: this one's counts, mapped through the edits (never this version's
        # text, which a chain of indexes would keep alive); else counted when first needed
        lines = self.__dict__.get("lines")
        carried = (
            lines.after_edits(new_data, [(s, e, len(n)) for s, e, n in edits])
            if lines is not None and breaks_kept
            else None
        )
        if carried is not None:
            out.__dict__["lines"] = carried
        if "_ordinal_of_id" in self.__dict__:  # ids are no literals: an edit inside one keeps them
            out.__dict__["_ordinal_of_id"] = self.__dict__["_ordinal_of_id"]
        return out

    # ---- lookups ---------------------------------------------------------------------

    def prepare_lookups(self) -> None:
        """Build what hovers and hints need (costly on big files: call off the event loop)."""
        if self.doc is not None:
            self.doc.build_tables()
        _ = self.lines

    def merge_at(self, rank: int) -> tuple[str, str] | None:
        """The two parts of the merge of this rank."""
        return self.doc.merge_at(rank) if self.doc is not None and hasattr(self.doc, "merge_at") else None

    @property
    def lookups_ready(self) -> bool:
        return self.doc is not None and self.doc.tables_ready

    def token_at(self, offset: int) -> TokenRef | None:
        return self.doc.token_at(offset) if self.doc is not None else None

    def tokens_in(self, start: int, end: int, limit: int | None = None) -> list[TokenRef]:
        return self.doc.tokens_in(start, end, limit) if self.doc is not None else []

    def id_of(self, token: str) -> int | None:
        v = self.vocab
        return v.id_of(token) if v is not None else None

    def token_of_id(self, tid: int) -> str | None:
        """The vocabulary token with this id (an added token when no vocab entry has it)."""
        return self.token_of_id_lookup(tid) if self.vocab is not None else None

    @cached_property
    def token_of_id_lookup(self) -> TokenOfId:
        """token_of_id as an object of its own that does not keep this index alive: what
        outlives an index (the model-folder facts a config check keeps) holds this."""
        return TokenOfId(self._ordinal_of_id, self._key_at(), self.vocab.added)

    def ordinal_of_id(self, tid: int) -> int | None:
        """Place in the vocabulary's order of the entry with this id (None: no entry)."""
        where = self._ordinal_of_id
        o = where[tid] if 0 <= tid < len(where) else -1
        return o if o >= 0 else None

    def span_of_token(self, token: str) -> tuple[int, int] | None:
        """Byte span of the token's vocabulary entry (its key literal, or the base64 field
        of a rank), found through the literal table: no scan of the text."""
        o = self.ordinal_of(token)
        return self.vocab_span(o) if o is not None else None

    @cached_property
    def _token_list(self) -> list[str]:
        return list(self.vocab.tokens)

    @cached_property
    def _key_ordinals(self) -> dict[str, int]:
        return {t: o for o, t in enumerate(self.vocab.tokens)}

    @cached_property
    def _ordinal_of_id(self) -> array | range:
        """id -> place of its key in the vocabulary's order (-1: none); built on first use."""
        tokens = settled_tokens(self.vocab)
        ids = tokens.ids() if isinstance(tokens, CompactTokens) else tokens.values()
        if isinstance(ids, array) and len(ids) <= 1 << 26 and ids == array(ids.typecode, range(len(ids))):
            # keys in id order, compared in C: the generator below took 0.1-0.3 s on
            # qwen3/gemma3, in the config check a user waits for after opening the file
            return range(len(ids))
        # arrays, not lists of ints: after an edit this runs on a keystroke's index, where two
        # lists of 150k ints were 11 MB at the peak (qwen3)
        ids = array(
            "i", (i if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 1 << 26 else -1 for i in ids)
        )
        if ids == array("i", range(len(ids))):
            return range(len(ids))  # keys in id order (most files): no table in memory
        where = array("i", [-1]) * (max(ids, default=-1) + 1)
        for o, tid in enumerate(ids):
            if tid >= 0 and where[tid] < 0:
                where[tid] = o
        return where


class TokenOfId:
    """id -> the vocabulary token with it (an added token when no vocab entry has it)."""

    __slots__ = ("added", "key_at", "where")

    def __init__(self, where, key_at, added: dict[str, int]) -> None:
        self.where, self.key_at, self.added = where, key_at, added

    def __call__(self, tid: int) -> str | None:
        if isinstance(tid, bool) or not isinstance(tid, int) or tid < 0:
            return None
        o = self.where[tid] if tid < len(self.where) else -1
        if o >= 0:
            return self.key_at(o)
        for token, added_id in self.added.items():
            if added_id == tid:
                return token
        return None
