"""Reading a WordPiece vocab.txt into a TokenTable (rows with their byte spans)."""

from __future__ import annotations

import os
import re

import orjson

from ...decoding.tokens import Scheme, decode_token
from ..table import FormatError, TableRow, TokenTable

SPECIALS = ("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]")
PREFIX = "##"
_JSON_ARRAY = re.compile(rb"\[\s*(?:[\"\[{\]0-9-]|true|false|null|$)")


def looks_like_vocab_txt(head: bytes, named: bool) -> bool:
    """One token per line: UTF-8 text, not JSON, no line holding a space or a tab (merges
    and tiktoken lines have one), and BERT's specials or `##` pieces among the lines (or
    the name vocab.txt)."""
    body = head.lstrip(b"\xef\xbb\xbf")
    if not body or body[:1] == b"{" or _JSON_ARRAY.match(body):  # `[PAD]` is a token, `["a"` JSON
        return False
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(body) - 3:
            return False
        text = body[:e.start].decode("utf-8")
    lines = text.split("\n")
    if len(lines) > 1 and len(body) == len(head.lstrip(b"\xef\xbb\xbf")):
        lines.pop()  # the window may cut the last line
    lines = [l.rstrip() for l in lines]
    if len(lines) < 2 or any(" " in l or "\t" in l or "\x00" in l for l in lines):
        return False
    if lines[0].startswith("#version"):
        return False
    specials = sum(1 for l in lines if l in SPECIALS)
    pieces = sum(1 for l in lines if l.startswith(PREFIX) and len(l) > 2)
    return specials >= 2 or pieces >= 5 or (named and (specials or pieces))


def folder_settings(path: str | None) -> dict:
    """do_lower_case, strip_accents, tokenize_chinese_chars and unk_token of the
    tokenizer_config.json beside the file (tokenizers' BertWordPieceTokenizer defaults)."""
    out = {"do_lower_case": True, "strip_accents": None, "tokenize_chinese_chars": True,
           "unk_token": "[UNK]", "config": None}
    if not path:
        return out
    config = os.path.join(os.path.dirname(os.path.abspath(path)), "tokenizer_config.json")
    try:
        with open(config, "rb") as f:
            obj = orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return out
    if not isinstance(obj, dict):
        return out
    out["config"] = config
    for key in ("do_lower_case", "strip_accents", "tokenize_chinese_chars"):
        if isinstance(obj.get(key), bool) or (key == "strip_accents" and obj.get(key) is None and key in obj):
            out[key] = obj[key]
    unk = obj.get("unk_token")
    if isinstance(unk, dict):  # an AddedToken written out
        unk = unk.get("content")
    if isinstance(unk, str):
        out["unk_token"] = unk
    return out


def read_vocab_txt(data: bytes, settings: dict) -> TokenTable:
    if b"\x00" in data:
        raise FormatError("NUL bytes: not a vocab.txt")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"not UTF-8 at byte {e.start}: not a vocab.txt") from None
    rows, spans = [], []
    pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    n = len(data)
    tid = 0
    while pos < n:
        nl = data.find(b"\n", pos)
        stop = n if nl < 0 else nl
        raw = data[pos:stop].decode("utf-8")
        token = raw.rstrip()  # tokenizers trims the line's end (a \r, trailing spaces)
        end = pos + len(token.encode("utf-8"))
        d = decode_token(token, Scheme.WORDPIECE, token in SPECIALS, PREFIX)
        rows.append(TableRow(tid, token, d.data, None, None, token in SPECIALS))
        spans.append((pos, end))
        tid += 1
        pos = stop + 1
    if not rows:
        raise FormatError("empty: no tokens")
    meta = {"model_type": "WordPiece", "continuing_subword_prefix": PREFIX, "lines": len(rows),
            "do_lower_case": settings["do_lower_case"], "unk_token": settings["unk_token"],
            "strip_accents": settings["strip_accents"], "tokenize_chinese_chars": settings["tokenize_chinese_chars"],
            "tokenizer_config": settings["config"]}
    return TokenTable("wordpiece", tuple(rows), meta, tuple(spans))


