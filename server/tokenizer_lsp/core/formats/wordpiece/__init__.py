"""The WordPiece `vocab.txt` plug-in (docs/formats/wordpiece.md): BERT's one token per line.

A token's id is its 0-based line (lines end at `\\n`; trailing whitespace, `\\r` included,
is not part of the token: tokenizers' WordPiece::read_file). The folder's
`tokenizer_config.json` gives `do_lower_case` (default true) and the unk token. Checked by
core/formats/wordpiece/checks.py; encoded by tokenizers' BertWordPieceTokenizer.
"""

from __future__ import annotations

import os

from ..table import TokenTable
from .read import folder_settings, looks_like_vocab_txt, read_vocab_txt


class WordPiecePlugin:
    name = "wordpiece"
    label = "WordPiece vocab.txt"
    binary = False
    checks = "wordpiece.checks"  # core/formats/wordpiece/checks.py
    style = "wordpiece"  # `##` continues a word

    def diff_flags(self, table: TokenTable) -> dict:
        return {"unk_token": table.meta["unk_token"], "continuing_subword_prefix": "##"}

    def named(self, name: str) -> bool:
        return name.lower() == "vocab.txt"

    def sniff(self, head: bytes, path: str | None) -> bool:
        return looks_like_vocab_txt(head, os.path.basename(path or "").lower() == "vocab.txt")

    def read(self, path: str) -> TokenTable:
        with open(path, "rb") as f:
            data = f.read()
        return self.read_bytes(data, path)

    def read_bytes(self, data: bytes, path: str | None = None) -> TokenTable:
        return read_vocab_txt(data, folder_settings(path))

    def encode(self, table: TokenTable, text: str, special: bool, folder: str | None) -> list[int]:
        return [i for i, _, _ in self.encode_spans(table, text, special, folder)]

    def encode_spans(
        self, table: TokenTable, text: str, special: bool, folder: str | None
    ) -> list[tuple[int, int, int]]:
        from .engine import encode_spans

        return encode_spans(table, text, special)


PLUGIN = WordPiecePlugin()
