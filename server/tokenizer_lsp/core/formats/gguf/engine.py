"""encode for a GGUF: llama.cpp's tokenization of the vocabulary in the file, rebuilt with
the field's libraries (no llama.cpp build is needed):

- `gpt2` (byte-level BPE) and `gemma4` (BPE on raw UTF-8 with `▁` for spaces): an HF
  `tokenizers` BPE over the GGUF's tokens and merges, with the pre-tokenizer that
  `tokenizer.ggml.pre` selects in llama.cpp (pre_table.py: its regexes, applied one after
  another as llama.cpp's unicode_regex_split does: each regex isolates its matches inside
  the pieces the previous one left) and llama.cpp's `ignore_merges` for that name;
- `llama` (SentencePiece BPE with byte fallback): `sentencepiece` itself on a ModelProto
  built from the GGUF's pieces, scores and types (llama.cpp's SPM tokenizer is a port of
  sentencepiece's BPE; using the original rather than an HF approximation of it keeps
  score ties and byte fallback exactly as sentencepiece does them);
- `bert` (llama.cpp's WPM): an HF WordPiece over the tokens written back in BERT's
  spelling (`▁x` -> `x`, `x` -> `##x`) with the BERT normalizer and pre-tokenizer.

`special`: llama.cpp's add_special and parse_special together (as a prompt is tokenized):
BOS/EOS per add_bos_token/add_eos_token (or llama.cpp's default for the model and pre
name), and CONTROL tokens written in the text are matched. USER_DEFINED tokens are
always matched (llama.cpp partitions them whatever parse_special says).
"""

from __future__ import annotations

import re
import struct
import threading
import weakref

from ..table import FormatError, TokenTable
from .pre_names import NAMES
from .pre_types import TYPES

# engine per table, by identity (a TokenTable is unhashable), dropped with the table
_CACHE: dict[int, object] = {}
_LOCK = threading.Lock()


def pre_info(table: TokenTable) -> tuple[str, bool, bool, bool] | None:
    """(pre type, ignore_merges, add_bos, escape_whitespaces) llama.cpp gives the file's
    `pre` name; a missing name is llama.cpp's "default"; an unknown name None."""
    name = table.meta.get("pre")
    return NAMES.get(name if isinstance(name, str) and name else "default")


def encode(table: TokenTable, text: str, special: bool) -> list[int]:
    with _LOCK:
        engine = _CACHE.get(id(table))
        if engine is None:
            engine = _CACHE[id(table)] = _build(table)
            weakref.finalize(table, _CACHE.pop, id(table), None)
    ids = engine(text, special)
    if special:
        m = table.meta
        add_bos, add_eos = m.get("add_bos_token"), m.get("add_eos_token")
        if add_bos is None:
            add_bos = _default_add_bos(table)
        if add_bos and isinstance(m.get("bos_token_id"), int):
            ids = [m["bos_token_id"]] + ids
        if add_eos and isinstance(m.get("eos_token_id"), int):
            ids = ids + [m["eos_token_id"]]
    return ids


def encode_prompt(table: TokenTable, text: str) -> list[int]:
    """A rendered chat prompt's ids: special tokens written in it are matched (llama.cpp's
    parse_special, as its server tokenizes a templated prompt, and as transformers matches a
    GGUF's special tokens), and nothing is added (the template writes the BOS)."""
    with _LOCK:
        engine = _CACHE.get(id(table))
        if engine is None:
            engine = _CACHE[id(table)] = _build(table)
            weakref.finalize(table, _CACHE.pop, id(table), None)
    return engine(text, True)


def _default_add_bos(table: TokenTable) -> bool:
    model = table.meta.get("model_type")
    if model in ("llama", "bert"):
        return True
    info = pre_info(table) if model == "gpt2" else None
    return bool(info and info[2])


def _build(table: TokenTable):
    model = table.meta.get("model_type")
    if model == "llama":
        return _spm(table)
    if model in ("gpt2", "gemma4"):
        return _bpe(table, model)
    if model == "bert":
        return _wpm(table)
    raise FormatError(f"encode of a `{model}` GGUF vocabulary is not supported (llama, gpt2, gemma4, bert are)")


# ---- byte-level and raw BPE (HF tokenizers) ----------------------------------------------


def _added_tokens(table: TokenTable, tok) -> None:
    from tokenizers import AddedToken

    # CONTROL (and UNKNOWN) are matched only with parse_special: HF's special tokens, turned
    # off by encode_special_tokens; USER_DEFINED always
    tok.add_tokens(
        [
            AddedToken(r.token, special=False, normalized=False)
            for r in table.rows
            if r.type == "USER_DEFINED" and r.token
        ]
    )
    tok.add_special_tokens(
        [
            AddedToken(r.token, special=True, normalized=False)
            for r in table.rows
            if r.type in ("CONTROL", "UNKNOWN") and r.token
        ]
    )


def _vocab(table: TokenTable) -> dict[str, int]:
    vocab: dict[str, int] = {}
    for r in table.rows:
        vocab[r.token] = r.id  # llama.cpp's token_to_id: a later duplicate wins
    return vocab


def _bpe(table: TokenTable, model: str):
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    merges = table.meta.get("_merges") or ()
    pairs = []
    for m in merges:
        at = m.find(" ", 1)  # llama.cpp splits at the first space after the first character
        if at > 0:
            pairs.append((m[:at], m[at + 1 :]))
    if model == "gemma4":
        kind, ignore, escape = "GEMMA4", False, True
    else:
        info = pre_info(table)
        if info is None:
            raise FormatError(f"tokenizer.ggml.pre {table.meta.get('pre')!r} is not a name llama.cpp knows")
        kind, ignore, escape = info[0], info[1], info[3]
    spec = TYPES[kind]
    if spec["regexes"] and any(_unsupported(r) for r in spec["regexes"]):
        raise FormatError(f"pre-tokenizer {kind} uses a split llama.cpp implements in code; not supported")
    byte_level = spec["byte_encode"] and model == "gpt2"
    try:
        bpe = models.BPE(_vocab(table), pairs, ignore_merges=ignore, byte_fallback=not byte_level, fuse_unk=False)
    except Exception as e:  # tokenizers raises its own exception type for a merge naming no token
        raise FormatError(f"the merges do not build a BPE model: {e}") from None
    tok = Tokenizer(bpe)
    splits = [pre_tokenizers.Split(Regex(r), "isolated") for r in spec["regexes"]]
    if byte_level:
        splits.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False))
    elif escape:  # SentencePiece-style BPE: spaces are ▁ before the merges
        tok.normalizer = normalizers.Replace(" ", "\u2581")
    tok.pre_tokenizer = pre_tokenizers.Sequence(splits)
    _added_tokens(table, tok)
    return _hf_encoder(tok)


def _unsupported(regex: str) -> bool:
    # llama.cpp handles these two in C++ code of their own, not as a regex
    return "AFMoE_digits" in regex or regex == "\\p{Han}+"


def _hf_encoder(tok):
    def run(text: str, special: bool) -> list[int]:
        tok.encode_special_tokens = not special
        return tok.encode(text, add_special_tokens=False).ids

    return run


# ---- WordPiece (llama.cpp's WPM) ---------------------------------------------------------


def _wpm(table: TokenTable):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab: dict[str, int] = {}
    for r in table.rows:
        t = r.token
        if r.type in ("CONTROL", "UNKNOWN", "USER_DEFINED") or (t.startswith("[") and t.endswith("]")):
            hf = t
        elif t.startswith("\u2581"):
            hf = t[1:]
        else:
            hf = "##" + t
        vocab.setdefault(hf, r.id)
    unk = table.meta.get("unknown_token_id")
    unk_tok = table.rows[unk].token if isinstance(unk, int) and 0 <= unk < len(table.rows) else "[UNK]"
    tok = Tokenizer(models.WordPiece(vocab, unk_token=unk_tok, max_input_chars_per_word=10**6))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=True, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    _added_tokens(table, tok)
    return _hf_encoder(tok)


# ---- SentencePiece BPE (sentencepiece) ---------------------------------------------------

_SPM_TYPES = {"NORMAL": 1, "UNKNOWN": 2, "CONTROL": 3, "USER_DEFINED": 4, "UNUSED": 5, "BYTE": 6}


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(num: int, payload: bytes) -> bytes:  # a length-delimited protobuf field
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _flag(num: int, value: int) -> bytes:  # a varint protobuf field
    return _varint(num << 3) + _varint(value)


def model_proto(table: TokenTable) -> bytes:
    """A SentencePiece ModelProto (sentencepiece_model.proto's field numbers) holding the
    GGUF's pieces: written by hand because it is five fields, and protobuf's generated
    module is not a dependency of ours."""
    m = table.meta
    unk = m.get("unknown_token_id")
    unk = unk if isinstance(unk, int) else next((r.id for r in table.rows if r.type == "UNKNOWN"), 0)
    parts = []
    for r in table.rows:
        piece = _field(1, r.token.encode("utf-8", "surrogateescape"))
        piece += _varint(2 << 3 | 5) + struct.pack("<f", r.score or 0.0)
        kind = _SPM_TYPES.get(r.type or "NORMAL", 1)
        if kind == 2 and r.id != unk:  # sentencepiece allows one unk; phi-3 types its
            kind = 5  # padding UNKNOWN: never produced either way
        piece += _flag(3, kind)
        parts.append(_field(1, piece))
    byte_fallback = any(r.type == "BYTE" for r in table.rows)
    trainer = _flag(3, 2) + _flag(35, int(byte_fallback)) + _flag(40, unk)  # model_type BPE, byte_fallback, unk_id
    for field, key in ((41, "bos_token_id"), (42, "eos_token_id")):
        trainer += _flag(field, m[key]) if isinstance(m.get(key), int) and m[key] >= 0 else b""
    add_prefix = m.get("add_space_prefix")
    normalizer = (
        _field(1, b"identity")
        + _flag(3, 1 if add_prefix in (None, True) else 0)
        + _flag(4, 1 if m.get("remove_extra_whitespaces") else 0)
        + _flag(5, 1)
    )
    return b"".join(parts) + _field(2, trainer) + _field(3, normalizer)


def _spm(table: TokenTable):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor()
    try:
        sp.LoadFromSerializedProto(model_proto(table))
    except (RuntimeError, OSError) as e:
        raise FormatError(f"sentencepiece refuses this vocabulary: {str(e).strip().splitlines()[-1]}") from None
    control = sorted({r.token for r in table.rows if r.type == "CONTROL" and r.token}, key=len, reverse=True)
    ids = {r.token: r.id for r in table.rows}
    splitter = re.compile("|".join(map(re.escape, control))) if control else None

    def run(text: str, special: bool) -> list[int]:
        if not special or splitter is None:
            return sp.encode(text)
        out, pos = [], 0
        for m in splitter.finditer(text):  # llama.cpp: a space prefix after every special token too
            if m.start() > pos:
                out += sp.encode(text[pos : m.start()])
            out.append(ids[m.group()])
            pos = m.end()
        if pos < len(text):
            out += sp.encode(text[pos:])
        return out

    return run
