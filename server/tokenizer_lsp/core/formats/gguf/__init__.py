"""The GGUF plug-in (docs/formats/gguf.md): the tokenizer inside a llama.cpp model file.

Only the metadata is read (reader.py: a memory map walked up to the end of the key/value
section, every count checked against the file size), so a multi-GB model opens like a
small vocabulary. Rows: rows.py; encode: engine.py (llama.cpp's tokenization rebuilt with
HF `tokenizers`); checks: checks.py (alone) and source_checks.py (against
the HF folder it was converted from).
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager

from ..table import TokenTable
from .reader import MAGIC, read_file_metadata, read_metadata
from .rows import SPM_STYLE, build_table


class GGUFPlugin:
    name = "gguf"
    label = "GGUF"
    binary = True
    checks = "gguf.checks"  # core/formats/gguf/checks.py (and source_checks.py)
    compares_with_source = True  # `check model.gguf HF_DIR` (cli/tables.source_pairs)

    @property
    def style(self):  # per table in truth; stats asks the plug-in: the common case
        return None

    def named(self, name: str) -> bool:
        return name.lower().endswith(".gguf")

    def sniff(self, head: bytes, path: str | None) -> bool:
        return head[:4] == MAGIC

    def read(self, path: str) -> TokenTable:
        with _no_gc():
            table = build_table(*read_file_metadata(path))
        return _with_path(table, path)

    def read_bytes(self, data: bytes, path: str | None = None) -> TokenTable:
        with _no_gc():
            table = build_table(*read_metadata(bytes(data)))
        return _with_path(table, path)

    def row_kind(self, table: TokenTable, row) -> str:
        if row.type == "BYTE":
            return "byte-fallback"
        if row.type in ("CONTROL", "USER_DEFINED"):
            return "special" if row.type == "CONTROL" else "literal"
        return "byte-level" if table.meta.get("model_type") == "gpt2" else "literal"

    def encode(self, table: TokenTable, text: str, special: bool, folder: str | None) -> list[int]:
        from .engine import encode

        return encode(table, text, special)

    def diff_adjust(self, table: TokenTable, side):
        """The generic diff side of the table (cli/tables.table_side) with what the converter
        changed put back: the vocabulary in HF's spelling (WordPiece `##`), byte-level scheme
        for gpt2, the merges, HF's model type; for gpt2, CONTROL and USER_DEFINED tokens are
        HF added tokens outside the model's vocabulary (Llama 3, Qwen)."""
        from dataclasses import replace

        from ...decoding.tokens import Scheme

        model = table.meta.get("model_type")
        vocab = side.vocab
        merges = table.meta.get("_merges")
        if model == "gpt2":
            vocab = {r.token: r.id for r in table.rows if r.type not in ("CONTROL", "USER_DEFINED")}
            side = replace(side, scheme=Scheme.BYTE_LEVEL)
        elif model == "bert":
            vocab = {}
            for r in table.rows:
                t = r.token
                hf = t[1:] if t.startswith("\u2581") else t if r.type != "NORMAL" or t[:1] == "[" else "##" + t
                vocab.setdefault(hf, r.id)
            side = replace(side, subword_prefix="##", token_bytes=None, scheme=Scheme.WORDPIECE)
        elif model in ("llama", "gemma4"):
            side = replace(side, scheme=Scheme.SENTENCEPIECE)
        kind = {"gpt2": "BPE", "llama": "BPE", "gemma4": "BPE", "bert": "WordPiece", "t5": "Unigram"}.get(model, model)
        return replace(side, vocab=vocab, model_type=kind, merges=list(merges) if merges else side.merges, flat=True)

    def diff_flags(self, table: TokenTable) -> dict:
        m = table.meta
        unk = m.get("unknown_token_id")
        unk_tok = table.rows[unk].token if isinstance(unk, int) and 0 <= unk < len(table.rows) else None
        flags = {"unk_token": unk_tok, "byte_fallback": any(r.type == "BYTE" for r in table.rows)}
        if m.get("model_type") in SPM_STYLE:
            flags["fuse_unk"] = True  # what a tokenizer.json converted from a .model says
        if m.get("model_type") == "gpt2":
            from .engine import pre_info

            info = pre_info(table)
            flags["ignore_merges"] = bool(info and info[1])
        return flags


@contextmanager
def _no_gc():
    """The cyclic collector paused while a vocabulary's million strings and rows are made:
    none of them can form a cycle, yet each allocation burst made it scan them all again
    (measured: 256k rows 0.51 s with it, 0.16 s without). Restored as it was, also on error."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _with_path(table: TokenTable, path: str | None) -> TokenTable:
    # the checks against an HF folder look beside the file
    meta = dict(table.meta)
    meta["_source_path"] = os.path.abspath(path) if path else None
    return TokenTable(table.format, table.rows, meta, read_findings=table.read_findings)


PLUGIN = GGUFPlugin()
