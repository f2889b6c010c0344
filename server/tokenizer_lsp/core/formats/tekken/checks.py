"""Checks of a Mistral tekken table (core/formats/tekken): one function per code, each
saying what mistral-common's `Tekkenizer` does with the flaw (most of them are one of its
loader's asserts, so the file does not load at all).

Only the entries mistral-common reads are judged: the first
default_vocab_size - default_num_special_tokens of `vocab` (the rest are cut off by
`_reload_mergeable_ranks(vocab, max_vocab=...)` before any of its checks).
"""

from __future__ import annotations

from collections.abc import Iterator

from ...decoding.display import hex_head
from ...decoding.display import quoted as _q
from ..table import TableFinding
from .asserts import _at, _data, _used, tekken_rank, vocab_size
from .read import NAMED_SPECIALS

# stats says this where it would give the unreachable count (tekken has no unreachable-token test)
UNREACHABLE_NOT_TESTED = "`check` has no unreachable-token test for tekken files"
MAX_PER_CODE = 200  # a file with every rank shifted gets the first ones and a count, not 131k


def findings(table) -> list[TableFinding]:
    """The tekken codes (core/checks/tables.py adds the shared duplicate-token of a stored
    form and utf8-fragment, and the reader's findings)."""
    out: list[TableFinding] = []
    for code_check in (tekken_rank, tekken_token_str, duplicate_bytes, special_id, vocab_size):
        found = list(code_check(table))
        if len(found) > MAX_PER_CODE:
            last = found[MAX_PER_CODE - 1]
            found = found[: MAX_PER_CODE - 1] + [
                TableFinding(
                    last.code,
                    f"{last.message} (and {len(found) - MAX_PER_CODE} more like it, not listed)",
                    last.id,
                    last.key,
                    last.start,
                    last.end,
                    last.level,
                )
            ]
        out += found
    return out


def tekken_token_str(table) -> Iterator[TableFinding]:
    for i in range(_used(table)):
        _, b64, token_str = table.entries[i]
        if token_str is None:
            continue
        data = _data(table, i)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if token_str != text:
            what = f"decode to {_q(text)}" if text is not None else "are not valid UTF-8 (token_str should be null)"
            yield TableFinding(
                "tekken-token-str",
                f"token_str {_q(token_str)} but token_bytes {b64!r} {what}: "
                "mistral-common encodes and decodes with token_bytes, never token_str",
                **_at(table, i),
            )


def duplicate_bytes(table) -> Iterator[TableFinding]:
    """The same bytes at two ranks under different token_str (the same token_str twice is
    the shared duplicate-token check's)."""
    seen: dict[bytes, int] = {}
    for i in range(_used(table)):
        data = _data(table, i)
        first = seen.setdefault(data, i)
        if first != i and table.entries[first][2] != table.entries[i][2]:
            yield TableFinding(
                "duplicate-token",
                f"the bytes {hex_head(data) if data else '(empty)'} of rank {i} "
                f"are already rank {first}: mistral-common keys its ranks by bytes and "
                "refuses the file (assert len(ranks) == len(vocab))",
                **_at(table, i),
            )


def _special_at(table, k: int) -> dict:
    span = table.special_spans[k] if k < len(table.special_spans) else None
    return {"id": k, "start": span[0] if span else None, "end": span[1] if span else None}


def special_id(table) -> Iterator[TableFinding]:
    m = table.meta
    n = m["default_num_special_tokens"]
    listed = table.file_specials
    if listed is not None:
        if len(listed) > n:
            yield TableFinding(
                "special-id",
                f"{len(listed)} special tokens listed but default_num_special_tokens is {n}: "
                "mistral-common refuses the file",
                key="default_num_special_tokens",
            )
        for k, (rank, text, _control) in enumerate(listed):
            if rank != k:
                yield TableFinding(
                    "special-id",
                    f"special token {_q(text)} is listed at place {k} with rank {rank!r}: "
                    f"mistral-common gives it id {rank!r} by its rank but decodes id {k} as it by its "
                    "place; the rank must be the place",
                    **_special_at(table, k),
                )
    specials = {row.token: row for row in table.rows[:n]}
    for role in ("unk", "bos", "eos"):
        text = NAMED_SPECIALS[role]
        row = specials.get(text)
        if row is None:
            yield TableFinding(
                "special-id",
                f"no special token {_q(text)}: mistral-common's {role}_id raises (Unknown control token {text})",
                key="special_tokens",
            )
        elif listed is not None and row.id < len(listed) and not listed[row.id][2]:
            yield TableFinding(
                "special-id",
                f"{role} token {_q(text)} (id {row.id}) has is_control false: "
                "mistral-common's instruct tokenizers treat it as a control token",
                **(_special_at(table, row.id) if listed is not None else {"id": row.id}),
            )
