"""The documentation of every diagnostic code, beside its severity.

DEFAULT_SEVERITY (core/model.py) stays the one source of codes and severities; this module
says, for each of them, what it means, why it matters, how to fix it, and gives an example
input. The docs site's page per code is generated from here (docs/hooks/codes.py runs
`check` on each example, so the output shown is the real one), and
tests/unit/test_code_docs.py holds every code of DEFAULT_SEVERITY to having an entry with an
example and a fix, and every runnable example to producing its code.
"""

from __future__ import annotations

import json

from ..model import DEFAULT_SEVERITY
from .chat_templates import CHAT
from .doc import CodeDoc
from .table_formats import PART3

__all__ = ["CodeDoc"]


def _tok(vocab: dict, merges: list, added: list | None = None, byte_level: bool = True, **model) -> str:
    """A small tokenizer.json as `tokenizers` writes it."""
    bl = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added or [],
        "normalizer": None,
        "pre_tokenizer": bl if byte_level else {"type": "WhitespaceSplit"},
        "post_processor": None,
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
            **model,
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _added(content: str, id_: int, special: bool = True) -> dict:
    return {
        "id": id_,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": special,
    }


_V = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}
_M = ["a b", "ab c"]

DOCS: dict[str, CodeDoc] = {
    "json-syntax": CodeDoc(
        "The text is not JSON; reported where the parser stopped (the last line of a truncated file).",
        "Every loader refuses the file. A truncated download or a hand edit with a trailing comma is the usual cause.",
        "Repair the JSON at the reported position, or download the file again and compare its size and hash.",
        {"tokenizer.json": _tok(_V, _M).replace('"abc": 4\n', '"abc": 4,\n')},
    ),
    "schema": CodeDoc(
        "Valid JSON that `tokenizers` refuses to load: an id that is not a non-negative integer, an unknown "
        "`type`, merges that are not a list, a missing required field...",
        "`Tokenizer.from_file` fails with \"data did not match any variant of untagged enum\", which says neither "
        "where nor why; this finding points at the entry and says what was expected.",
        "Give the entry the form the message names (for an id: a plain integer such as `4`, not `\"4\"`).",
        {"tokenizer.json": _tok({**_V, "abc": "4"}, _M)},
    ),
    "utf8-fragment": CodeDoc(
        "A token whose bytes are not valid UTF-8 on their own (part of a multi-byte character).",
        "Normal in byte-level BPE, so a hint by default. Useful when auditing: a fragment decodes to U+FFFD "
        "when printed alone, and streaming detokenizers must hold it back until the character completes.",
        "Nothing to fix in a byte-level vocabulary. Raise it to `warning` to audit, or hide it.",
        {"tokenizer.json": _tok({"a": 0, "æ": 1, "Ī": 2, "æĪ": 3}, ["æ Ī"])},
    ),
    "not-byte-level": CodeDoc(
        "A token of a byte-level vocabulary holds a character outside GPT-2's 256-character byte alphabet "
        "(added and special tokens excepted).",
        "Byte-level decoders map each character back to a byte; a character outside the alphabet has no byte, "
        "so the token can never be produced and decodes wrongly. It usually means raw text was pasted into the vocabulary.",
        "Write the token in the byte alphabet (`Ġ` for a space, `ä¸Ń` for `中`), or declare it an added token.",
        {"tokenizer.json": _tok({"a": 0, "b": 1, "ab": 2, "中": 3}, ["a b"])},
    ),
    "merge-unknown-token": CodeDoc(
        "A part of a merge is not in the vocabulary.",
        "`tokenizers` refuses to load the file (\"Merge token not in vocabulary\" without saying which).",
        "Add the token to the vocabulary or remove the merge (the editor's quick fix removes it).",
        {"tokenizer.json": _tok(_V, ["a b", "ab z"])},
    ),
    "merge-result-missing": CodeDoc(
        "The concatenation of a merge's two parts is not in the vocabulary.",
        "`tokenizers` refuses to load the file: every merge must produce a vocabulary token.",
        "Add the merged token to the vocabulary with the next free id, or remove the merge.",
        {"tokenizer.json": _tok(_V, ["a b", "b c"])},
    ),
    "merge-malformed": CodeDoc(
        "A string merge that does not split on one space into exactly two parts (or a merges line that is not two parts).",
        "`tokenizers` refuses string merges with no space or with several spaces.",
        "Write the merge as two parts separated by one space, or use the pair form `[\"a\", \"b\"]`.",
        {"tokenizer.json": _tok(_V, ["a b", "abc"])},
    ),
    "merge-ambiguous": CodeDoc(
        "In a vocabulary whose tokens may hold a raw space (not byte-level), a string merge with several "
        "spaces that splits into two vocabulary tokens at more than one of them.",
        "`\"x y z\"` can mean `x` + `y z` or `x y` + `z`; `tokenizers` refuses such merges, and only the pair form says which is meant.",
        "Convert the merges to the pair form (`[\"x\", \"y z\"]`); the editor's `refactor.rewrite` action does all of them.",
        {
            "tokenizer.json": _tok(
                {"x": 0, "y": 1, "z": 2, "x y": 3, "y z": 4, "x y z": 5}, ["x y", "x y z"], byte_level=False
            )
        },
    ),
    "duplicate-token": CodeDoc(
        "A token appears twice in the vocabulary.",
        "JSON loaders keep the last value, so one of the two ids silently disappears and the vocabulary has a hole.",
        "Remove one entry, keeping the id the model was trained with.",
        {"tokenizer.json": _tok(_V, _M).replace('"abc": 4', '"abc": 4,\n      "ab": 5')},
    ),
    "duplicate-id": CodeDoc(
        "Two tokens have the same id.",
        "Decoding that id gives one of them at random from the model's point of view; encoding the other gives an id the model reads as the first.",
        "Give each token its own id (the next free one), matching the model's embedding rows.",
        {"tokenizer.json": _tok({**_V, "c": 1}, ["a b"])},
    ),
    "id-gap": CodeDoc(
        "Ids are not dense: one finding per missing range.",
        "Often intended (reserved rows), sometimes a sign of removed tokens; the embedding rows for the gap are never used.",
        "Nothing to fix if the gap is intended; otherwise renumber or fill it.",
        {"tokenizer.json": _tok({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 7}, _M)},
    ),
    "added-token-mismatch": CodeDoc(
        "An added token whose id differs from its id in the vocabulary.",
        "`tokenizers` uses the vocabulary's id when loading; code that reads `added_tokens` directly gets the other one.",
        "Set the added token's `id` to the vocabulary's (quick fix in the editor, also in `source.fixAll`).",
        {"tokenizer.json": _tok({**_V, "<s>": 5}, _M, [_added("<s>", 6)])},
    ),
    "merges-header": CodeDoc(
        "A merges file without a `#version` header, or with text before `#version`.",
        "Older loaders (GPT-2's own code, some `transformers` versions) skip the first line unconditionally: without the header they drop the first merge.",
        "Add `#version: 0.2` as the first line (quick fix in the editor).",
        {"vocab.json": json.dumps({"a": 0, "b": 1, "ab": 2}) + "\n", "merges.txt": "a b\n"},
    ),
    "tiktoken-malformed": CodeDoc(
        "A `.tiktoken` line that tiktoken's loader fails on (not `base64 rank`), or a rank its encoder cannot hold.",
        "`tiktoken.load.load_tiktoken_bpe` raises on the whole file.",
        "Make the line `BASE64 RANK` with a decimal rank; remove stray lines.",
        {"tiny.tiktoken": "YQ== 0\nYg== 1\nYWI= two\n"},
    ),
    "unreachable-token": CodeDoc(
        "A vocabulary token the tokenizer never produces: encoding its own text gives other tokens. The "
        "message says what it encodes to and why (the normalizer rewrites it, the pre-tokenizer splits it, "
        "an added token splits it, no merge builds it).",
        "Its embedding row is never trained or used: wasted vocabulary, and a sign that a conversion or an added "
        "token went wrong.",
        "Often nothing (normalizers make some tokens unreachable on purpose). Otherwise add the missing merge, "
        "or fix the normalizer or added token that splits it.",
        {"tokenizer.json": _tok(_V, ["a b"])},
    ),
    "config-token-missing": CodeDoc(
        "A token named in a model folder's config file (`bos_token`, `eos_token`, `additional_special_tokens`, "
        "`added_tokens_decoder`...) that is neither in the vocabulary nor an added token.",
        "`transformers` adds it as a new token with a fresh id the model has no embedding for, or generation "
        "never stops because the eos token is not the one the model emits.",
        "Name a token the tokenizer has (check the spelling against `added_tokens`).",
        {
            "tokenizer.json": _tok({**_V, "<|end|>": 5}, _M, [_added("<|end|>", 5)]),
            "tokenizer_config.json": json.dumps({"eos_token": "<|eot|>"}, indent=2) + "\n",
        },
    ),
    "config-id-mismatch": CodeDoc(
        "An id in a config file that disagrees with the tokenizer: an `added_tokens_decoder` key, or "
        "`bos_token_id`/`eos_token_id`/`pad_token_id` in generation_config.json or config.json.",
        "Generation stops on the id, not the token: a wrong `eos_token_id` makes the model run on or stop early.",
        "Use the id the tokenizer gives the named token (quick fix for `added_tokens_decoder` keys).",
        {
            "tokenizer.json": _tok({**_V, "<|end|>": 5}, _M, [_added("<|end|>", 5)]),
            "tokenizer_config.json": json.dumps({"eos_token": "<|end|>"}, indent=2) + "\n",
            "generation_config.json": json.dumps({"eos_token_id": 4}, indent=2) + "\n",
        },
    ),
    "vocab-size": CodeDoc(
        "config.json's `vocab_size` is below the highest id + 1 (error), or above it (information: padding rows).",
        "Below: ids past the embedding matrix crash or read garbage. Above: harmless padding, reported so it is known.",
        "Set `vocab_size` to at least the highest id + 1 (the model's embedding rows decide the real value).",
        {"tokenizer.json": _tok(_V, _M), "config.json": json.dumps({"vocab_size": 4}, indent=2) + "\n"},
    ),
    "chat-template-token": CodeDoc(
        "A special-looking literal (`<|...|>`, or `<name>` written like a special token) in `chat_template` "
        "that is not a token.",
        "The template renders it as plain text, split into several tokens, so the model never sees the special "
        "token it was trained on; usually a typo (`<|im_ned|>`).",
        "Spell it as the added token (the message suggests the near miss), or add the token.",
        {
            "tokenizer.json": _tok({**_V, "<|end|>": 5}, _M, [_added("<|end|>", 5)]),
            "tokenizer_config.json": json.dumps({"chat_template": "{{ message }}<|edn|>"}, indent=2) + "\n",
        },
    ),
    **PART3,
    **CHAT,
}


def silence(code: str) -> str:
    """How to silence or re-level a code, on the command line and in an editor (markdown)."""
    return (
        f"- command line: `tokenizer-lsp check --severity {code}=off PATH` (or another level: "
        "`error`, `warning`, `information`, `hint`)\n"
        f"- editors: the setting `tokenizerLsp.diagnostics.severity`: `{{\"{code}\": \"off\"}}`"
    )


def missing() -> list[str]:
    """Codes of DEFAULT_SEVERITY without documentation (the test wants none)."""
    return [c for c in DEFAULT_SEVERITY if c not in DOCS]
