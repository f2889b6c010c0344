"""The per-document index: format detection, parse, findings, lookups by position/id/token."""

from __future__ import annotations

import gc
import os
from array import array
import re
from collections.abc import Callable
from contextlib import contextmanager
from functools import cached_property

import orjson

from .compact_vocab import CompactTokens
from .decoding.bytemap import BYTE_TO_CHAR
from .formats.json_doc import JsonDocument, TokenRef, is_tokenizer_json, is_vocab_json, parse_deferring_merges
from .formats.lines_doc import MergesDocument, TiktokenDocument
from .text.lines import LineIndex
from .model import Finding, Vocabulary

JSON_NAMES = ("tokenizer.json", "vocab.json", "encoder.json")
MERGES_NAMES = ("merges.txt", "vocab.bpe")
# base64 (padded, as tiktoken writes it), whitespace, a rank; tiktoken itself splits on any space
_TIKTOKEN_LINE = re.compile(rb"((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)[ \t]+([0-9]+)[ \t]*\r?")
_MERGES_LINE = re.compile(rb"[^\s]+ [^\s]+\r?")
_MODEL_TYPE = re.compile(rb'"model"\s*:\s*\{\s*"type"\s*:\s*"(?:BPE|WordPiece|WordLevel|Unigram)"')
_HF_KEYS = (b'"added_tokens"', b'"truncation"', b'"padding"', b'"normalizer"', b'"pre_tokenizer"',
            b'"post_processor"', b'"decoder"')


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
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines.pop()  # cut by the 4 KB window
    lines = [l for l in lines if l.strip()][:9]
    if not lines:
        return None
    if lines[0].startswith(b"#version"):
        # a merges header, unless what follows is not merges (GLSL, markdown, ...)
        rest = lines[1:]
        if (rest or name_kind(path) == "merges") and all(_MERGES_LINE.fullmatch(l) for l in rest):
            return "merges"
        return None
    if _tiktoken_lines(lines[:8]):
        return "tiktoken"
    if name_kind(path) == "merges" and all(_MERGES_LINE.fullmatch(l) for l in lines[:8]):
        return "merges"
    return None


def _tiktoken_lines(lines: list[bytes]) -> bool:
    """Base64 and rising ranks: word counts ("the 1061396") and other "word number" text
    are not rank files."""
    ranks = []
    for line in lines:
        m = _TIKTOKEN_LINE.fullmatch(line)
        if m is None:
            return False
        ranks.append(int(m.group(2)))
    return all(a < b for a, b in zip(ranks, ranks[1:]))


def looks_binary(data: bytes) -> bool:
    """NUL bytes or text that is not UTF-8 near the start: no tokenizer text file is so."""
    head = data[:4096]
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start < len(head) - 3  # not merely a character cut by the window
    return False


_VOCAB_START = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*[0-9]')


def _worth_parsing(data: bytes) -> bool:
    """Could this JSON be a tokenizer file at all? A tokenizer.json names its model or added
    tokens near the start (HF writes them before the vocabulary); a vocab.json starts as a
    token -> number object."""
    head = data[:65536]
    return b'"model"' in head or b'"added_tokens"' in head or _VOCAB_START.match(head) is not None


def _looks_like_tokenizer_json(data: bytes) -> bool:
    """For broken JSON: is this still recognisably a HF tokenizer.json? (Other JSON being
    typed must stay silent: a `"vocab"` key alone proves nothing.)"""
    head = data[:65536]
    return _MODEL_TYPE.search(head) is not None or sum(k in head for k in _HF_KEYS) >= 3


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
        kind = content_kind(data, path)
        if kind is None and name_kind(path) is not None:
            kind = name_kind(path)
            if kind != "json" and looks_binary(data):
                self._binary(kind)
                return
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

    def _binary(self, kind: str) -> None:
        """A merges or tiktoken file by name holding binary data: one clear finding, not
        one per line."""
        self.format = "merges.txt" if kind == "merges" else "tiktoken"
        code = "merge-malformed" if kind == "merges" else "tiktoken-malformed"
        what = "merges" if kind == "merges" else "tiktoken rank"
        end = min(len(self.data), max(1, self.data.find(b"\n") if b"\n" in self.data else len(self.data)))
        self.syntax_error = Finding(code, 0, end, f"binary data (NUL bytes or invalid UTF-8), not a {what} file")

    def _parse_json(self, named_like_tokenizer: bool) -> None:
        if not named_like_tokenizer and not _worth_parsing(self.data):
            # package-lock.json and the like: a full parse on every keystroke costs 100 ms
            self.not_tokenizer_reason = "not a tokenizer file (JSON without a tokenizer model or token->id vocab)"
            return
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

    # ---- broken JSON: see formats/salvage.py ------------------------------------------
    def _broken_json(self, err: orjson.JSONDecodeError | None = None) -> None:
        """json-syntax where the parser stopped, and what the intact parts still tell
        (fragments, hovers, hints): the finding first, then the others in file order.
        err None: met in the merges parsed apart (salvage re-parses the whole file)."""
        from .formats.salvage import salvage

        found = salvage(self.data, err, self.path)  # never raises
        self.format = "json"
        self.doc = found.doc
        self.syntax_error = found.error
        self.salvaged = found  # what was recovered (vocab_complete, merges_recovered)
        self.__dict__["findings"] = found.findings

    def _syntax_finding(self, err: orjson.JSONDecodeError | None = None) -> Finding:
        from .formats.salvage import syntax_finding

        return syntax_finding(self.data, err)
    # ---- end of broken JSON ------------------------------------------------------------

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
                self._broken_json()  # salvages what it can: its document, or None
                doc = self.doc
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
                return self.__dict__["findings"]  # json-syntax first, then what salvage found

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

    def token_of_id(self, tid: int) -> str | None:
        """The vocabulary token with this id (an added token when no vocab entry has it)."""
        v = self.vocab
        if v is None or isinstance(tid, bool) or not isinstance(tid, int) or tid < 0:
            return None
        where = self._ordinal_of_id
        o = where[tid] if tid < len(where) else -1
        if o >= 0:
            tokens = v.tokens
            return tokens.key_at(o) if isinstance(tokens, CompactTokens) else self._token_list[o]
        for token, added_id in v.added.items():
            if added_id == tid:
                return token
        return None

    def span_of_token(self, token: str) -> tuple[int, int] | None:
        """Byte span of the token's vocabulary entry (its key literal) in a tokenizer.json
        or vocab.json, found through the literal table: no scan of the text."""
        doc, v = self.doc, self.vocab
        if not isinstance(doc, JsonDocument) or v is None or not doc.tables_ready:
            return None
        table = doc._tables.get("vocab")
        tokens = v.tokens
        if table is None or len(table) != len(tokens):  # duplicate keys: literal k is not key k
            return None
        o = tokens.ordinal(token) if isinstance(tokens, CompactTokens) else self._key_ordinals.get(token)
        return table.span(o) if o is not None else None

    @cached_property
    def _token_list(self) -> list[str]:
        return list(self.vocab.tokens)

    @cached_property
    def _key_ordinals(self) -> dict[str, int]:
        return {t: o for o, t in enumerate(self.vocab.tokens)}

    @cached_property
    def _ordinal_of_id(self) -> array:
        """id -> place of its key in the vocabulary's order (-1: none); built on first use."""
        tokens = self.vocab.tokens
        ids = tokens.ids() if isinstance(tokens, CompactTokens) else list(tokens.values())
        ids = [i if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 1 << 26 else -1 for i in ids]
        where = array("q", [-1]) * (max(ids, default=-1) + 1)
        for o, tid in enumerate(ids):
            if tid >= 0 and where[tid] < 0:
                where[tid] = o
        return where
