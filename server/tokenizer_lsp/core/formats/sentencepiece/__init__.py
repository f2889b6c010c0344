"""The SentencePiece `.model` plug-in (docs/formats/sentencepiece.md): a binary protobuf ModelProto.

Read by our own wire reader (wire.py: why not `sentencepiece_model_pb2`), checked by
core/formats/sentencepiece/checks.py, encoded by the `sentencepiece` engine (engine.py), loaded only
for `encode` and unreachable tokens.
"""

from __future__ import annotations

import os

from ..table import TokenTable
from .model import looks_like_model, read_model

# names that break a tie when the content is too short to tell (content decides)
_NAMES = ("tokenizer.model", "spiece.model", "sentencepiece.bpe.model")


def _named_like_model(path: str | None) -> bool:
    base = os.path.basename(path or "").lower()
    if base in _NAMES or base.endswith(".model"):
        return True
    stem, dot, suffix = base.rpartition(".")  # *.model.v3
    return bool(dot) and stem.endswith(".model") and suffix[:1] == "v" and suffix[1:].isdigit()


def _binary_head(head: bytes) -> bool:
    if b"\x00" in head[:4096]:
        return True
    try:
        head[:4096].decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start < min(len(head), 4096) - 3
    return False


class SentencePiecePlugin:
    name = "sentencepiece"
    label = "SentencePiece .model"
    binary = True
    checks = "sentencepiece.checks"  # core/formats/sentencepiece/checks.py
    style = "sentencepiece"  # `▁` for a space, <0xNN> byte pieces

    def diff_flags(self, table: TokenTable) -> dict:
        """The model flags a tokenizer.json converted from this model carries."""
        m = table.meta
        unk = table.rows[m["unk_id"]].token if 0 <= m["unk_id"] < len(table.rows) else None
        if m["model_type"] == "UNIGRAM":
            return {"unk_id": m["unk_id"] if unk is not None else None, "byte_fallback": m["byte_fallback"]}
        return {"unk_token": unk, "fuse_unk": True, "byte_fallback": m["byte_fallback"]}

    def named(self, name: str) -> bool:
        return _named_like_model(name)

    def sniff(self, head: bytes, path: str | None) -> bool:
        # the content says ModelProto; or the name does and the content is binary, so that a
        # cut or corrupt tokenizer.model gets the reader's reason rather than "not a tokenizer"
        return looks_like_model(head) or (_named_like_model(path) and _binary_head(head))

    def read(self, path: str) -> TokenTable:
        with open(path, "rb") as f:
            data = f.read()
        return self.read_bytes(data, path)

    def read_bytes(self, data: bytes, path: str | None = None) -> TokenTable:
        table = read_model(data)
        return TokenTable(table.format, table.rows, table.meta, source=data)

    def encode(self, table: TokenTable, text: str, special: bool, folder: str | None) -> list[int]:
        return [i for i, _, _ in self.encode_spans(table, text, special, folder)]

    def encode_spans(
        self, table: TokenTable, text: str, special: bool, folder: str | None
    ) -> list[tuple[int, int, int]]:
        from .engine import encode_spans

        return encode_spans(table.source, text, special)


PLUGIN = SentencePiecePlugin()
