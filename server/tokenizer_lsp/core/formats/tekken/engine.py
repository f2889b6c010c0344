"""Encoding a tekken table with tiktoken, as mistral-common's Tekkenizer itself does
(mistral_common/tokens/tokenizers/tekken.py, 1.13.1), so a default install needs no
mistral-common (it pulls numpy and pydantic; tests hold these ids to it):

- `_reload_mergeable_ranks(vocab, max_vocab=default_vocab_size - default_num_special_tokens)`:
  the first used entries, bytes -> rank, after its asserts (rank = place, the first 256 are
  the single bytes, no bytes twice);
- `tiktoken.Encoding(name, pat_str=config.pattern, mergeable_ranks=..., special_tokens={})`
  ("special tokens are handled manually");
- `encode(s, bos, eos)`: `self._model.encode(s)` plus `num_special_tokens` on each id, the
  `<s>` special's id first when bos.

A file whose loader asserts fail is refused with the check's own sentence (`check` lists
every finding), as mistral-common refuses to load it.
"""

from __future__ import annotations

import weakref

from ..table import FormatError, TokenTable

# one Encoding per table (building the 130k ranks costs a few hundred ms; the server and
# `diff --text` encode a table more than once): id(table) -> (weak reference, Encoding)
_ENCODINGS: dict[int, tuple] = {}


def encode(table: TokenTable, text: str, bos: bool) -> list[int]:
    """`Tekkenizer.encode(text, bos=bos, eos=False)` of the file the table was read from."""
    n = table.meta["default_num_special_tokens"]
    ids = [t + n for t in encoding(table).encode(text)]
    if bos:
        bos_id = table.meta.get("bos_id")
        if bos_id is None:  # Tekkenizer.bos_id looks "<s>" up among the specials and raises
            raise FormatError("no special token \"<s>\": mistral-common's bos_id raises, so there is no BOS to add")
        ids.insert(0, bos_id)
    return ids


def encoding(table: TokenTable):
    """The tiktoken Encoding mistral-common builds for the table (cached per table)."""
    got = _ENCODINGS.get(id(table))
    if got is not None and got[0]() is table:
        return got[1]
    enc = _build(table)
    key = id(table)
    _ENCODINGS[key] = (weakref.ref(table, lambda _: _ENCODINGS.pop(key, None)), enc)
    return enc


def _build(table: TokenTable):
    import tiktoken

    from .asserts import tekken_rank, vocab_size

    # the loader's asserts, said as `check` says them (the first one)
    for found in (*(f for f in table.read_findings if f.severity == "error"), *vocab_size(table), *tekken_rank(table)):
        raise FormatError(f"mistral-common refuses this file: {found.message}; `check` lists every finding")
    m = table.meta
    n = m["default_num_special_tokens"]
    specials = [r.token for r in table.rows[:n]]  # listed, default and fillers: Tekkenizer asserts they are unique
    if len(set(specials)) != n:
        twice = next(t for t in specials if specials.count(t) > 1)
        raise FormatError(
            f"mistral-common refuses this file: the special token {twice!r} is there twice; `check` lists every finding"
        )
    inner = m["default_vocab_size"] - n
    ranks = {table.rows[n + i].data: i for i in range(inner)}
    if len(ranks) != inner:  # `assert len(ranks) == len(vocab)`: the same bytes at two ranks
        rank = next(i for i in range(inner) if ranks[table.rows[n + i].data] != i)
        raise FormatError(
            f"mistral-common refuses this file: the bytes of rank {rank} are also rank "
            f"{ranks[table.rows[n + rank].data]}'s; `check` lists every finding"
        )
    path = getattr(table, "path", None) or "tekken.json"
    name = path.replace("\\", "/").rsplit("/", 1)[-1].replace(".json", "")  # as from_file names it
    try:
        return tiktoken.Encoding(name=name, pat_str=m["pattern"], mergeable_ranks=ranks, special_tokens={})
    except ValueError as e:  # a pattern tiktoken's regex engine refuses
        raise FormatError(f"tiktoken cannot use this file's pattern: {e}") from None
