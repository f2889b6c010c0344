"""The per-document index: format detection, parse, findings, lookups by position/id/token."""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable
from contextlib import contextmanager
from functools import cached_property

import orjson

from .decoding.bytemap import BYTE_TO_CHAR
from .formats.json_doc import JsonDocument, TokenRef, is_tokenizer_json, is_vocab_json, parse_deferring_merges
from .formats.lines_doc import MergesDocument, TiktokenDocument
from .lines import LineIndex
from .model import Finding, Vocabulary

JSON_NAMES = ("tokenizer.json", "vocab.json", "encoder.json")
MERGES_NAMES = ("merges.txt", "vocab.bpe")
_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/=]* [0-9]+\r?")
_MERGES_LINE = re.compile(rb"\S+ \S+\r?")


def name_kind(path: str | None) -> str | None:
    """What a file name alone suggests: "json", "merges", "tiktoken" or None."""
    if not path:
        return None
    base = os.path.basename(path).lower()
    if base.endswith(".tiktoken"):
        return "tiktoken"
    if base in MERGES_NAMES or (base.endswith(".txt") and "merges" in base):
        return "merges"
    if base in JSON_NAMES or base.endswith(".tokenizer.json"):
        return "json"
    return None


def content_kind(data: bytes, path: str | None = None) -> str | None:
    """Detect the format from the text itself (names can lie or be missing)."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"{", b"[")):
        return "json"
    first_lines = [l for l in head.split(b"\n")[:-1] if l.strip()][:8]
    if not first_lines and head.strip():
        first_lines = [head.strip()]
    if first_lines and first_lines[0].startswith(b"#version"):
        return "merges"
    if first_lines and all(_TIKTOKEN_LINE.fullmatch(l) for l in first_lines):
        return "tiktoken"
    if name_kind(path) == "merges" and first_lines and all(_MERGES_LINE.fullmatch(l) for l in first_lines):
        return "merges"
    return None


def _looks_like_tokenizer_json(data: bytes) -> bool:
    """For broken JSON: does the text still look like a tokenizer file?"""
    head = data[:65536]
    return b'"model"' in head or b'"added_tokens"' in head or b'"vocab"' in head or b'"merges"' in head


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


def _claims_vocab_json(obj: dict, path: str | None) -> bool:
    """A token->id object is a GPT-2 vocabulary by its name, or by holding the byte
    alphabet; other str->int JSON (added_tokens.json, counts, configs) is left alone."""
    base = os.path.basename(path or "").lower()
    if base == "added_tokens.json":
        return False
    if base in ("vocab.json", "encoder.json"):
        return True
    return len(obj) >= 256 and sum(1 for c in BYTE_TO_CHAR if c in obj) >= 250


class DocumentIndex:
    """Everything the features need about one version of one document."""

    def __init__(
        self,
        data: bytes,
        path: str | None = None,
        companion: Callable[[], Vocabulary | None] | None = None,
        assume_tokenizer: bool = False,
    ) -> None:
        self.data = data
        self.path = path
        self.format: str | None = None  # "tokenizer.json" | "vocab.json" | "merges.txt" | "tiktoken"
        self.doc: JsonDocument | MergesDocument | TiktokenDocument | None = None
        self.syntax_error: Finding | None = None
        self.not_tokenizer_reason = ""
        kind = content_kind(data, path) or name_kind(path)
        with collector_paused():
            if kind == "json":
                self._parse_json(assume_tokenizer or name_kind(path) == "json")
            elif kind == "merges":
                self.doc = MergesDocument(data, companion() if companion else None)
                self.format = "merges.txt"
            elif kind == "tiktoken":
                self.doc = TiktokenDocument(data)
                self.format = "tiktoken"
            else:
                self.not_tokenizer_reason = "not a tokenizer file"

    def _parse_json(self, named_like_tokenizer: bool) -> None:
        try:
            obj, merges_span = parse_deferring_merges(self.data)
        except orjson.JSONDecodeError as err:
            if named_like_tokenizer or _looks_like_tokenizer_json(self.data):
                self._broken_json(err)
            else:
                self.not_tokenizer_reason = "not a tokenizer file (invalid JSON)"
            return
        if is_tokenizer_json(obj):
            self.format = "tokenizer.json"
        elif is_vocab_json(obj) and _claims_vocab_json(obj, self.path):
            self.format = "vocab.json"
        else:
            self.not_tokenizer_reason = "not a tokenizer file (JSON without a tokenizer model or token->id vocab)"
            return
        self.doc = JsonDocument(self.data, obj, self.format, merges_span if self.format == "tokenizer.json" else None)

    def _broken_json(self, err: orjson.JSONDecodeError | None = None) -> None:
        if err is None:  # found in the merges parsed apart: the whole file's error and position
            try:
                orjson.loads(self.data)
                err = orjson.JSONDecodeError("model.merges is not an array", "", 0)
            except orjson.JSONDecodeError as whole:
                err = whole
        self.format = "json"
        self.doc = None
        self.syntax_error = self._syntax_finding(err)

    def _syntax_finding(self, err: orjson.JSONDecodeError) -> Finding:
        # orjson reports a character index; findings are in UTF-8 byte offsets
        text = self.data.decode("utf-8", "replace")
        pos = min(max(err.pos, 0), len(text))
        start = len(text[:pos].encode("utf-8"))
        end = start + len(text[pos : pos + 1].encode("utf-8"))
        if start >= len(self.data) and self.data:
            start = max(0, len(self.data) - 1)
            end = len(self.data)
        reason = err.msg.split(": line ")[0] if isinstance(err.msg, str) else str(err)
        return Finding("json-syntax", start, end, f"invalid JSON: {reason}")

    @property
    def is_tokenizer(self) -> bool:
        return self.format is not None

    @property
    def vocab(self) -> Vocabulary | None:
        doc = self.doc
        if isinstance(doc, JsonDocument) and doc.merges_span is not None:
            try:
                doc.load_merges()
            except orjson.JSONDecodeError:
                self._broken_json()
                self.__dict__["findings"] = [self.syntax_error]
                return None
        return doc.vocab if doc is not None else None

    @cached_property
    def findings(self) -> list[Finding]:
        if self.syntax_error is not None:
            return [self.syntax_error]
        if self.doc is None:
            return []
        with collector_paused():
            try:
                return self.doc.findings()
            except orjson.JSONDecodeError:  # in merges parsed apart from the rest
                self._broken_json()
                return [self.syntax_error]

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.data)

    def edited(self, edits: list[tuple[int, int, bytes]], new_data: bytes) -> DocumentIndex | None:
        """The index of new_data derived from this one, when every edit stays inside one
        token literal (see formats.incremental); None when the file must be re-parsed."""
        from .formats.incremental import apply_edit

        if not isinstance(self.doc, JsonDocument) or self.syntax_error is not None or not self.lookups_ready:
            return None
        doc, findings, data = self.doc, self.findings, self.data
        for i, (start, end, new) in enumerate(edits):
            # the caller already built the final text; only intermediate ones are made here
            data = new_data if i == len(edits) - 1 else data[:start] + new + data[end:]
            step = apply_edit(doc, findings, start, end, new, data)
            if step is None:
                return None
            doc, findings = step
        out = object.__new__(DocumentIndex)
        out.__dict__.update(data=new_data, path=self.path, format=self.format, doc=doc,
                            syntax_error=None, not_tokenizer_reason="", findings=findings)
        # lines: a new LineIndex when first needed (13 ms for 11 MB); one derived from this
        # one would keep this version's text alive, and a chain of them every version's
        return out

    # ---- lookups ---------------------------------------------------------------------

    def prepare_lookups(self) -> None:
        """Build what hovers and hints need (costly on big files: call off the event loop)."""
        _ = self.findings  # first: the tables drop the parsed merges the checks read
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

    def tokens_in(self, start: int, end: int) -> list[TokenRef]:
        return self.doc.tokens_in(start, end) if self.doc is not None else []

    def id_of(self, token: str) -> int | None:
        v = self.vocab
        return v.id_of(token) if v is not None else None
