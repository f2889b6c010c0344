"""Which special tokens `encode --special` adds for a tokenizer.json in a model folder.

transformers' AutoTokenizer reads the folder's tokenizer_config.json too. For the classes
whose fast tokenizer rebuilds its post-processor from `add_bos_token`/`add_eos_token`
(transformers 4's LlamaTokenizerFast, CodeLlamaTokenizerFast, GemmaTokenizerFast,
CohereTokenizerFast, GPTNeoXTokenizerFast: each calls `update_post_processor()` in its
`__init__`), BOS and EOS come from those two keys (each with its class's default), and the
tokenizer.json's own post-processor is replaced. Every other class keeps the
tokenizer.json's post-processor. transformers 5 drops both keys when a tokenizer.json is
present: the output says which rule was followed, so a user of either knows.

The rebuilt template is transformers' own: `bos:0 $A:0 eos:0` (a part only when added).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

# tokenizer_class (without "Fast") -> default add_bos_token, as each class's __init__ has it
# (add_eos_token defaults to False in all of them)
REBUILDING_CLASSES = {
    "LlamaTokenizer": True,
    "CodeLlamaTokenizer": True,
    "GemmaTokenizer": True,
    "CohereTokenizer": True,
    "GPTNeoXTokenizer": False,
}


@dataclass(frozen=True)
class SpecialRule:
    """What `--special` adds, and a sentence naming the rule for the output."""

    post_processor: Any  # a tokenizers post-processor to encode with; None: the file's own
    note: str


def _token(value) -> str | None:
    """A special token written as a string or as an AddedToken object."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def special_rule(engine, tokenizer_path: str | None) -> SpecialRule | None:
    """The rule for a tokenizer.json at `tokenizer_path` (a tokenizers.Tokenizer loaded from
    it); None when no readable tokenizer_config.json is beside it."""
    if not tokenizer_path:
        return None
    config_path = os.path.join(os.path.dirname(os.path.abspath(tokenizer_path)), "tokenizer_config.json")
    try:
        with open(config_path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    cls = config.get("tokenizer_class")
    base = cls[: -len("Fast")] if isinstance(cls, str) and cls.endswith("Fast") else cls
    if base not in REBUILDING_CLASSES:
        named = f"tokenizer_class {cls}" if isinstance(cls, str) else "no tokenizer_class"
        return SpecialRule(None, f"special tokens by tokenizer.json's post-processor (tokenizer_config.json: "
                                 f"{named}, whose fast tokenizer keeps it, as transformers' AutoTokenizer does)")
    add_bos = config.get("add_bos_token", REBUILDING_CLASSES[base])
    add_eos = config.get("add_eos_token", False)
    add_bos, add_eos = add_bos is True, add_eos is True
    parts, special, said = [], [], []
    for which, wanted in (("bos", add_bos), ("eos", add_eos)):
        token = _token(config.get(f"{which}_token"))
        tid = engine.token_to_id(token) if token is not None else None
        where = "given" if f"add_{which}_token" in config else f"{cls}'s default"
        said.append(f"add_{which}_token {str(wanted).lower()} ({where})")
        if not wanted:
            continue
        if tid is None:  # transformers raises here (ValueError: add_bos_token = True but bos_token = None)
            return SpecialRule(None, f"special tokens by tokenizer.json's post-processor: tokenizer_config.json "
                                     f"sets add_{which}_token but its {which}_token "
                                     f"{json.dumps(token) if token else '(none)'} is not a token here, "
                                     "so transformers refuses to load this folder")
        parts.append((which, token))
        special.append((token, tid))
    from tokenizers import processors

    def side(seq: str, type_id: int) -> list[str]:  # a list, not one string: a token may hold a space
        return [f"{t}:{type_id}" for w, t in parts if w == "bos"] + [f"{seq}:{type_id}"] + \
            [f"{t}:{type_id}" for w, t in parts if w == "eos"]

    single, pair = side("$A", 0), side("$A", 0) + side("$B", 1)
    post = processors.TemplateProcessing(single=single, pair=pair, special_tokens=special)
    return SpecialRule(post, f"special tokens by tokenizer_config.json: {', '.join(said)}; the post-processor "
                             f"rebuilt as transformers 4's {base}Fast does (transformers 5 keeps tokenizer.json's)")
