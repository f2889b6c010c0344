"""`diff`, first step: each tokenizer file read into a `Side`, by our own parsers (no engine).

A tokenizer.json's config sections stay parsed JSON, its vocabulary a token -> id map, its
merges as stored; a vocab.json or merges file takes the other file of its pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from ... import detect
from ...decoding.display import visible_text
from ...decoding.tokens import Scheme, decode_token
from ...formats.json.scheme import (
    _decoder_prefix,
    _word_suffix,
    scheme_of,
    vocab_json_scheme,
    vocab_json_suffix,
)
from ...formats.merges.doc import MergesDocument
from ...formats.tiktoken.doc import TiktokenDocument
from ...index.build import collector_paused, load_vocabulary
from ..folder_added import added_entries

SECTIONS = ("normalizer", "pre_tokenizer", "post_processor", "decoder", "truncation", "padding")


class DiffError(Exception):
    """A file that cannot be compared: unreadable, not a tokenizer file, not JSON."""


@dataclass
class Side:
    """One tokenizer as diff sees it."""

    path: str | None
    format: str  # "tokenizer.json" | "vocab.json" | "merges.txt" | "tiktoken"
    scheme: Scheme
    model_type: str
    vocab: dict[str, int] | None  # stored form -> id (None: a merges file with no vocab.json beside it)
    merges: list | None = None  # as stored; None when the file has no merges list
    added: list[dict] = field(default_factory=list)
    config: dict | None = None  # section -> parsed value (tokenizer.json only)
    model: dict = field(default_factory=dict)  # model flags (every key but type, vocab, merges)
    subword_prefix: str = ""
    word_suffix: str = ""
    scores: dict | None = None  # Unigram: piece -> score (it decides the segmentation)
    # what each token stands for, when the format says it (a plug-in's table: cli/tables.py)
    token_bytes: dict[str, bytes] | None = None
    # piece types (NORMAL, CONTROL, BYTE...) where the format stores them (.model, GGUF)
    types: dict[str, str] | None = None
    # one token list by id (GGUF): whether an added token is also in the model vocabulary,
    # and its lstrip/rstrip/normalized/single_word, are not stored (core/behaviour/diff/flat.py)
    flat: bool = False

    def text_of(self, token: str) -> str:
        return visible_text(self.bytes_of(token))

    def bytes_of(self, token: str) -> bytes:
        if self.token_bytes is not None and token in self.token_bytes:
            return self.token_bytes[token]
        return decode_token(token, self.scheme, False, self.subword_prefix, self.word_suffix).data

    def by_bytes(self) -> tuple[dict[bytes, int], dict[bytes, str]]:
        """The vocabulary keyed by what each token stands for: bytes -> id and bytes ->
        stored form, each token decoded once (a pass over o200k's 200k costs seconds)."""
        keyed: dict[bytes, int] = {}
        stored: dict[bytes, str] = {}
        for token, i in (self.vocab or {}).items():
            b = self.bytes_of(token)
            keyed[b] = i
            stored[b] = token
        return keyed, stored


# ---- reading ---------------------------------------------------------------------------


def read_side(data: bytes, path: str | None, companion: bytes | None = None) -> Side:
    """A tokenizer file as diff compares it; `companion` is the other file of a vocab.json +
    merges pair (its merges for a vocab.json, its vocabulary for a merges file)."""
    with collector_paused():  # millions of parsed objects: a collection pass costs seconds
        return _read_side(data, path, companion)


def _read_side(data: bytes, path: str | None, companion: bytes | None) -> Side:
    name = path or "the file"
    kind = detect.content_kind(data, path) or detect.name_kind(path)
    if kind == "tiktoken":
        doc = TiktokenDocument(data)
        return Side(path, "tiktoken", Scheme.RAW_BYTES, "BPE", dict(doc.vocab.tokens))
    if kind == "merges":
        vocab = load_vocabulary(companion, None) if companion is not None else None
        doc = MergesDocument(data, vocab)
        tokens = dict(vocab.tokens) if vocab else None
        return Side(
            path,
            "merges.txt",
            Scheme.BYTE_LEVEL,
            "BPE",
            tokens,
            merges=doc.vocab.merges,
            added=added_entries(path, tokens) if tokens is not None else [],
            word_suffix=doc.vocab.word_suffix,
        )
    if kind != "json":
        from ...formats.registry import formats_read

        raise DiffError(f"{name}: not a tokenizer file (it reads {formats_read()})")
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        if detect.name_kind(path) != "json":  # text that merely starts with `[`
            from ...formats.registry import formats_read

            raise DiffError(f"{name}: not a tokenizer file (it reads {formats_read()})") from None
        raise DiffError(f"{name}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    if detect.is_tokenizer_json(obj):
        return _tokenizer_json(obj, path)
    if detect.is_vocab_json(obj) and detect.claims_vocab_json(obj, path):
        merges = MergesDocument(companion).vocab.merges if companion is not None else None
        # a slow folder's added tokens (added_tokens.json, the specials its configs or its
        # tokenizer class name) are the tokenizer's too, as transformers loads the folder
        return Side(
            path,
            "vocab.json",
            vocab_json_scheme(obj),
            "BPE",
            obj,
            merges=merges,
            added=added_entries(path, obj),
            word_suffix=vocab_json_suffix(obj),
        )
    raise DiffError(f"{name}: not a tokenizer file (JSON without a tokenizer model or token->id vocab)")


def _tokenizer_json(obj: dict, path: str | None) -> Side:
    model = obj["model"]
    raw = model["vocab"]
    unigram = isinstance(raw, list)
    mtype = model.get("type") or ("Unigram" if unigram else "BPE")
    vocab, scores = raw, None
    if unigram:  # [piece, score] rows; a piece's id is its row
        rows = [(i, r) for i, r in enumerate(raw) if isinstance(r, list) and len(r) == 2 and isinstance(r[0], str)]
        vocab = {r[0]: i for i, r in rows}
        scores = {r[0]: r[1] for _, r in rows}
    merges = model.get("merges") if isinstance(model.get("merges"), list) else None
    added = [a for a in obj.get("added_tokens") or [] if isinstance(a, dict)]
    flags = {k: v for k, v in model.items() if k not in ("type", "vocab", "merges")}
    return Side(
        path,
        "tokenizer.json",
        scheme_of(obj),
        mtype,
        vocab,
        merges,
        added,
        {k: obj.get(k) for k in SECTIONS},
        flags,
        model.get("continuing_subword_prefix") or _decoder_prefix(obj.get("decoder")) or "",
        _word_suffix(model, obj.get("decoder")),
        scores,
    )
