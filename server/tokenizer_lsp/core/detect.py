"""What a file is: one source of truth for the server, the CLI and the VS Code client.

The rules (names, language ids, keys, line shapes) live in detect_rules.json, which the
VS Code client imports at build time; the logic that applies them to content is here.
Content decides; a name only says what to expect when the content is ambiguous (a
broken JSON file, a merges file without its header).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .decoding.bytemap import BYTE_TO_CHAR

RULES = json.loads((Path(__file__).parent / "detect_rules.json").read_text(encoding="utf-8"))

JSON_NAMES = tuple(RULES["jsonNames"])
VOCAB_NAMES = tuple(RULES["vocabNames"])
MERGES_NAMES = tuple(RULES["mergesNames"])
CONFIG_NAMES = tuple(RULES["modelConfigNames"])
_MERGES_NAME = re.compile(RULES["mergesNamePattern"])
_MERGES_LINE = re.compile(RULES["mergesLine"].encode())
_TIKTOKEN_LINE = re.compile(RULES["tiktokenLine"].encode())
_HEADER = RULES["mergesHeader"].encode()
_SNIFF = RULES["sniffBytes"]
_HF_KEYS = tuple(f'"{k}"'.encode() for k in RULES["hfTopLevelKeys"])
_MODEL_TYPE = re.compile(rb'"model"\s*:\s*\{\s*"type"\s*:\s*"(?:' + "|".join(RULES["modelTypes"]).encode() + rb')"')
_TABLE_NAME = re.compile(RULES["tableNamePattern"])
TEKKEN_KEYS = tuple(f'"{k}"'.encode() for k in RULES["tekkenKeys"])
_VOCAB_START = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*[0-9]')


def name_kind(path: str | None) -> str | None:
    """What a file name alone suggests: "json", "merges", "tiktoken" or None."""
    if not path:
        return None
    base = os.path.basename(path).lower()
    if base.endswith(tuple(RULES["tiktokenSuffixes"])):
        return "tiktoken"
    if base in MERGES_NAMES or _MERGES_NAME.match(base):
        return "merges"
    if base in JSON_NAMES or base.endswith(tuple(RULES["jsonSuffixes"])):
        return "json"
    return None


def is_table_name(path: str | None) -> bool:
    """A text table format's usual name (tekken_*.json, vocab.txt): worth indexing whatever
    the editor's language; the content decides the format (core/formats/registry.py)."""
    return bool(path) and _TABLE_NAME.match(os.path.basename(path).lower()) is not None


def is_config_name(path: str | None) -> bool:
    """A model folder's config file (tokenizer_config.json, generation_config.json, ...),
    checked against the tokenizer file beside it."""
    return bool(path) and os.path.basename(path).lower() in CONFIG_NAMES


def is_chat_template_name(path: str | None) -> bool:
    """A model folder's chat template file by its name and place: chat_template.jinja, or a
    .jinja inside additional_chat_templates/ (transformers' layout). Served only when a
    tokenizer stands in that model folder (the index decides; docs/guides/check-a-chat-template.md)."""
    if not path:
        return False
    base = os.path.basename(path).lower()
    if base == RULES["chatTemplateName"]:
        return True
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return base.endswith(RULES["chatTemplateSuffix"]) and parent == RULES["chatTemplateDir"]


def chat_template_folder(path: str) -> str:
    """The model folder of a chat template file (additional_chat_templates/ is inside it)."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(folder) if os.path.basename(folder) == RULES["chatTemplateDir"] else folder


def language_kind(language_id: str | None) -> str | None:
    """What an editor's language id says ("json", "merges", "tiktoken"; None: nothing)."""
    return RULES["languageIds"].get(language_id or "")


def language_may_hold_tokenizer(language_id: str | None) -> bool:
    return (language_id or "") in RULES["languageIds"]


def is_merges_header(line: bytes) -> bool:
    """A merges file's first line: `#version: 0.2`, also with text before it (CLIP's
    bpe_simple_vocab_16e6.txt starts `"bpe_simple_vocab_16e6.txt#version: 0.2`)."""
    return _HEADER in line[:256]


def content_kind(data: bytes, path: str | None = None) -> str | None:
    """Detect the format from the text itself (names can lie or be missing)."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"{", b"[")):
        return "json"
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines.pop()  # cut by the 4 KB window
    lines = [l for l in lines if l.strip()][: RULES["linesToSniff"] + 1]
    if not lines:
        return None
    if is_merges_header(lines[0]):
        # a merges header, unless what follows is not merges (GLSL, markdown, ...)
        rest = lines[1:]
        if (rest or name_kind(path) == "merges") and all(_MERGES_LINE.match(l) for l in rest):
            return "merges"
        return None
    if _tiktoken_lines(lines[: RULES["linesToSniff"]]):
        return "tiktoken"
    if name_kind(path) == "merges" and all(_MERGES_LINE.match(l) for l in lines[: RULES["linesToSniff"]]):
        return "merges"
    return None


def _tiktoken_lines(lines: list[bytes]) -> bool:
    """Base64 and rising ranks: word counts ("the 1061396") and other "word number" text
    are not rank files."""
    ranks = []
    for line in lines:
        m = _TIKTOKEN_LINE.match(line)
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


def worth_parsing(data: bytes) -> bool:
    """Could this JSON be a tokenizer file at all? A tokenizer.json names its model or added
    tokens near the start (HF writes them before the vocabulary); a vocab.json starts as a
    token -> number object."""
    head = data[:_SNIFF]
    return b'"model"' in head or b'"added_tokens"' in head or _VOCAB_START.match(head) is not None


def starts_like_vocab_json(head: bytes) -> bool:
    """A token -> number object from its first entry: a vocab.json's start (a tokenizer.json
    starts with its sections). Only which JSON plug-in sniffs first; the parse decides."""
    return _VOCAB_START.match(head) is not None


def looks_like_tokenizer_json(data: bytes) -> bool:
    """For broken JSON: is this still recognisably a HF tokenizer.json? (Other JSON being
    typed must stay silent: a `"vocab"` key alone proves nothing.)"""
    head = data[:_SNIFF]
    return _MODEL_TYPE.search(head) is not None or sum(k in head for k in _HF_KEYS) >= RULES["hfKeysNeeded"]


def is_tokenizer_json(obj) -> bool:
    if not isinstance(obj, dict):
        return False
    model = obj.get("model")
    return isinstance(model, dict) and isinstance(model.get("vocab"), (dict, list))


def is_vocab_json(obj) -> bool:
    return isinstance(obj, dict) and len(obj) > 0 and set(map(type, obj.values())) == {int}


def claims_vocab_json(obj: dict, path: str | None) -> bool:
    """A token->id object is a GPT-2 vocabulary by its name, or by holding the byte
    alphabet; other str->int JSON (added_tokens.json, counts, configs) is left alone."""
    base = os.path.basename(path or "").lower()
    if base in RULES["notVocabNames"]:
        return False
    if base in VOCAB_NAMES:
        return True
    return len(obj) >= 256 and sum(1 for c in BYTE_TO_CHAR if c in obj) >= 250
