"""Tokens a tokenizer can never produce (`unreachable-token`, docs/features.md).

A model-vocab token is unreachable when its own decoded text, encoded with
add_special_tokens off, does not give back exactly that one token. Left out: added tokens,
tokens whose bytes are not UTF-8 (fragments), SentencePiece `<0xNN>` byte tokens, the empty
token. When the tokenizer adds a prefix space (`test` encodes to a space-marked token),
`«` + text is encoded and the token(s) covering `«` are dropped.

The engine decides (`encode_batch`, which runs in parallel in Rust; tiktoken's
`encode_ordinary`); this module only picks the texts and explains the few that fail. Its
cost on a 150k vocabulary is the engine's BPE on every token (about 1 s of CPU for qwen3),
so nothing here loops in Python over the vocabulary more than a few times.

Reasons, told only for the tokens found unreachable: an added token splits it (one of the
pieces is an added token), the normalizer rewrites it, the pre-tokenizer (or tiktoken's
split pattern) splits it, else no merge builds it. `ignore_merges` is never the cause: with
it a piece that is a vocab entry is taken whole, which only makes more tokens reachable.
"""

from __future__ import annotations

import base64
import codecs
import re
from bisect import bisect_right
from contextlib import contextmanager, nullcontext
from itertools import accumulate
from operator import methodcaller

from ...decoding.bytemap import BYTE_TO_CHAR
from ...decoding.tokens import SP_SPACE, Decoded, Scheme, decode_token, sp_byte
from ..loaded import LoadedTokenizer, TokenDecoding

PREFIX = "\u00ab"  # «: a character no tokenizer merges with the text after it
_BATCH = 1 << 14  # texts per encode_batch call: the Encodings of one batch are freed before the next
_MAX_PIECES_SHOWN = 12
_ENCODING_MAP = codecs.charmap_build("".join(BYTE_TO_CHAR))
# byte FF never occurs in UTF-8: a token holding it is a fragment, and between tokens it
# is a separator no decoding can swallow
_SEP = BYTE_TO_CHAR[0xFF]
_ESCAPED = re.compile("[\udc80-\udcfe]")  # bytes that were not UTF-8 (surrogateescape)


def unreachable_tokens(loaded: LoadedTokenizer) -> list[dict]:
    """[{"id", "token" (stored form), "text", "pieces": [{"id", "text"}], "reason"}] in
    id order; `text` of a piece is None when its bytes are not UTF-8 alone."""
    if loaded.kind == "tiktoken":
        return _tiktoken_unreachable(loaded)
    return _tokenizers_unreachable(loaded)


# ---- HF tokenizers ---------------------------------------------------------------------


def _tokenizers_unreachable(loaded: LoadedTokenizer) -> list[dict]:
    tok = loaded.engine
    if type(tok.model).__name__ != "BPE":
        return []  # WordPiece's ## pieces and Unigram are outside the definition (BPE only)
    if getattr(tok.model, "dropout", None):
        return []  # BPE-dropout encodes at random: "never produced" cannot be told
    decoding = loaded.decoding or _decoding_of(tok)
    added = tok.get_added_tokens_decoder()
    ids, stored = _model_vocab(tok, added)
    texts = token_texts(stored, decoding)
    picked = [k for k, text in enumerate(texts) if text]
    stored = [stored[k] for k in picked]
    ids = [ids[k] for k in picked]
    texts = [texts[k] for k in picked]
    prefix = PREFIX if _adds_prefix_space(tok, decoding) else ""
    found = _encoded_otherwise(tok, ids, texts, prefix)
    explain = Explainer(tok, decoding, prefix, set(added))
    out = [explain.entry(ids[k], stored[k], texts[k], pieces) for k, pieces in found]
    out.sort(key=lambda e: e["id"])
    return out


def _model_vocab(tok, added: dict) -> tuple[list[int], list[str]]:
    """Ids and stored forms of the model's own tokens, added tokens left out (by id, and by
    content: gemma3 repeats 6414 of its vocab entries as added tokens)."""
    size = tok.get_vocab_size(with_added_tokens=False)
    # ids are dense in real files: one C-level pass of id_to_token (get_vocab builds a
    # hashed dict, 3x slower); gaps (fewer tokens than the size says) take the long way
    found = list(map(tok.model.id_to_token, range(size)))
    if None in found:
        pairs = sorted((i, t) for t, i in tok.get_vocab(with_added_tokens=False).items())
    else:
        pairs = list(enumerate(found))
    contents = {a.content for a in added.values()}
    pairs = [(i, t) for i, t in pairs if i not in added and t not in contents]
    return [i for i, _ in pairs], [t for _, t in pairs]


def _decoding_of(tok) -> TokenDecoding:
    from ..load import token_decoding

    return token_decoding(tok)


def token_texts(stored: list[str], decoding: TokenDecoding) -> list[str | None]:
    """Each token's decoded text; None for a fragment, a byte token, a WordPiece
    continuation, and a piece without the end-of-word suffix of a model that has one."""
    plain = not decoding.word_suffix and not decoding.subword_prefix
    if plain and decoding.scheme is Scheme.BYTE_LEVEL:
        return _byte_level_texts(stored)
    if plain and decoding.scheme in (Scheme.SENTENCEPIECE, Scheme.LITERAL):
        if decoding.scheme is Scheme.LITERAL:
            return list(stored)
        texts: list[str | None] = list(map(methodcaller("replace", SP_SPACE, " "), stored))
        for k, t in enumerate(stored):
            if len(t) == 6 and sp_byte(t) is not None:
                texts[k] = None
        return texts
    out: list[str | None] = []
    for t in stored:
        if decoding.scheme is Scheme.SENTENCEPIECE and sp_byte(t) is not None:
            out.append(None)
            continue
        d = decode_token(t, decoding.scheme, False, decoding.subword_prefix, decoding.word_suffix)
        wanted = not d.continues and (d.ends_word or not decoding.word_suffix)
        out.append(d.text if wanted else None)
    return out


def _byte_level_texts(stored: list[str]) -> list[str | None]:
    """Byte-level tokens decoded in a few C calls (one charmap pass over all of them)."""
    out: list[str | None] = [None] * len(stored)
    where = [k for k, t in enumerate(stored) if _SEP not in t]
    joined = _SEP.join([stored[k] for k in where])
    try:
        data, _ = codecs.charmap_encode(joined, "strict", _ENCODING_MAP)
    except UnicodeEncodeError:  # characters outside the byte map (not-byte-level): one at a time
        return [_one_text(t, Scheme.BYTE_LEVEL) for t in stored]
    decoded = data.decode("utf-8", "surrogateescape")
    parts = decoded.split("\udcff")
    starts = list(accumulate((len(p) + 1 for p in parts), initial=0))
    bad = {bisect_right(starts, m.start()) - 1 for m in _ESCAPED.finditer(decoded)}
    for n, (k, part) in enumerate(zip(where, parts)):
        if n not in bad:
            out[k] = part
    return out


def _one_text(token: str, scheme: Scheme) -> str | None:
    return decode_token(token, scheme).text


def _adds_prefix_space(tok, decoding: TokenDecoding) -> bool:
    ids = tok.encode("test", add_special_tokens=False).ids
    if not ids:
        return False
    return _decode(tok.id_to_token(ids[0]) or "", decoding).data.startswith(b" ")


def _decode(token: str, decoding: TokenDecoding, added: bool = False) -> Decoded:
    scheme = Scheme.LITERAL if added else decoding.scheme
    return decode_token(token, scheme, False, decoding.subword_prefix, decoding.word_suffix)


def _encoded_otherwise(tok, ids: list[int], texts: list[str], prefix: str) -> list[tuple[int, list[int]]]:
    """(place, ids it encodes to) of each text that does not encode to exactly its token."""
    found: list[tuple[int, list[int]]] = []
    fast = getattr(tok, "encode_batch_fast", tok.encode_batch)  # no offsets: 15% less work
    with _without_post_processor(tok) if not prefix else nullcontext():
        for base in range(0, len(texts), _BATCH):
            batch = texts[base : base + _BATCH]
            if prefix:
                encs = tok.encode_batch([prefix + t for t in batch], add_special_tokens=False)
                got = [[i for i, (_, end) in zip(e.ids, e.offsets) if end > len(prefix)] for e in encs]
            else:
                got = [e.ids for e in fast(batch, add_special_tokens=False)]
            for k, (want, have) in enumerate(zip(ids[base : base + _BATCH], got), base):
                if len(have) != 1 or have[0] != want:
                    found.append((k, have))
    return found


@contextmanager
def _without_post_processor(tok):
    """With add_special_tokens off a post-processor adds no token: it only adjusts offsets
    (ByteLevel's trimming), a fifth of qwen3's encode_batch time. Put back afterwards: the
    worker's `encode --special` uses it. Not with a prefix: which pieces it covers is read
    from the offsets, which the post-processor may trim."""
    saved = tok.post_processor
    try:
        tok.post_processor = None
    except Exception:  # noqa: BLE001 (an engine that refuses: the batch as it is)
        yield
        return
    try:
        yield
    finally:
        tok.post_processor = saved


class Explainer:
    """Why a text encodes to other pieces, asked of the tokenizer's own components."""

    def __init__(self, tok, decoding: TokenDecoding, prefix: str, added_ids: set[int]) -> None:
        self.tok, self.decoding, self.prefix, self.added_ids = tok, decoding, prefix, added_ids
        self._texts: dict[int, str | None] = {}
        norm = tok.normalizer
        self.normalize = norm.normalize_str if norm is not None else (lambda s: s)
        self.normalized_prefix = self.normalize(prefix) if prefix else ""
        # what a space becomes (SentencePiece-style normalizers write ▁): not a rewrite
        spaced = self.normalize(prefix + " ")
        self.space = spaced[len(self.normalized_prefix) :] if spaced.startswith(self.normalized_prefix) else " "

    def entry(self, tid: int, stored: str, text: str, pieces: list[int], reason: str | None = "") -> dict:
        """The finding's entry; `reason` when the caller has told it already (reason_of)."""
        shown = [{"id": p, "text": self._piece_text(p)} for p in pieces]
        if reason == "":
            reason = self.reason(text, pieces)
        return {"id": tid, "token": stored, "text": text, "pieces": shown, "reason": reason}

    def _piece_text(self, pid: int) -> str | None:
        if pid in self._texts:  # the same digits and letters come back in many entries
            return self._texts[pid]
        token = self.tok.id_to_token(pid)
        text = None if token is None else _decode(token, self.decoding, added=pid in self.added_ids).text
        self._texts[pid] = text
        return text

    def reason(self, text: str, pieces: list[int]) -> str | None:
        try:
            return self._reason(text, pieces)
        except Exception:  # noqa: BLE001 (an explanation is a courtesy: never lose the finding over it)
            return None

    def _reason(self, text: str, pieces: list[int]) -> str | None:
        for p in pieces:
            if p in self.added_ids:
                return f"the added token {_quoted(self.tok.id_to_token(p) or str(p))} splits it"
        whole = self.normalize(self.prefix + text)
        pre = self.tok.pre_tokenizer
        return self.reason_of(text, whole, [span for _, span in pre.pre_tokenize_str(whole)] if pre else None)

    def reason_of(self, text: str, whole: str, spans: list[tuple[int, int]] | None) -> str | None:
        """The reason, from the normalized text (prefix included) and the pre-tokenizer's
        spans of it (None: there is no pre-tokenizer); added tokens aside."""
        try:
            return self._reason_of(text, whole, spans)
        except Exception:  # noqa: BLE001 (as `reason`)
            return None

    def _reason_of(self, text: str, whole: str, spans: list[tuple[int, int]] | None) -> str:
        start = len(self.normalized_prefix) if whole.startswith(self.normalized_prefix) else 0
        normalized = whole[start:]
        expected = text.replace(" ", self.space) if self.space != " " else text
        if normalized != expected:
            back = normalized.replace(self.space, " ") if self.space != " " else normalized
            return f"the normalizer rewrites it (to {_quoted(back)})"
        if spans is not None:
            spans = [(s, e) for s, e in spans if e > start]
            if len(spans) > 1:
                parts = [
                    whole[max(s, start) : e].replace(self.space, " ") if self.space != " " else whole[max(s, start) : e]
                    for s, e in spans
                ]
                return f"the pre-tokenizer splits it into {_joined(parts)}"
        return "no merge builds it"


def _quoted(text: str) -> str:
    from ...decoding.display import escape

    return f"`{escape(text, visible_space=True, backtick=True)}`"


def _joined(parts: list[str]) -> str:
    shown = " + ".join(_quoted(p) for p in parts[:_MAX_PIECES_SHOWN])
    return shown + (f" + … ({len(parts)} pieces)" if len(parts) > _MAX_PIECES_SHOWN else "")


# ---- tiktoken --------------------------------------------------------------------------


def _tiktoken_unreachable(loaded: LoadedTokenizer) -> list[dict]:
    enc, ranks = loaded.engine, loaded.ranks
    if not ranks or not loaded.pattern:
        return []  # an unknown split pattern: nothing can be said
    texts: list[str] = []
    kept: list[tuple[bytes, int]] = []
    for data, rank in ranks.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text:
            texts.append(text)
            kept.append((data, rank))
    # one call per text in this thread: encode_ordinary_batch's thread pool costs 20x more
    encoded = list(map(enc.encode_ordinary, texts))
    split = _pattern(loaded.pattern)
    out = []
    for text, (data, rank), pieces in zip(texts, kept, encoded):
        if len(pieces) == 1 and pieces[0] == rank:
            continue
        out.append(
            {
                "id": rank,
                "token": base64.b64encode(data).decode("ascii"),
                "text": text,
                "pieces": [{"id": p, "text": _utf8(enc.decode_single_token_bytes(p))} for p in pieces],
                "reason": _tiktoken_reason(split, text),
            }
        )
    out.sort(key=lambda e: e["id"])
    return out


def _pattern(pattern: str):
    import regex

    try:
        return regex.compile(pattern)
    except Exception:  # noqa: BLE001 (a --pattern only fancy-regex reads: no reason, the finding stays)
        return None


def _tiktoken_reason(split, text: str) -> str | None:
    if split is None:
        return None
    try:
        parts = split.findall(text)
    except Exception:  # noqa: BLE001 (same: a pattern the regex module reads otherwise)
        return None
    if len(parts) > 1 or "".join(parts) != text:
        return f"the split pattern splits it into {_joined(parts)}"
    return "no merge builds it"


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
