"""Findings on a GGUF's tokenizer (core/formats/gguf): its own consistency, and, with the HF
folder it was converted from (beside the file, or given: `check model.gguf HF_DIR`), every
`gguf-*` code of docs/formats/gguf.md (source_checks.py).

Alone: special ids in range and of a type that can be special (`special-id`), merges that
name tokens (`merge-unknown-token`, `merge-result-missing`), the `pre` name llama.cpp must
know (`gguf-pre-missing`). Array lengths are the reader's findings (`schema`); duplicate
tokens the shared table check.
"""

from __future__ import annotations

import os

from ...decoding.display import quoted as _q
from ..table import TableFinding, TokenTable
from .pre_names import NAMES
from .rows import K

# stats says this where it would give the unreachable count (GGUF has no unreachable-token test)
UNREACHABLE_NOT_TESTED = "`check` has no unreachable-token test for GGUF files"

# which token types a special id may name (llama.cpp's converter writes these; pad is often
# eos or an ordinary token, so it is only checked for range)
_ALLOWED = {
    "bos": ("CONTROL", "USER_DEFINED"),
    "eos": ("CONTROL", "USER_DEFINED"),
    "eot": ("CONTROL", "USER_DEFINED"),
    "eom": ("CONTROL", "USER_DEFINED"),
    "seperator": ("CONTROL", "USER_DEFINED"),
    "cls": ("CONTROL", "USER_DEFINED"),
    "mask": ("CONTROL", "USER_DEFINED"),
    "unknown": ("UNKNOWN", "CONTROL"),
    "padding": None,
}
MAX_LISTED = 50  # findings of one kind before one summary finding says how many more


def findings(table: TokenTable) -> list[TableFinding]:
    from ...chat.gguf_checks import own_findings  # the chat-template checks of its templates

    return special_ids(table) + merge_names(table) + pre_missing(table) + own_findings(table)


def source_findings(table: TokenTable, folder: str | None = None) -> list[TableFinding]:
    """The comparison with the HF folder `folder`, else the folder the GGUF is in when it
    holds a tokenizer.json (or a SentencePiece tokenizer.model); [] when there is none."""
    if folder is None:
        path = table.meta.get("_source_path")
        if not path:
            return []
        folder = os.path.dirname(path)
        if not any(os.path.isfile(os.path.join(folder, n)) for n in ("tokenizer.json", "tokenizer.model")):
            return []
    from .source_checks import compare

    return compare(table, folder)


def special_ids(table: TokenTable) -> list[TableFinding]:
    out = []
    n = len(table.rows)
    for name, allowed in _ALLOWED.items():
        key = f"{K}{name}_token_id"
        v = table.meta.get(f"{name}_token_id")
        if v is None:
            continue
        if not isinstance(v, int) or not 0 <= v < n:
            out.append(TableFinding("special-id", f"{key} is {v}, outside the {n} tokens", key=key))
            continue
        row = table.rows[v]
        if allowed and row.type is not None and row.type not in allowed:
            out.append(
                TableFinding(
                    "special-id",
                    f"{key} is {v} = {_q(row.token)}, a {row.type} token (expected {' or '.join(allowed)})",
                    key=key,
                    id=v,
                )
            )
    return out


def merge_names(table: TokenTable) -> list[TableFinding]:
    merges = table.meta.get("_merges")
    if not merges:
        return []
    vocab = {r.token for r in table.rows}
    out, more = [], 0
    key = K + "merges"
    for i, m in enumerate(merges):
        at = m.find(" ", 1)
        if at > 0:  # the common case first, in as few operations as can be (280k merges)
            left, right = m[:at], m[at + 1 :]
            if left in vocab and right in vocab and left + right in vocab:
                continue
        if at < 0:
            msg = (f"merge #{i} {_q(m)} is not two tokens separated by a space", "merge-malformed")
        else:
            left, right = m[:at], m[at + 1 :]
            missing = [t for t in (left, right) if t not in vocab]
            if missing:
                msg = (f"merge #{i} {_q(m)} names {' and '.join(map(_q, missing))}, not a token", "merge-unknown-token")
            elif left + right not in vocab:
                msg = (f"merge #{i} {_q(m)} makes {_q(left + right)}, not a token", "merge-result-missing")
            else:
                continue
        if len(out) < MAX_LISTED:
            out.append(TableFinding(msg[1], msg[0], key=key))
        else:
            more += 1
    if more:
        out.append(TableFinding(out[-1].code, f"... and {more} more merges like these", key=key))
    return out


def pre_missing(table: TokenTable) -> list[TableFinding]:
    if table.meta.get("model_type") != "gpt2":
        return []
    pre = table.meta.get("pre")
    key = K + "pre"
    if not pre:
        return [
            TableFinding(
                "gguf-pre-missing",
                "a gpt2 (byte-level BPE) vocabulary without tokenizer.ggml.pre: "
                "llama.cpp falls back to 'default' and splits text differently from the model "
                "it was trained with (convert it again with a current convert_hf_to_gguf.py)",
                key=key,
            )
        ]
    if pre not in NAMES:
        return [
            TableFinding(
                "gguf-pre-missing",
                f"tokenizer.ggml.pre {_q(pre)} is a name llama.cpp does not know: it refuses to load the model",
                key=key,
            )
        ]
    return []
