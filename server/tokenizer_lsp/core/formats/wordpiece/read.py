"""Reading a WordPiece vocab.txt into a TokenTable (rows with their byte spans)."""

from __future__ import annotations

import os
import re

import orjson

from ...decoding.tokens import Scheme, decode_token
from ..registry import SNIFF_BYTES
from ..table import FormatError, TableRow, TokenTable

SPECIALS = ("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]")
PREFIX = "##"
_JSON_ARRAY = re.compile(rb"\[\s*(?:[\"\[{\]0-9-]|true|false|null|$)")
_SPACE = re.compile(r"\s")
# what Rust's str::trim_end strips (Unicode White_Space), which WordPiece::read_file applies
# to each line; Python's bare rstrip() also strips U+001C..U+001F, which stay in a token there
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)


def looks_like_vocab_txt(head: bytes, named: bool) -> bool:
    """One token per line: UTF-8 text, not JSON, BERT's specials or `##` pieces among the
    lines (or the name vocab.txt), and mostly lines without a space or a tab.

    A token is the whole line minus its end, spaces included (tokenizers'
    WordPiece.read_file, transformers' load_vocab): custom and multilingual vocabularies hold
    lines such as `new york` (wordpiece-unreachable says what that means), so a spaced line
    does not refuse the file. What is refused is text that is another thing: JSON, a merges
    file (its `#version` line, or every line two parts), a tiktoken file (every line base64
    and a rank), word counts and prose (most lines spaced). A `## Heading` of Markdown is
    no continuation piece: a piece never holds whitespace (the pre-tokenizer splits there)."""
    body = head.lstrip(b"\xef\xbb\xbf")
    if not body or body[:1] == b"{" or _JSON_ARRAY.match(body):  # `[PAD]` is a token, `["a"` JSON
        return False
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(body) - 3:
            return False
        text = body[: e.start].decode("utf-8")
    lines = text.split("\n")
    if len(lines) > 1 and (lines[-1] == "" or len(head) >= SNIFF_BYTES):
        lines.pop()  # after the last newline, or cut by the window
    lines = [l.rstrip() for l in lines]
    if len(lines) < 2 or any("\x00" in l for l in lines) or lines[0].startswith("#version"):
        return False
    spaced = sum(1 for l in lines if " " in l or "\t" in l)
    if spaced * 2 > len(lines):  # merges, tiktoken, counts, prose: a vocabulary is mostly single pieces
        return False
    specials = sum(1 for l in lines if l in SPECIALS)
    pieces = sum(1 for l in lines if l.startswith(PREFIX) and len(l) > 2 and not _SPACE.search(l))
    return specials >= 2 or pieces >= 5 or (named and (specials or pieces) > 0)


def folder_settings(path: str | None) -> dict:
    """do_lower_case, strip_accents, tokenize_chinese_chars and unk_token of the
    tokenizer_config.json beside the file (tokenizers' BertWordPieceTokenizer defaults)."""
    out = {
        "do_lower_case": True,
        "strip_accents": None,
        "tokenize_chinese_chars": True,
        "unk_token": "[UNK]",
        "config": None,
    }
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
        token = raw.rstrip(_WHITE_SPACE)  # tokenizers trims the line's end (a \r, trailing spaces)
        end = pos + len(token.encode("utf-8"))
        d = decode_token(token, Scheme.WORDPIECE, token in SPECIALS, PREFIX)
        rows.append(TableRow(tid, token, d.data, None, None, token in SPECIALS))
        spans.append((pos, end))
        tid += 1
        pos = stop + 1
    if not rows:
        raise FormatError("empty: no tokens")
    meta = {
        "model_type": "WordPiece",
        "continuing_subword_prefix": PREFIX,
        "lines": len(rows),
        "do_lower_case": settings["do_lower_case"],
        "unk_token": settings["unk_token"],
        "strip_accents": settings["strip_accents"],
        "tokenize_chinese_chars": settings["tokenize_chinese_chars"],
        "tokenizer_config": settings["config"],
    }
    return TokenTable("wordpiece", tuple(rows), meta, tuple(spans))
