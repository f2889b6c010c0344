"""tokenizer.json and vocab.json: values from orjson, positions from json_layout."""

from __future__ import annotations

import json
import re
from array import array
from dataclasses import dataclass
from functools import cached_property
from itertools import islice, repeat
from operator import and_

import orjson

from .. import checks
from ..checks import PendingFinding, Ref
from ..compact_vocab import CompactTokens
from ..decoding.bytemap import BYTE_TO_CHAR
from ..detect import is_tokenizer_json
from ..decoding.tokens import CLIP_SUFFIX, SP_SPACE, Scheme
from ..model import Finding, Vocabulary, split_merge
from .. import hooks
from ..hooks import MIN_PARALLEL_WORK
from .json_layout import (
    STRING,
    LiteralTable,
    Locator,
    array_element_spans,
    count_in_windows,
    element_boundary,
    key_count_estimate,
    line_windows,
    next_char,
    object_key_spans,
    trailing_array_end,
    value_span,
    value_start,
)


@dataclass(frozen=True, slots=True)
class TokenRef:
    """A token literal in the source and what it is."""

    start: int
    end: int
    role: str  # "vocab" | "merge" | "added" | "tiktoken" | "merges-line"
    token: str
    rank: int | None = None  # merge rank
    part: int | None = None  # 0 or 1 within a merge, None for a whole-merge literal


def _types(node) -> list[str]:
    """Component types in a normalizer/pre_tokenizer/decoder, Sequences flattened."""
    if isinstance(node, list):
        return [t for n in node for t in _types(n)]
    if not isinstance(node, dict):
        return []
    out = [node.get("type")] if isinstance(node.get("type"), str) else []
    for key in ("decoders", "pretokenizers", "normalizers", "processors"):
        out.extend(_types(node.get(key)))
    return out


def _replaces_sp_space(node) -> bool:
    if isinstance(node, list):
        return any(_replaces_sp_space(n) for n in node)
    if not isinstance(node, dict):
        return False
    if node.get("type") == "Replace":
        pat = node.get("pattern")
        pat = pat.get("String") if isinstance(pat, dict) else pat
        if pat == "\u2581":
            return True
    return any(_replaces_sp_space(node.get(k)) for k in ("decoders", "pretokenizers", "normalizers"))


def scheme_of(obj: dict) -> Scheme:
    """Which decoding rule applies, from the file's own decoder, pre_tokenizer, normalizer."""
    model = obj.get("model") if isinstance(obj.get("model"), dict) else {}
    types = set()
    for key in ("decoder", "pre_tokenizer", "normalizer"):
        types.update(_types(obj.get(key)))
    if "ByteLevel" in types:
        return Scheme.BYTE_LEVEL
    if (
        model.get("byte_fallback") is True
        or "ByteFallback" in types
        or "Metaspace" in types
        or _replaces_sp_space(obj.get("decoder"))
        or _replaces_sp_space(obj.get("normalizer"))
    ):
        return Scheme.SENTENCEPIECE
    if model.get("type") == "WordPiece" or "WordPiece" in types:
        return Scheme.WORDPIECE
    return Scheme.LITERAL


def _decoder_prefix(decoder) -> str:
    """The continuation prefix a WordPiece decoder strips (`##`), if that is the decoder."""
    if isinstance(decoder, dict) and decoder.get("type") == "WordPiece" and isinstance(decoder.get("prefix"), str):
        return decoder["prefix"]
    return ""


_NOT_BYTE_ALPHABET = re.compile("[^" + re.escape("".join(BYTE_TO_CHAR)) + "]")


def vocab_json_scheme(obj: dict) -> Scheme:
    """A vocab.json has no decoder to say how it is stored. GPT-2-style ones hold only the
    byte alphabet (a few specials aside); one where many tokens leave it was exported from
    a SentencePiece (`▁`) or plain-text vocabulary, and byte-level errors would be false."""
    keys = "".join(obj)
    outside = sum(1 for _ in islice(_NOT_BYTE_ALPHABET.finditer(keys), 4096))
    if outside <= max(16, len(obj) // 100):
        return Scheme.BYTE_LEVEL
    return Scheme.SENTENCEPIECE if SP_SPACE in keys else Scheme.LITERAL


def _word_suffix(model: dict, decoder) -> str:
    """The end-of-word suffix (CLIP's `</w>`): the model's, else a BPEDecoder's (whose
    default is `</w>`), found in a Sequence too."""
    suffix = model.get("end_of_word_suffix")
    if isinstance(suffix, str) and suffix:
        return suffix
    nodes = [decoder]
    while nodes:
        node = nodes.pop()
        if isinstance(node, list):
            nodes.extend(node)
        elif isinstance(node, dict):
            if node.get("type") == "BPEDecoder":
                suffix = node.get("suffix", CLIP_SUFFIX)
                return suffix if isinstance(suffix, str) else ""
            nodes.append(node.get("decoders"))
    return ""


def vocab_json_suffix(tokens: dict) -> str:
    """`</w>` when a vocab.json is CLIP's: every byte character also stands with the
    suffix, as a word's last symbol (256 lookups, not a pass over the vocabulary)."""
    return CLIP_SUFFIX if sum(1 for c in BYTE_TO_CHAR if c + CLIP_SUFFIX in tokens) >= 128 else ""


def _added_entry_ok(entry) -> bool:
    if not isinstance(entry, dict):
        return False
    tid = entry.get("id")
    return isinstance(entry.get("content"), str) and type(tid) is int and tid >= 0


DEFER_MERGES_BYTES = 1 << 20  # smaller files are parsed in one piece
_WINDOW = 1 << 15  # items per C-level pass where other threads must get the interpreter
MIN_SCAN_BYTES = 1 << 20  # smaller merges are hashed in-process (a fork costs more)
# merge hashes keep 32 bits (half the memory): a match is confirmed on the strings anyway
MERGE_HASH = "I"
_LOW32 = 0xFFFFFFFF


def merge_hash(token: str) -> int:
    return hash(token) & _LOW32


def parse_deferring_merges(data: bytes) -> tuple[object, tuple[int, int] | None]:
    """orjson.loads(data); for a large tokenizer.json, without model.merges, whose source
    range comes back instead. Checking the merges while parsing them in a forked child,
    in parallel with the vocabulary checks here, is what makes opening a file fast.
    Raises orjson.JSONDecodeError like orjson.loads (merges errors come out later)."""
    if len(data) >= DEFER_MERGES_BYTES:
        model = value_start(data, "model")
        start = value_start(data, "merges", model) if model is not None else None
        end = trailing_array_end(data, start) if start is not None else None
        if end is not None:
            view = memoryview(data)
            vocab = value_start(data, "vocab", model, start)
            vocab_end = data.rfind(b"}", vocab, start) + 1 if vocab is not None else 0
            cut = (vocab, vocab_end) if vocab_end > (vocab or 0) and data[vocab : vocab + 1] == b"{" else None
            pieces = (view[:cut[0]], b"{}", view[cut[1] : start]) if cut else (view[:start],)
            try:
                obj = orjson.loads(b"".join((*pieces, b"[]", view[end:])))
            except orjson.JSONDecodeError:
                obj = None
            if is_tokenizer_json(obj) and obj["model"].get("merges") == [] and obj["model"].get("type", "BPE") == "BPE":
                if cut is not None:
                    obj["model"]["vocab"] = _parse_object_in_pieces(data, *cut)
                return obj, (start, end)
    return orjson.loads(data), None


def _parse_object_in_pieces(data: bytes, start: int, end: int) -> dict:
    """orjson.loads(data[start:end]) for a flat object, 64 KB at a time: one
    call on the whole vocab holds the interpreter for 60 ms, and hovers wait for it."""
    out: dict = {}
    view = memoryview(data)
    for lo, hi in line_windows(data, start + 1, end - 1, 1 << 16):
        body = view[lo:hi].tobytes().rstrip()
        if body.endswith(b","):
            if hi >= end - 1:  # a comma before the closing brace: orjson says where
                return orjson.loads(view[start:end])
            body = body[:-1]
        try:
            part = orjson.loads(b"{" + body + b"}")
        except orjson.JSONDecodeError:  # not one entry per line: the object in one go
            return orjson.loads(view[start:end])
        out.update(part)
    return out


_CONTENT_RE = re.compile(rb'(?<!\\)"content"\s*:\s*(' + STRING + rb")")


def _string_merge_part(data: bytes, span: tuple[int, int], part: int) -> tuple[int, int]:
    """The source range of one part of a `"a b"` merge literal (quotes excluded)."""
    s, e = span
    sep = data.find(b" ", s + 1, e)
    if sep < 0:
        return span
    return (s + 1, sep) if part == 0 else (sep + 1, e - 1)


def _shown_value(source: bytes) -> str:
    """A JSON value for a message: compact (one line whatever its layout), quoted, short."""
    try:
        text = json.dumps(orjson.loads(source), ensure_ascii=False)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        text = source.decode("utf-8", "replace")
    return checks._q(text if len(text) <= 60 else text[:57] + "...")


def _row_problem(row, source: bytes) -> str:
    """Why a Unigram vocab row is not [piece, score], in words."""
    shown = _shown_value(source)
    if not isinstance(row, list):
        return f"is {shown}, not a list"
    if len(row) != 2:
        return f"{shown} has {len(row)} element{'s' if len(row) != 1 else ''}"
    if not isinstance(row[0], str):
        return f"{shown} has a piece that is not a string"
    return f"{shown} has a score that is not a number"


def _added_problem(entry) -> str:
    if not isinstance(entry, dict):
        return "is not an object with `content` and `id`"
    problems = []
    if not isinstance(entry.get("content"), str):
        problems.append("no string `content`" if "content" in entry else "no `content`")
    tid = entry.get("id")
    if not (type(tid) is int and tid >= 0):
        problems.append("an `id` that is not a non-negative integer" if "id" in entry else "no `id`")
    return "has " + " and ".join(problems)


class JsonDocument:
    """A parsed tokenizer.json or vocab.json with lazy source positions."""

    def __init__(self, data: bytes, obj: dict, fmt: str, merges_span: tuple[int, int] | None = None) -> None:
        self.data = data
        self.format = fmt
        self.added_list: list[dict] = []
        # source range of model.merges when parse_deferring_merges left it out of obj
        self.merges_span = merges_span
        self._merges_source = merges_span  # kept after the lookups drop merges_span
        if fmt == "vocab.json":
            self.vocab = Vocabulary(scheme=vocab_json_scheme(obj), tokens=obj, word_suffix=vocab_json_suffix(obj))
            self.vocab_start = data.find(b"{")
            self.merges_start = None
            self.added_start = None
            self.unigram = False
        else:
            self._from_tokenizer_json(obj)
        self._tables: dict | None = None

    def _from_tokenizer_json(self, obj: dict) -> None:
        data = self.data
        model = obj["model"]
        mtype = model.get("type") or ("Unigram" if isinstance(model["vocab"], list) else "BPE")
        raw_vocab = model["vocab"]
        self.unigram = isinstance(raw_vocab, list)
        # a vocabulary of the other model's shape: tokenizers cannot load it (one finding)
        self.vocab_shape_error = self.unigram != (mtype == "Unigram")
        if self.unigram:
            self.unigram_list = raw_vocab
            tokens = {}
            self.unigram_dups: list[int] = []  # list positions of pieces seen before
            self.bad_rows = []
            for i, entry in enumerate(raw_vocab):
                if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                        and type(entry[1]) in (int, float)):
                    self.bad_rows.append(i)
                # a piece, also from a row of the wrong shape (or a bare string, in the
                # list a BPE or WordPiece vocab should not be): hovers still find it
                piece = entry[0] if isinstance(entry, list) and entry else entry
                if isinstance(piece, str):
                    if piece in tokens:
                        self.unigram_dups.append(i)
                    tokens[piece] = i  # as HF's token_to_ids: the last one wins
        else:
            values = list(raw_vocab.values())
            # in windows: one pass over 262k values holds the interpreter for 7 ms
            ints_only = all(set(map(type, values[i : i + _WINDOW])) <= {int} for i in range(0, len(values), _WINDOW))
            del values
            tokens = raw_vocab if ints_only else {k: v for k, v in raw_vocab.items() if type(v) is int}
            if not ints_only or (raw_vocab and min(raw_vocab.values()) < 0):
                self.bad_ids = [k for k, v in raw_vocab.items() if type(v) is not int or v < 0]
                tokens = {k: v for k, v in tokens.items() if v >= 0}
        added = obj.get("added_tokens") if isinstance(obj.get("added_tokens"), list) else []
        self.added_list = [a for a in added if isinstance(a, dict)]
        # entries tokenizers cannot load: not an object, no string content or integer id
        self.bad_added = [i for i, a in enumerate(added) if not _added_entry_ok(a)]
        # where each entry of added_list is in the source array (it skips non-objects)
        self.added_positions = [i for i, a in enumerate(added) if isinstance(a, dict)]
        added_ids = {}
        special = set()
        for a in self.added_list:
            c, i = a.get("content"), a.get("id")
            if isinstance(c, str) and isinstance(i, int):
                added_ids.setdefault(c, i)
                if a.get("special"):
                    special.add(c)
        merges = model.get("merges") if isinstance(model.get("merges"), list) else None
        self.merges_not_list = "merges" in model and not isinstance(model.get("merges"), list)
        pairs = bool(merges) and isinstance(merges[0], list)
        if self.merges_span is not None:
            merges = None  # parsed in pieces by pending_findings
            pairs = next_char(data, self.merges_span[0] + 1) == ord("[")
        self.vocab = Vocabulary(
            scheme=scheme_of(obj),
            tokens=tokens,
            model_type=mtype,
            merges=merges,
            merges_as_pairs=pairs,
            added=added_ids,
            special=special,
            subword_prefix=model.get("continuing_subword_prefix") or _decoder_prefix(obj.get("decoder")),
            word_suffix=_word_suffix(model, obj.get("decoder")),
            ignore_merges=bool(model.get("ignore_merges")),
        )
        model_start = value_start(data, "model") or 0
        self.vocab_start = value_start(data, "vocab", model_start)
        if self.merges_span is not None:
            self.merges_start = self.merges_span[0]
        else:
            self.merges_start = value_start(data, "merges", model_start) if merges is not None else None
        self.added_start = value_start(data, "added_tokens", 0, model_start or None) if added else None

    # ---- findings -------------------------------------------------------------------

    def all_merges(self) -> list:
        """Every merge as stored, parsed from the text when it was parsed apart (a new list
        each time: the index keeps none once its lookups are built)."""
        if self.vocab.merges is not None:
            return self.vocab.merges
        if self._merges_source is None:
            return []
        s, e = self._merges_source
        merges = orjson.loads(memoryview(self.data)[s:e])
        return merges if isinstance(merges, list) else []

    def pending_findings(self, fragments: bool = True) -> list[PendingFinding]:
        if self._tables is not None and self.merge_count:
            raise RuntimeError("findings must come before build_tables, which drops the merges")
        if self.merges_span is not None:
            return self._pending_deferred(fragments)
        v = self.vocab
        # on large files a forked child checks the vocabulary and the first merges while
        # this process checks the other merges (see _pending_deferred)
        n = len(v.merges or ())
        split = max(0, self._child_merges(n, merge_cost=1.0))
        child = hooks.beside(self._child_parsed, split, fragments) if n + len(v.tokens) >= MIN_PARALLEL_WORK else None
        mine = checks.merge_findings(v, split) if child and split < n else []
        out, key_count, first = child.result() if child else self._child_parsed(n, fragments)
        self.__dict__["source_key_count"] = key_count  # counted in the child
        return out + first + mine

    def _pending_deferred(self, fragments: bool) -> list[PendingFinding]:
        """The merges are still text. A forked child checks the vocabulary and the first
        merges while this process parses and checks the other merges. That way round,
        this process only reads the parsed vocabulary while the child lives: writes (even
        reference counts) would fault in copies of the pages they touch, and a thread
        stalled on those faults is a hover that waits."""
        v = self.vocab
        s, e = self.merges_span
        pairs = v.merges_as_pairs
        n = max(1, count_in_windows(self.data, b"[" if pairs else b'",', s + 1, e))  # about the merge count
        take = self._child_merges(n)
        cut = element_boundary(self.data, s + (e - s) * take // n, e, pairs) if 0 < take < n else None
        if take <= 0:
            chunks = [None, (s, e)]
        elif take >= n or cut is None:
            chunks = [(s, e), None]
        else:
            chunks = [(s, cut[0]), (cut[1], e)]
        child = hooks.beside(self._child_deferred, chunks[0], fragments) if n + len(v.tokens) >= MIN_PARALLEL_WORK else None
        # this process's share, a piece at a time (all at once would hold them all in
        # memory), before the child says at which rank it starts
        flagged, parsed_ok, local = [], True, 0
        for span, merges in self._merge_pieces(chunks[1]) if chunks[1] else ():
            if merges is None:
                parsed_ok = False
                break
            if checks.merge_findings(v, 0, merges=merges):
                flagged.append((span, local))
            local += len(merges)
        out, key_count, first = child.result() if child else self._child_deferred(chunks[0], fragments)
        self.__dict__["source_key_count"] = key_count  # counted in the child
        if first is None or not parsed_ok:
            raise orjson.JSONDecodeError("model.merges is not valid JSON", "", 0)
        done, count = first
        for span, base in flagged:  # rare: messages name ranks, so check again with the right ones
            done += checks.merge_findings(v, count + base, merges=self._parse_merge_chunk(span))
        return out + done

    bad_ids: list[str] = []  # vocab keys whose id is not a non-negative integer
    bad_rows: list[int] = []  # Unigram rows that are not [piece, score]
    merges_not_list = False

    vocab_shape_error = False
    bad_added: list[int] = []  # added_tokens entries tokenizers cannot load
    added_positions: list[int] = []

    _MAX_SCHEMA = 1000  # findings per kind: a wholly wrong file says so without drowning

    def _schema_findings(self) -> list[PendingFinding]:
        """What `tokenizers` would refuse to load although the JSON parses. There is no code
        for it in the contract: json-syntax is the nearest (the file cannot be loaded)."""
        out: list[PendingFinding] = []
        data, cannot = self.data, "tokenizers cannot load this file"
        if not (self.vocab_shape_error or self.bad_rows or self.bad_ids or self.merges_not_list or self.bad_added):
            return out  # every file tokenizers writes
        model_start = value_start(data, "model") or 0
        if self.vocab_shape_error and self.vocab_start is not None:
            key = data.rfind(b'"vocab"', model_start, self.vocab_start)
            mtype = self.vocab.model_type
            want = ("a list of [piece, score] rows" if mtype == "Unigram"
                    else "an object of token: id (a list is the Unigram form)")
            out.append(PendingFinding("json-syntax", Ref("span", key, key + len(b'"vocab"')) if key >= 0
                                      else Ref("span", self.vocab_start, self.vocab_start + 1),
                                      f"model.vocab of a {checks._q(str(mtype))} model must be {want}; {cannot}"))
        elif self.bad_rows and self.vocab_start is not None:
            rows = self.bad_rows[: self._MAX_SCHEMA]
            where = array_element_spans(data, self.vocab_start, set(rows))
            for i in rows:
                if i in where:
                    why = _row_problem(self.unigram_list[i], data[where[i][0] : where[i][1]])
                    out.append(PendingFinding("json-syntax", Ref("span", *where[i]),
                                              f"Unigram vocab row {i} {why}; a row is [piece, score]; {cannot}"))
        if self.bad_ids and self.vocab_start is not None:
            loc = Locator(data, self.vocab_start)
            for k in self.bad_ids[: self._MAX_SCHEMA]:
                span = loc.find(k, b":")
                if span:
                    value = value_span(data, span[1]) or span
                    out.append(PendingFinding("json-syntax", Ref("span", *value),
                               f"the id of {checks._q(k)} must be a non-negative integer, not "
                               f"{_shown_value(data[value[0] : value[1]])}; {cannot}"))
        if self.merges_not_list:
            at = data.find(b'"merges"', model_start)
            if at >= 0:
                value = value_span(data, at + len(b'"merges"'))
                got = f", not {_shown_value(data[value[0] : value[1]])}" if value else ""
                out.append(PendingFinding("json-syntax", Ref("span", at, at + len(b'"merges"')),
                           f"model.merges must be a list of merges{got}; {cannot}"))
        if self.bad_added and self.added_start is not None:
            entries = self.bad_added[: self._MAX_SCHEMA]
            where = array_element_spans(data, self.added_start, set(entries))
            for i in entries:
                if i in where:
                    s, e = where[i]
                    try:
                        entry = orjson.loads(data[s:e])
                    except orjson.JSONDecodeError:
                        entry = None
                    out.append(PendingFinding("json-syntax", Ref("span", s, e),
                                              f"added token {i} {_added_problem(entry)}; {cannot}"))
        return out

    def _vocab_share(self, fragments: bool) -> tuple[list[PendingFinding], int]:
        """(vocab, added and id findings, source key count)."""
        v = self.vocab
        out = self._schema_findings()
        out += checks.vocab_findings(v, fragments)
        out += checks.added_findings(v, self.added_list)
        out += checks.id_findings(v, self._duplicate_keys())
        return out, self.source_key_count

    def _child_deferred(self, chunk: tuple[int, int] | None, fragments: bool):
        """_vocab_share and (findings, count) of the merges in `chunk` (None when they
        do not parse)."""
        return (*self._vocab_share(fragments), self._check_merge_chunk(chunk) if chunk else ([], 0))

    def _child_parsed(self, split: int, fragments: bool):
        """_vocab_share and the findings of the first `split` parsed merges."""
        return (*self._vocab_share(fragments), checks.merge_findings(self.vocab, 0, split) if split else [])

    def _check_merge_chunk(self, chunk: tuple[int, int]) -> tuple[list[PendingFinding], int] | None:
        """Findings and count of the merges in a slice of the merges array that starts at
        rank 0; None if the slice is not an array."""
        merges = self._parse_merge_chunk(chunk)
        if merges is None:
            return None
        return checks.merge_findings(self.vocab, 0, merges=merges), len(merges)

    def _parse_merge_chunk(self, chunk: tuple[int, int]) -> list | None:
        s, e = chunk
        array_start, array_end = self.merges_span
        view = memoryview(self.data)
        text = b"".join((b"" if s == array_start else b"[", view[s:e], b"" if e == array_end else b"]"))
        try:
            merges = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        return merges if isinstance(merges, list) else None

    def _child_merges(self, n: int, merge_cost: float = 2.0) -> int:
        """How many of about n merges the child takes, beside the vocabulary, so both
        processes finish together; from measured costs (microseconds per item on the
        2-core reference machine; a merge costs twice as much when it is parsed as well
        as checked). 0 or less: none."""
        tokens = len(self.vocab.tokens)
        vocab_cost = (1.05 if self.vocab.scheme is Scheme.BYTE_LEVEL else 0.1) * tokens + 0.5 * tokens
        return min(n, int((merge_cost * n - vocab_cost) / (2 * merge_cost)))

    def findings(self) -> list[Finding]:
        pending = self.pending_findings()
        spans = self.resolve([p.ref for p in pending])
        found = [Finding(p.code, s, e, p.message) for p, (s, e) in zip(pending, spans)]
        found.sort(key=lambda f: f.start)
        return found

    def _duplicate_keys(self) -> list[tuple[int, int, str]]:
        if self.unigram and self.vocab_start is not None:
            dups = getattr(self, "unigram_dups", [])
            where = array_element_spans(self.data, self.vocab_start, set(dups))
            return [(*where[i], self.unigram_list[i][0]) for i in dups if i in where]
        if self.vocab_start is None or self.source_key_count <= len(self.vocab.tokens):
            return []
        seen: set[str] = set()
        dups = []
        for s, e in self._exact_key_spans or []:
            tok = orjson.loads(self.data[s:e])
            if tok in seen:
                dups.append((s, e, tok))
            seen.add(tok)
        return dups

    _exact_key_spans: list[tuple[int, int]] | None = None

    @cached_property
    def source_key_count(self) -> int:
        """Entries of the vocab as written, duplicates included."""
        if self.vocab_start is None:
            return 0
        if self.unigram:
            return len(self.unigram_list)
        end = len(self.data)
        if (self.merges_start or 0) > self.vocab_start:
            end = self.data.rfind(b'"merges"', self.vocab_start, self.merges_start)
        n = key_count_estimate(self.data, self.vocab_start, end)
        if n <= len(self.vocab.tokens):
            return len(self.vocab.tokens)
        self._exact_key_spans = object_key_spans(self.data, self.vocab_start)
        return len(self._exact_key_spans)

    def resolve(self, refs: list[Ref]) -> list[tuple[int, int]]:
        """Source ranges of references, located in one forward pass per kind."""
        out: list[tuple[int, int]] = [(0, 0)] * len(refs)
        by_kind: dict[str, list[int]] = {}
        for i, r in enumerate(refs):
            by_kind.setdefault(r.kind, []).append(i)
        fallback = (0, min(1, len(self.data)))
        needs_list = any(refs[i].token is None for i in by_kind.get("vocab", ()))
        tokens = list(self.vocab.tokens) if needs_list else []
        added_spans = self._added_content_spans() if ("added" in by_kind or "added-id" in by_kind) else []
        for kind, idxs in by_kind.items():
            idxs.sort(key=lambda i: refs[i].key)
            if kind == "span":
                for i in idxs:
                    out[i] = (refs[i].key, refs[i].end)
            elif kind == "vocab" and self.vocab_start is not None:
                loc = Locator(self.data, self.vocab_start)
                follow = b"," if self.unigram else b":"
                for i in idxs:
                    tok = refs[i].token if refs[i].token is not None else tokens[refs[i].key]
                    out[i] = loc.find(tok, follow) or fallback
            elif kind == "merge" and self.merges_start is not None:
                loc = Locator(self.data, self.merges_start)
                # as stored ("a b" or [a, b]); parsed from the text only for malformed merges
                merges = self._merges_by_rank({refs[i].key for i in idxs if refs[i].pair is None})
                for i in idxs:
                    if refs[i].pair is not None:
                        a, b = refs[i].pair
                        merges[refs[i].key] = [a, b] if self.vocab.merges_as_pairs else f"{a} {b}"
                found: dict[int, tuple | None] = {}  # rank -> literal span(s), located once
                for i in idxs:
                    rank, part = refs[i].key, refs[i].part
                    m = merges.get(rank)
                    if rank not in found:
                        if isinstance(m, str):
                            found[rank] = loc.find(m, b",]")
                        elif isinstance(m, list) and len(m) == 2 and all(isinstance(p, str) for p in m):
                            found[rank] = loc.find_pair(m[0], m[1])
                        else:
                            found[rank] = None
                    spans = found[rank]
                    span = None
                    if spans is not None and isinstance(m, str):
                        span = _string_merge_part(self.data, spans, part) if part is not None else spans
                    elif spans is not None:
                        span = spans[part] if part is not None else (spans[0][0], spans[1][1])
                    out[i] = span or (self.merges_start, self.merges_start + 1)
                # malformed merges (not two strings): found by their place in the array
                lost = {refs[i].key for i in idxs if found.get(refs[i].key) is None}
                if lost:
                    where = array_element_spans(self.data, self.merges_start, lost)
                    for i in idxs:
                        if refs[i].key in where and found.get(refs[i].key) is None:
                            out[i] = where[refs[i].key]
            elif kind == "added":
                for i in idxs:
                    k = refs[i].key
                    out[i] = added_spans[k][:2] if k < len(added_spans) else fallback
            elif kind == "added-id":
                by_id = {self.added_list[k].get("id"): s for k, s in enumerate(added_spans) if k < len(self.added_list)}
                for i in idxs:
                    s = by_id.get(refs[i].key)
                    out[i] = s[:2] if s else fallback
            else:
                for i in idxs:
                    out[i] = fallback
        return out

    def _merges_by_rank(self, ranks: set[int]) -> dict[int, object]:
        """The merges of these ranks as stored; merges still in the text are parsed a
        piece at a time and only those are kept (all at once: 60 ms with the interpreter
        held, and 100+ MB of lists on the largest files)."""
        if self.merges_span is None:
            merges = self.vocab.merges or []
            return {r: merges[r] for r in ranks if 0 <= r < len(merges)}
        out: dict[int, object] = {}
        if not ranks:
            return out
        todo = sorted(r for r in ranks if r >= 0)
        base = k = 0
        for _, merges in self._merge_pieces(self.merges_span):
            if merges is None or k == len(todo):
                break
            while k < len(todo) and todo[k] < base + len(merges):
                out[todo[k]] = merges[todo[k] - base]
                k += 1
            base += len(merges)
        return out

    def _added_content_spans(self) -> list[tuple[int, int]]:
        """The span of each added_list entry's content literal, in order. An entry without
        a string content (reported apart) gets an empty span at its start: the k-th
        `"content"` of the text is then not the k-th entry's."""
        if self.added_start is None:
            return []
        out = []
        if not self.bad_added:
            pos = self.added_start
            for _ in self.added_list:
                m = _CONTENT_RE.search(self.data, pos)
                if m is None:
                    break
                out.append(m.span(1))
                pos = m.end()
            return out
        where = array_element_spans(self.data, self.added_start, set(self.added_positions))
        for i in self.added_positions:
            s, e = where.get(i, (self.added_start, self.added_start))
            m = _CONTENT_RE.search(self.data, s, e)
            out.append(m.span(1) if m and isinstance(self.added_list[len(out)].get("content"), str) else (s, s))
        return out

    # ---- lookups for hover and hints -------------------------------------------------

    def build_tables(self) -> None:
        """Literal tables for the vocab and merges regions, and hashes of every merge for
        the typing fast path (one C-level pass each; call off the event loop). The parsed
        merges are dropped afterwards: 500k small lists cost over 100 MB, and a merge is
        read back from its literal when a hover or an edit needs it."""
        if self._tables is not None:
            return
        self._compact_vocab()  # first: the dict's memory is free for what follows
        tables: dict = {}
        # merges still in the text: a forked child parses and hashes them while this
        # process builds the literal tables (which only read the text)
        span = self.merges_span
        child = hooks.beside(self._scan_merges) if span is not None and span[1] - span[0] >= MIN_SCAN_BYTES else None
        if self.vocab_start is not None:
            t = LiteralTable(self.data, self.vocab_start, self.source_key_count)
            if self._first_matches(t, next(iter(self.vocab.tokens), None)):
                tables["vocab"] = t
        if self.merges_start is not None:
            ahead = LiteralTable(self.data, self.merges_start, 1 << 62, span[1]) if child else None
            count, shape_ok, first, hashes = child.result() if child else self._scan_merges()
            n = (2 * count if shape_ok else 0) if self.vocab.merges_as_pairs else count
            if n:
                t = ahead if ahead is not None and len(ahead) == n else LiteralTable(self.data, self.merges_start, n)
                if self._first_matches(t, first) and len(t) == n:
                    tables["merges"] = t
                    self.merge_count = count
                    self.merge_hashes = hashes
        tables["added"] = self._added_content_spans()
        self.vocab.merges = None
        self.merges_span = None
        self._tables = tables

    def _compact_vocab(self) -> None:
        """Swap the vocab dict for flat arrays: after the checks only single lookups remain
        (the dict is most of an index's memory)."""
        tokens = self.vocab.tokens
        if type(tokens) is not dict:
            return
        try:
            self.vocab.tokens = CompactTokens(tokens)
        except (OverflowError, TypeError):  # ids that are not 64-bit ints: keep the dict
            return
        _free_in_batches(tokens)

    merge_count = 0  # merges readable through the merges table
    # merge_hash() of each merge's first part, second part and result, packed in
    # MERGE_HASH format (None when some merge is not two strings)
    merge_hashes: tuple[bytes, bytes, bytes] | None = None

    def _scan_merges(self) -> tuple[int, bool, object, tuple[bytes, bytes, bytes] | None]:
        """(count, all pairs of two, first literal's value, hashes) over the merges,
        parsed a chunk at a time unless they already are."""
        v = self.vocab
        pairs = v.merges_as_pairs
        columns = [array(MERGE_HASH), array(MERGE_HASH), array(MERGE_HASH)]
        count, shape_ok, well_formed, first = 0, True, True, None
        for merges in self._merge_chunks():
            if merges is None:  # unparsable (the findings said so already)
                return 0, False, None, None
            if not merges:
                continue
            if first is None:
                first = merges[0][0] if pairs and isinstance(merges[0], list) and merges[0] else merges[0]
            count += len(merges)
            if pairs:
                shape_ok = shape_ok and set(map(type, merges)) == {list} and set(map(len, merges)) == {2}
            if well_formed and shape_ok:
                well_formed = _hash_merges(v, merges, columns)
        hashes = None
        if well_formed and shape_ok:
            packed = []
            while columns:  # one column's copy at a time
                packed.append(columns.pop(0).tobytes())
            hashes = tuple(packed)
        return count, shape_ok, first, hashes

    def _merge_chunks(self):
        if self.vocab.merges is not None or self.merges_span is None:
            merges = self.vocab.merges or []
            for lo in range(0, len(merges), _WINDOW // 4):  # short C calls, as for pieces
                yield merges[lo : lo + _WINDOW // 4]
            return
        for _, merges in self._merge_pieces(self.merges_span):
            yield merges

    def _merge_pieces(self, span: tuple[int, int], size: int = 1 << 16):
        """(piece's span, its merges) over a slice of the merges array, parsed `size`
        bytes at a time (one orjson call on 10 MB holds the interpreter for 80 ms);
        the merges are None for a piece that does not parse, and the last."""
        s, e = span
        while s < e:
            cut = element_boundary(self.data, s + size, e, self.vocab.merges_as_pairs) if s + size < e else None
            piece = (s, cut[0]) if cut else (s, e)
            merges = self._parse_merge_chunk(piece)
            yield piece, merges
            if merges is None or cut is None:
                return
            s = cut[1]

    def merge_at(self, rank: int) -> tuple[str, str] | None:
        """The two parts of the merge of this rank, read from its literal(s)."""
        if self.vocab.merges is not None:
            return split_merge(self.vocab.merges[rank], self.vocab.merges_as_pairs) if 0 <= rank < len(self.vocab.merges) else None
        table = (self._tables or {}).get("merges")
        if table is None or not 0 <= rank < self.merge_count:
            return None
        try:
            if self.vocab.merges_as_pairs:
                (s1, e1), (s2, e2) = table.span(2 * rank), table.span(2 * rank + 1)
                return split_merge([orjson.loads(self.data[s1:e1]), orjson.loads(self.data[s2:e2])], True)
            s, e = table.span(rank)
            return split_merge(orjson.loads(self.data[s:e]), False)
        except orjson.JSONDecodeError:
            return None

    def _first_matches(self, table: LiteralTable, token) -> bool:
        if not len(table) or token is None:
            return False
        try:
            s, e = table.span(0)
            return orjson.loads(self.data[s:e]) == token
        except orjson.JSONDecodeError:
            return False

    @property
    def tables_ready(self) -> bool:
        return self._tables is not None

    def token_at(self, offset: int) -> TokenRef | None:
        if self._tables is None:
            return None
        for role, table in self._tables.items():
            if role == "added":
                for k, (s, e) in enumerate(table):
                    if s <= offset < e:
                        return self._ref(role, k, s, e)
                continue
            k = table.at_offset(offset)
            if k is not None:
                return self._ref(role, k, *table.span(k))
        return None

    def tokens_in(self, start: int, end: int) -> list[TokenRef]:
        if self._tables is None:
            return []
        out: list[TokenRef] = []
        for role, table in self._tables.items():
            if role == "added":
                out.extend(self._ref(role, k, s, e) for k, (s, e) in enumerate(table) if start <= s < e <= end)
                continue
            for k in table.within(start, end):
                out.append(self._ref(role, k, *table.span(k)))
        out.sort(key=lambda r: r.start)
        return out

    def _ref(self, role: str, k: int, s: int, e: int) -> TokenRef:
        token = orjson.loads(self.data[s:e])
        if role == "merges":
            if self.vocab.merges_as_pairs:
                rank, part = divmod(k, 2)
                return TokenRef(s, e, "merge", token, rank, part)
            return TokenRef(s, e, "merge", token, k, None)
        return TokenRef(s, e, "vocab" if role == "vocab" else "added", token)


def _hash_merges(v: Vocabulary, merges: list, columns: list[array]) -> bool:
    """Append hashes of firsts, seconds and results; False if some merge is malformed."""
    split = checks.split_well_formed(merges, v.merges_as_pairs)
    if split is None:
        return False
    parts, results = split
    firsts, seconds = parts[0::2], parts[1::2]
    if v.subword_prefix:
        results = list(map(v.merge_result, firsts, seconds))
    for column, values in zip(columns, (firsts, seconds, results)):
        column.extend(map(and_, map(hash, values), repeat(_LOW32)))
    return True


def _free_in_batches(d: dict) -> None:
    """Empty a large dict a few thousand keys at a time: freeing 260k strings in one go
    holds the interpreter for 20 ms (hovers wait), in batches the event loop gets it
    back between them."""
    keys = list(d)
    d.clear()  # the values (ints, in one C call of a few ms) and the table
    while keys:
        del keys[-_WINDOW // 4 :]
