"""encode with tokenizers' BertWordPieceTokenizer, as docs/formats/wordpiece.md says: `lowercase`
from the folder's do_lower_case; `--special`: [CLS] … [SEP]."""

from __future__ import annotations

from ..table import FormatError, TokenTable


def tokenizer(table: TokenTable):
    from tokenizers.implementations import BertWordPieceTokenizer

    vocab: dict[str, int] = {}
    for row in table.rows:  # a later line wins, as WordPiece::read_file's map insert
        vocab[row.token] = row.id
    m = table.meta
    try:
        return BertWordPieceTokenizer(
            vocab,
            unk_token=m["unk_token"],
            lowercase=m["do_lower_case"],
            strip_accents=m["strip_accents"],
            handle_chinese_chars=m["tokenize_chinese_chars"],
        )
    except Exception as e:  # tokenizers raises TypeError (no [CLS] or [SEP]) or its own errors
        raise FormatError(f"BertWordPieceTokenizer refuses this vocabulary: {e}") from None


def encode_spans(table: TokenTable, text: str, special: bool) -> list[tuple[int, int, int]]:
    from ..engine_cache import engine_for

    enc = engine_for(table, tokenizer).encode(text, add_special_tokens=special)
    return [(i, s, e) for i, (s, e) in zip(enc.ids, enc.offsets)]
