"""Which rule `encode --special` follows for a tokenizer.json in a model folder, said.

The ids are always what the tokenizer.json's own post-processor adds, because that is what
transformers 5 (the current release; 5.24 checked) gives: `AutoTokenizer.from_pretrained`
drops `add_bos_token`/`add_eos_token` from tokenizer_config.json whenever a tokenizer.json is
present (`PreTrainedTokenizerBase._from_pretrained`), and the class it picks keeps the file's
post-processor (a null one is replaced by `$A:0`, which adds nothing). A folder that says
`tokenizer_class: LlamaTokenizerFast` over a byte-level tokenizer.json (DeepSeek V3, Llama 3)
is even loaded as plain `TokenizersBackend`.

transformers 4 read those two keys: its LlamaTokenizerFast, CodeLlamaTokenizerFast,
GemmaTokenizerFast, CohereTokenizerFast and GPTNeoXTokenizerFast rebuilt the post-processor
from them in `__init__` (`bos:0 $A:0 eos:0`, each part only when added). Where that would add
something else, the note says so, so a user on either version knows what they get and why.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

# tokenizer_class (without "Fast") -> default add_bos_token, as each transformers 4 class's
# __init__ had it (add_eos_token defaulted to False in all of them)
V4_REBUILDING_CLASSES = {
    "LlamaTokenizer": True,
    "CodeLlamaTokenizer": True,
    "GemmaTokenizer": True,
    "CohereTokenizer": True,
    "GPTNeoXTokenizer": False,
}

_FILE_RULE = "special tokens by tokenizer.json's post-processor, as transformers 5's AutoTokenizer applies it"


@dataclass(frozen=True)
class SpecialRule:
    """The sentence that names the rule `--special` followed (the ids are the file's own)."""

    note: str


def _token(value) -> str | None:
    """A special token written as a string or as an AddedToken object."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def _file_adds(engine) -> list[int]:
    """The ids the tokenizer.json's post-processor adds around an empty text."""
    return list(engine.encode("", add_special_tokens=True).ids)


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
    given = [k for k in ("add_bos_token", "add_eos_token") if k in config]
    cls = config.get("tokenizer_class")
    base = cls.removesuffix("Fast") if isinstance(cls, str) else None
    if base not in V4_REBUILDING_CLASSES:
        if not given:
            return SpecialRule(f"{_FILE_RULE} (tokenizer_config.json sets no add_bos_token/add_eos_token)")
        said = ", ".join(f"{k} {json.dumps(config[k])}" for k in given)
        return SpecialRule(
            f"{_FILE_RULE}: it ignores tokenizer_config.json's {said} when a tokenizer.json "
            f"is present, as transformers 4 did for {cls or 'a folder without tokenizer_class'}"
        )
    # what transformers 4's class would have added instead
    wanted = {
        w: config.get(f"add_{w}_token", V4_REBUILDING_CLASSES[base] if w == "bos" else False) is True
        for w in ("bos", "eos")
    }
    said = ", ".join(
        f"add_{w}_token {str(wanted[w]).lower()}{'' if f'add_{w}_token' in config else ' (its default)'}"
        for w in ("bos", "eos")
    )
    added, ids = [], []
    for which in ("bos", "eos"):
        if not wanted[which]:
            continue
        token = _token(config.get(f"{which}_token"))
        tid = engine.token_to_id(token) if token is not None else None
        if tid is None:
            return SpecialRule(
                f"{_FILE_RULE}: it ignores tokenizer_config.json's {said} when a tokenizer.json is "
                f"present (transformers 4's {base}Fast refused this folder: its {which}_token "
                f"{json.dumps(token) if token else '(none)'} is not a token here)"
            )
        added.append(f"{token} {'first' if which == 'bos' else 'last'}")
        ids.append(tid)
    if sorted(ids) == sorted(_file_adds(engine)):
        return SpecialRule(
            f"{_FILE_RULE}; tokenizer_config.json's {said} add the same, as in transformers 4's {base}Fast"
        )
    v4 = f"adds {' and '.join(added)}" if added else "adds nothing"
    return SpecialRule(
        f"{_FILE_RULE}: it ignores tokenizer_config.json's {said} when a tokenizer.json is present "
        f"(transformers 4's {base}Fast rebuilt the post-processor from them and {v4})"
    )
