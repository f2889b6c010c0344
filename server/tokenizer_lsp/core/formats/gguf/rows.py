"""A GGUF's `tokenizer.ggml.*` metadata as a TokenTable: rows by array index, what each
token stands for, the metadata stats shows and the checks read.

What a token's bytes are depends on `tokenizer.ggml.model` (llama.cpp's vocab types):
- `llama`, `t5`, `gemma4` (SentencePiece style): `▁` is a space, `<0xNN>` BYTE pieces are
  that byte, the rest UTF-8;
- `gpt2` (byte-level BPE): NORMAL tokens through the GPT-2 byte map; CONTROL and
  USER_DEFINED tokens are stored as their text (llama.cpp's converter writes added tokens
  unmapped);
- `bert` (WordPiece): llama.cpp's converter writes `▁` before word-initial pieces and drops
  `##` from continuations; `[CLS]`-style tokens are kept: the bytes are the text with the
  leading `▁` as a space.
"""

from __future__ import annotations

import re
from functools import partial

from ...decoding.bytemap import CHAR_TO_BYTE, byte_level_decode
from ..table import PIECE_TYPES, FormatError, TableFinding, TableRow, TokenTable

K = "tokenizer.ggml."
SPECIAL_KEYS = ("bos", "eos", "unknown", "padding", "seperator", "cls", "mask", "eot", "eom")
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
SPM_STYLE = ("llama", "t5", "gemma4", "plamo2", "ugm")


def token_bytes(model: str, token: str, ttype: str | None) -> bytes:
    if ttype == "BYTE":
        m = _BYTE_PIECE.fullmatch(token)
        if m:
            return bytes([int(m.group(1), 16)])
    if model == "gpt2" and ttype not in ("CONTROL", "USER_DEFINED"):
        data = byte_level_decode(token)
        if data is not None:
            return data
    if model in SPM_STYLE or model == "bert":
        token = token.replace("\u2581", " ")
    return token.encode("utf-8", "surrogateescape")


def build_table(version: int, n_tensors: int, meta: dict) -> TokenTable:
    tokens = meta.get(K + "tokens")
    if not isinstance(tokens, list) or (tokens and not isinstance(tokens[0], str)):
        raise FormatError("no tokenizer.ggml.tokens array of strings: a GGUF without a tokenizer")
    model = meta.get(K + "model")
    model = model if isinstance(model, str) else ""
    n = len(tokens)
    findings: list[TableFinding] = []
    scores = _numbers(meta, "scores", n, findings)
    types = _numbers(meta, "token_type", n, findings)
    # column by column, then one C-level zip into rows: a Python loop building 256k rows
    # was most of the time of opening a big vocabulary
    names = (None,) + PIECE_TYPES
    tnames = [None] * n
    if types is not None:
        tnames[: min(n, len(types))] = [names[t] if 0 <= t <= 6 else None for t in types[:n]]
    col_scores = [None] * n
    if scores is not None:
        col_scores[: min(n, len(scores))] = list(scores[:n])
    datas = _bulk_bytes(model, tokens) or [None] * n
    for i, tname in enumerate(tnames):
        if tname not in (None, "NORMAL") or datas[i] is None:
            datas[i] = token_bytes(model, tokens[i], tname)
    specials = [t in ("CONTROL", "UNKNOWN") for t in tnames]
    rows = list(map(partial(tuple.__new__, TableRow), zip(range(n), tokens, datas, tnames, col_scores, specials)))
    merges = meta.get(K + "merges")
    info = {
        "model_type": model or None,
        "pre": meta.get(K + "pre"),
        "gguf_version": version,
        "tensors": n_tensors,
        "architecture": meta.get("general.architecture"),
        "name": meta.get("general.name"),
        "tokens": n,
        "merges": len(merges) if isinstance(merges, list) else None,
        "add_bos_token": meta.get(K + "add_bos_token"),
        "add_eos_token": meta.get(K + "add_eos_token"),
        "add_space_prefix": meta.get(K + "add_space_prefix"),
        "remove_extra_whitespaces": meta.get(K + "remove_extra_whitespaces"),
        "chat_template": meta.get("tokenizer.chat_template"),
    }
    for name in SPECIAL_KEYS:
        v = meta.get(f"{K}{name}_token_id")
        if v is not None:
            info[f"{name}_token_id"] = v
    # kept for encode and the checks (stats shows scalars only)
    info["_merges"] = tuple(merges) if isinstance(merges, list) else None
    info["_keys"] = tuple(sorted(meta))
    info["_chat_templates"] = {k: v for k, v in meta.items() if k.startswith("tokenizer.chat_template")}
    return TokenTable("gguf", tuple(rows), info, read_findings=tuple(findings))


# byte-map character -> the code point of its byte; every other character below U+0100
# -> U+FFFF, which latin-1 cannot encode (characters above are left as they are: they fail too)
_TO_CP = {ord(c): b for c, b in CHAR_TO_BYTE.items()}
_TO_CP.update({cp: 0xFFFF for cp in range(0x100) if cp not in _TO_CP})
_SEP = "\ufffe"  # joins the tokens: a noncharacter, outside the map and never an output of it


def _bulk_bytes(model: str, tokens: list[str]) -> list | None:
    """Every token's bytes in one pass where one rule fits them (one translate of the joined
    vocabulary instead of 150k small ones), else None: the per-token rule decides. A gpt2
    token outside the byte map gets None in the list (the per-token rule then)."""
    if any(_SEP in t for t in tokens):
        return None
    if model == "gpt2":
        out = []
        for piece in _SEP.join(tokens).translate(_TO_CP).split(_SEP):
            try:
                out.append(piece.encode("latin-1"))
            except UnicodeEncodeError:
                out.append(None)
        return out
    if model in SPM_STYLE or model == "bert":
        raw = _SEP.join(tokens).replace("\u2581", " ").encode("utf-8", "surrogateescape")
        return raw.split(_SEP.encode("utf-8"))
    return None


def _numbers(meta: dict, name: str, n: int, findings: list) -> object:
    arr = meta.get(K + name)
    if arr is None:
        return None
    if isinstance(arr, list):  # an array of strings or arrays where numbers belong
        findings.append(TableFinding("schema", f"{K}{name} is not an array of numbers", key=K + name))
        return None
    if len(arr) != n:
        findings.append(TableFinding("schema", f"{K}{name} has {len(arr)} entries for {n} tokens", key=K + name))
    return arr
