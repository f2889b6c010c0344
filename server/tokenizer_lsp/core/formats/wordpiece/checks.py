"""Checks of a WordPiece vocab.txt table (docs/formats/wordpiece.md)."""

from __future__ import annotations

from ...decoding.display import quoted as _q
from ..table import TableFinding, TokenTable

# stats' unreachable count is check's: these findings (WordPiece is outside unreachable-token's
# definition, which is BPE's: a vocab.txt's [unused0] or a "##" piece no word spells are not tested)
UNREACHABLE_CODE = "wordpiece-unreachable"
UNREACHABLE_WHAT = "wordpiece-unreachable: lines with whitespace, or empty; other WordPiece tokens are not tested"


def findings(table: TokenTable) -> list[TableFinding]:
    return unreachable_lines(table) + unk_missing(table)


def unreachable_lines(table: TokenTable) -> list[TableFinding]:
    """wordpiece-unreachable: BERT's pre-tokenizer splits on whitespace, so a token holding
    some is never produced; an empty line is a token nothing produces either."""
    out = []
    spans = table.spans or ()
    for row, (start, end) in zip(table.rows, spans):
        token = row.token
        if not token:
            out.append(
                TableFinding(
                    "wordpiece-unreachable",
                    f"line {row.id + 1} is empty: id {row.id} is a token no text encodes to",
                    id=row.id,
                    start=start,
                    end=end,
                )
            )
        elif any(c.isspace() for c in token):
            out.append(
                TableFinding(
                    "wordpiece-unreachable",
                    f"{_q(token)} (id {row.id}) holds whitespace: the "
                    "pre-tokenizer splits there, so it is never produced",
                    id=row.id,
                    start=start,
                    end=end,
                )
            )
    return out


def unk_missing(table: TokenTable) -> list[TableFinding]:
    """wordpiece-unk-missing: WordPiece maps every word it cannot spell to the unk token;
    without one in the vocabulary the tokenizer fails on such a word."""
    unk = table.meta.get("unk_token") or "[UNK]"
    if any(row.token == unk for row in table.rows):
        return []
    source = table.meta.get("tokenizer_config")
    where = f" (the unk_token of {source})" if source else ""
    first = table.spans[0] if table.spans else (None, None)
    return [
        TableFinding(
            "wordpiece-unk-missing",
            f"no {_q(unk)} line{where}: a word WordPiece cannot spell has no token to become",
            key="unk_token",
            start=first[0],
            end=first[1],
        )
    ]
