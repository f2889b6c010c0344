"""tokenizer.json and vocab.json: values from orjson, positions from json_layout.

A JsonDocument is the parse and what resolves positions in it: the source ranges of what
the checks flag (resolve.py) and the lookups hovers and hints need (lookups.py), built
once, after the findings, off the event loop. It makes no finding itself: the checks do
(checks.py, schema.py), called by the index's build.
"""

from __future__ import annotations

from functools import cached_property

import orjson

from ...model import TokenRef, Vocabulary
from .components import configuration_problems
from .layout import element_boundary, key_count_estimate, next_char, object_key_spans, value_start
from .lookups import MERGE_HASH, JsonLookups, merge_hash
from .parse import DEFER_MERGES_BYTES, parse_deferring_merges
from .resolve import JsonResolver
from .schema import _added_entry_ok
from .scheme import _decoder_prefix, _word_suffix, scheme_of, vocab_json_scheme, vocab_json_suffix

_WINDOW = 1 << 15  # items per C-level pass where other threads must get the interpreter
__all__ = ["DEFER_MERGES_BYTES", "MERGE_HASH", "JsonDocument", "TokenRef", "merge_hash", "parse_deferring_merges"]


class JsonDocument(JsonResolver, JsonLookups):
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
                if not (
                    isinstance(entry, list)
                    and len(entry) == 2
                    and isinstance(entry[0], str)
                    and type(entry[1]) in (int, float)
                ):
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
        # unknown types, missing or mistyped fields outside the vocab, merges and added tokens
        self.config_problems = configuration_problems(obj)
        # what the chat-template checks ask (does encoding add a BOS?), kept: the folder's
        # config checks would otherwise read the whole file again from disk
        post = obj.get("post_processor")
        self.post_processor = post if isinstance(post, dict) else None
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
            merges = None  # parsed in pieces by the checks (checks.py pending_findings)
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
            unloadable=frozenset(self.bad_ids),
        )
        model_start = value_start(data, "model") or 0
        self.vocab_start = value_start(data, "vocab", model_start)
        if self.merges_span is not None:
            self.merges_start = self.merges_span[0]
        else:
            self.merges_start = value_start(data, "merges", model_start) if merges is not None else None
        self.added_start = value_start(data, "added_tokens", 0, model_start or None) if added else None

    # ---- the text, parsed in pieces -----------------------------------------------

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

    bad_ids: list[str] = []  # vocab keys whose id is not a non-negative integer
    bad_rows: list[int] = []  # Unigram rows that are not [piece, score]
    merges_not_list = False

    vocab_shape_error = False
    config_problems: list = []  # (path, kind, message) from json_components
    bad_added: list[int] = []  # added_tokens entries tokenizers cannot load
    added_positions: list[int] = []

    def _parse_merge_chunk(self, chunk: tuple[int, int], array: tuple[int, int] | None = None) -> list | None:
        """The merges of a slice of the merges array (`array`: its bounds, by default the
        part of the text parse_deferring_merges left out)."""
        s, e = chunk
        array_start, array_end = array or self.merges_span
        view = memoryview(self.data)
        text = b"".join((b"" if s == array_start else b"[", view[s:e], b"" if e == array_end else b"]"))
        try:
            merges = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        return merges if isinstance(merges, list) else None

    _exact_key_spans: list[tuple[int, int]] | None = None
    # merges the build's checks parsed from the text (set then, by checks._pending_deferred):
    # `stats` counts them without parsing them all again (gemma3: 0.7 s)
    checked_merge_count = 0

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

    def _merge_pieces(self, span: tuple[int, int], size: int = 1 << 16, array: tuple[int, int] | None = None):
        """(piece's span, its merges) over a slice of the merges array, parsed `size`
        bytes at a time (one orjson call on 10 MB holds the interpreter for 80 ms);
        the merges are None for a piece that does not parse, and the last."""
        s, e = span
        while s < e:
            cut = element_boundary(self.data, s + size, e, self.vocab.merges_as_pairs) if s + size < e else None
            piece = (s, cut[0]) if cut else (s, e)
            merges = self._parse_merge_chunk(piece, array)
            yield piece, merges
            if merges is None or cut is None:
                return
            s = cut[1]
