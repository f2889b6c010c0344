"""The tokens of a plug-in format's file (a SentencePiece `tokenizer.model`, a WordPiece
`vocab.txt`) as the config checks hold a folder's config files against them.

Such a file has no added tokens of its own: what transformers adds beside it (a config's
special token the model lacks) is exactly what `config-token-missing` reports, as beside a
tokenizer.json whose vocabulary lacks it.
"""

from __future__ import annotations

import os

from ..decoding.tokens import Scheme
from ..formats.table import TokenTable
from ..model import Vocabulary
from .facts import TokenizerFacts


def facts_of_table(table: TokenTable, style: str | None, path: str | None) -> TokenizerFacts:
    """TokenizerFacts of a table: each piece as stored -> its id. A piece stored twice has
    its later id, as tokenizers' WordPiece.read_file reads a vocab.txt (sentencepiece
    refuses such a model; duplicate-token reports it either way)."""
    tokens: dict[str, int] = {}
    by_id: dict[int, str] = {}
    for row in table.rows:
        tokens[row.token] = row.id
        by_id.setdefault(row.id, row.token)
    scheme = Scheme(style) if style in {s.value for s in Scheme} else Scheme.LITERAL
    prefix = str(table.meta.get("continuing_subword_prefix") or ("##" if scheme is Scheme.WORDPIECE else ""))
    vocab = Vocabulary(
        scheme,
        tokens,
        model_type=str(table.meta.get("model_type") or table.format),
        special={r.token for r in table.rows if r.special},
        subword_prefix=prefix,
    )
    return TokenizerFacts(vocab, os.path.basename(path or table.format), by_id.get)


def facts_of_table_file(path: str) -> TokenizerFacts | None:
    """The facts of a file a plug-in reads, or None (no plug-in claims it, or it cannot be
    read: its own check says why)."""
    from ..formats.registry import read_table
    from ..formats.table import FormatError

    try:
        got = read_table(path)
    except (OSError, FormatError):
        return None
    if got is None:
        return None
    plugin, table = got
    return facts_of_table(table, getattr(plugin, "style", None), path)
