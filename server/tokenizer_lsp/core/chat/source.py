"""What `render` and the checks need from a path: the templates, the one that takes effect,
the special tokens transformers passes to the template, and the tokenizer that encodes the
prompt. A path is a model folder, its tokenizer_config.json, a `.jinja` template (its folder
gives the tokens) or a `.gguf` (everything from its metadata).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import orjson

from .places import CONFIG, JINJA_DIR, JINJA_FILE, NoTemplate, TemplatePlace, folder_places, gguf_places

# transformers' SPECIAL_TOKENS_ATTRIBUTES: the named tokens every template receives
NAMED = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
SPECIAL_MAP = "special_tokens_map.json"
# the `*_token` defaults of the tokenizer classes model folders name most (their __init__
# signatures in transformers 5.24; tests/unit/test_chat_source.py holds this table to them):
# a folder whose config leaves a key out gets the class's default, one that writes null none
CLASS_DEFAULTS: dict[str, dict[str, str]] = {
    "LlamaTokenizer": {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"},
    "GemmaTokenizer": {
        "unk_token": "<unk>",
        "bos_token": "<bos>",
        "eos_token": "<eos>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    },
    "Qwen2Tokenizer": {"unk_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
    "GPT2Tokenizer": {"unk_token": "<|endoftext|>", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>"},
    "BertTokenizer": {
        "unk_token": "[UNK]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    },
    "CohereTokenizer": {
        "unk_token": "<UNK>",
        "bos_token": "<BOS_TOKEN>",
        "eos_token": "<|END_OF_TURN_TOKEN|>",
        "pad_token": "<PAD>",
        "cls_token": "<CLS>",
        "sep_token": "<SEP>",
        "mask_token": "<MASK_TOKEN>",
    },
}


class SourceError(Exception):
    """The path cannot be read as a chat template source: one line."""


@dataclass
class ChatSource:
    path: str  # as given
    folder: str | None  # the model folder (None for a GGUF)
    places: list[TemplatePlace]
    special_tokens: dict[str, str]  # name -> token, as transformers' special_tokens_map
    config: dict = field(default_factory=dict)  # tokenizer_config.json (or GGUF tokenizer.* metadata)
    gguf_meta: dict | None = None
    only: TemplatePlace | None = None  # a .jinja given by path: that template, whatever the folder says


def _token_text(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def special_tokens(config: dict, special_map: dict | None) -> dict[str, str]:
    """transformers 5's `special_tokens_map` of a folder: the seven named tokens, every other
    `*_token` key holding a token (model-specific names such as Gemma's `boi_token`), the
    named entries of `extra_special_tokens`; special_tokens_map.json fills what the config
    lacks (the config wins). Values are the tokens' text (`str(AddedToken)`)."""
    out: dict[str, str] = {}
    cls = config.get("tokenizer_class") if isinstance(config, dict) else None
    cls = cls[: -len("Fast")] if isinstance(cls, str) and cls.endswith("Fast") else cls
    written = {k for src in (config, special_map) if isinstance(src, dict) for k in src}
    defaults = {k: v for k, v in CLASS_DEFAULTS.get(cls, {}).items() if k not in written}
    for source in (config, special_map or {}, defaults):
        if not isinstance(source, dict):
            continue
        for key, value in source.items():
            if key in out:
                continue
            if key.endswith("_token") and (text := _token_text(value)) is not None:
                out[key] = text
            elif key == "extra_special_tokens" and isinstance(value, dict):
                for name, tok in value.items():
                    if (text := _token_text(tok)) is not None and name not in out:
                        out[name] = text
    named = {k: out[k] for k in NAMED if k in out}
    return {**named, **{k: v for k, v in out.items() if k not in named}}


def _load(path: str):
    try:
        with open(path, "rb") as f:
            return orjson.loads(f.read())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as e:
        raise SourceError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from e


def model_folder_of(path: str) -> str:
    """The model folder a template file belongs to (additional_chat_templates/ is inside it)."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(folder) if os.path.basename(folder) == JINJA_DIR else folder


def open_source(path: str) -> ChatSource:
    if not os.path.exists(path):
        raise SourceError(f"{path}: no such file or folder")
    if path.endswith(".gguf"):
        return _gguf(path)
    if os.path.isdir(path):
        folder, only = path, None
    elif path.endswith(".jinja"):
        folder = model_folder_of(path)
        try:
            with open(path, encoding="utf-8") as f:  # universal newlines, as transformers reads it
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise SourceError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from e
        name = os.path.basename(path)[: -len(".jinja")]
        only = TemplatePlace("default" if name == "chat_template" else name, text, path, None, True)
    elif os.path.basename(path) in (CONFIG, "chat_template.json") or path.endswith(".json"):
        folder, only = os.path.dirname(os.path.abspath(path)), None
    else:
        raise SourceError(f"{path}: not a model folder, tokenizer_config.json, .jinja or .gguf")
    config = _load(os.path.join(folder, CONFIG)) or {}
    if not isinstance(config, dict):
        config = {}
    special_map = _load(os.path.join(folder, SPECIAL_MAP))
    places = folder_places(folder, config)
    return ChatSource(path, folder, places, special_tokens(config, special_map), config, None, only)


def _gguf(path: str) -> ChatSource:
    from ..formats.gguf.reader import read_file_metadata
    from ..formats.table import FormatError

    try:
        _, _, meta = read_file_metadata(path)
    except (OSError, FormatError, ValueError) as e:
        raise SourceError(f"{path}: cannot read the GGUF: {e}") from e
    tokens = meta.get("tokenizer.ggml.tokens") or []
    named = {}
    for name, key in (
        ("bos_token", "bos"),
        ("eos_token", "eos"),
        ("unk_token", "unknown"),
        ("sep_token", "seperator"),
        ("pad_token", "padding"),
        ("mask_token", "mask"),
    ):
        tid = meta.get(f"tokenizer.ggml.{key}_token_id")
        if isinstance(tid, int) and 0 <= tid < len(tokens):
            named[name] = tokens[tid]
    return ChatSource(path, None, gguf_places(meta, path), named, {}, meta)


def chosen(source: ChatSource, name: str | None = None, tools: bool = False) -> TemplatePlace:
    """The template a render uses (NoTemplate with the reason when there is none)."""
    from .places import effective

    if source.only is not None:
        if name not in (None, source.only.name, "default"):
            raise NoTemplate(f"--template {name}: {source.only.path} is one template")
        return source.only
    return effective(source.places, name, tools)


def tokenizer_file(source: ChatSource) -> str | None:
    """The file that encodes the prompt: the folder's tokenizer.json, else its other
    tokenizer files as `encode` finds them; the GGUF itself."""
    if source.gguf_meta is not None:
        return source.path
    if source.folder is None:
        return None
    for name in ("tokenizer.json", "tekken.json", "tokenizer.model", "vocab.json", "encoder.json", "vocab.txt"):
        p = os.path.join(source.folder, name)
        if os.path.isfile(p):
            return p
    return None


__all__ = [
    "JINJA_FILE",
    "ChatSource",
    "NoTemplate",
    "SourceError",
    "chosen",
    "open_source",
    "special_tokens",
    "tokenizer_file",
]
