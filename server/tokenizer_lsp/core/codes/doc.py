"""One diagnostic code's documentation (core.codes holds every code's; codes.table_formats the
Part 3 codes')."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CodeDoc:
    summary: str  # one line: when it is reported
    why: str  # why it matters to someone shipping or using the tokenizer
    fix: str  # what to change (markdown)
    # files (name -> text) that trigger it: `check` runs on them (a folder when several)
    example: dict[str, str] = field(default_factory=dict)
    # the output to show when the example cannot be run here (binary formats, no text to
    # show), as `check` prints it
    shown: str = ""


def small_tokenizer_json(
    vocab: dict,
    merges: list,
    added: list,
    byte_level: bool = True,
    post_processor: dict | None = None,
    model: dict | None = None,
    indent: int = 2,
) -> str:
    """A small BPE tokenizer.json, every key as `tokenizers` writes it: the examples'
    tokenizer (ByteLevel pre-tokenizer and decoder, else WhitespaceSplit and none)."""
    bl = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": bl if byte_level else {"type": "WhitespaceSplit"},
        "post_processor": post_processor,
        "decoder": bl if byte_level else None,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
            **(model or {}),
        },
    }
    return json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"
