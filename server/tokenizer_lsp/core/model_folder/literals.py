"""The tokens and ids the config files beside a tokenizer file name (every short string, key
and integer in them, and the special-looking tokens their chat templates write): what their
checks will ask the tokenizer's table. The staged build (core.index.staged) answers these
ahead of the table, so that the config findings a user waits for after opening a large
tokenizer.json need not wait for the table's trip from the build's child (qwen3: 0.15-0.3 s)."""

from __future__ import annotations

import os

import orjson

from ..compact_vocab import KnownTokens
from ..detect import CONFIG_NAMES
from .config_doc import special_literals

MAX_LITERAL = 512  # characters: a longer string (a chat template) names no token
MAX_LITERALS = 200_000  # gemma3's configs name about 13,000; past this the table answers
MAX_CONFIG_BYTES = 64 << 20


def config_literals(path: str | None) -> tuple[set[str], set[int]]:
    """The short strings (values and keys) and the integers (values and decimal keys) of the
    config files in the folder of `path`. Unreadable or broken files add nothing."""
    strings: set[str] = set()
    ints: set[int] = set()
    if not path:
        return strings, ints
    folder = os.path.dirname(os.path.abspath(path))
    for name in CONFIG_NAMES:
        try:
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read(MAX_CONFIG_BYTES + 1)
            if len(data) > MAX_CONFIG_BYTES:
                continue
            obj = orjson.loads(data)
        except (OSError, orjson.JSONDecodeError):
            continue
        _walk(obj, strings, ints)
        if len(strings) + len(ints) > MAX_LITERALS:
            break
    return strings, ints


def _walk(obj, strings: set[str], ints: set[int]) -> None:
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            if len(o) <= MAX_LITERAL:
                strings.add(o)
            if "<" in o:  # a chat template: the special-looking tokens it writes are checked
                strings.update(lit for _, _, lit in special_literals(o))
        elif isinstance(o, bool):
            continue
        elif isinstance(o, int):
            ints.add(o)
        elif isinstance(o, dict):
            for k, v in o.items():
                if len(k) <= MAX_LITERAL:
                    strings.add(k)
                    if k.isdigit() and k.isascii():
                        ints.add(int(k))
                stack.append(v)
        elif isinstance(o, list):
            stack.extend(o)


def known_tokens(table: dict, path: str | None) -> KnownTokens:
    """The table's answers for the literals of the config files beside `path`: as the table
    itself would give them (the first token in its order for an id; see
    DocumentIndex._ordinal_of_id)."""
    strings, ints = config_literals(path)
    ids = {s: table.get(s) for s in strings}
    wanted = {i for i in ints if 0 <= i < 1 << 26}
    tokens: dict[int, str | None] = dict.fromkeys(ints)
    if wanted:
        for token, tid in table.items():
            if type(tid) is int and tid in wanted:
                wanted.discard(tid)
                tokens[tid] = token
                if not wanted:
                    break
    try:
        top = max(table.values(), default=None)
    except TypeError:  # ids that do not compare: the table's own answer, when it comes
        top = None
    return KnownTokens(ids, tokens, top if type(top) is int else None)
