"""A read-only token -> id mapping in a few flat arrays instead of a dict of strings.

Once the checks have run, the server looks tokens up one at a time (hovers, edits). A dict
of 150k-260k str keys and int values costs 20-35 MB; this costs about 30 bytes a token:
the tokens' UTF-8 in one blob with their offsets and ids, and their hashes in sorted
arrays searched by bisect (a lookup is some microseconds).

The hashes are sorted in blocks of _BLOCK tokens rather than all at once, so that each
step of a build is a C call of a few milliseconds: a build running in the indexer thread
never holds the interpreter long enough to stall a hover. A block stores each hash with
its low bits replaced by the token's place in the block (hashes are compared in their
high bits and a match is confirmed on the bytes), which sorts as plain ints.
"""

from __future__ import annotations

import sys
import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, ItemsView, Iterator, Mapping, ValuesView
from itertools import accumulate, islice
from operator import methodcaller, or_

_ENCODE = methodcaller("encode", "utf-8", "surrogatepass")  # tokens may hold lone surrogates
_BITS = 13
_BLOCK = 1 << _BITS
_LOW = _BLOCK - 1
_HIGH = ~_LOW
# 4-byte arrays where the values fit (ids and offsets always do in real files; blocks keep
# the top 32 bits of each hash): 12 bytes a token less than 8-byte ones (1.8 MB on qwen3)
_HASH_SHIFT = 32 if sys.hash_info.width == 64 else 0


def _half(h: int) -> int:
    """The hash bits a block keeps: its top 32 (signed), the low _BITS then replaced."""
    return (h >> _HASH_SHIFT) & _HIGH


def _ints(values) -> array:
    """A 4-byte signed array of the values, an 8-byte one when one of them does not fit."""
    try:
        return array("i", values)
    except OverflowError:
        return array("q", values)


class CompactTokens(Mapping):
    """Keys in the order of the mapping it was built from. The values must be ints that
    fit in 64 bits (the constructor raises OverflowError otherwise)."""

    __slots__ = ("_blob", "_blocks", "_ids", "_offsets")

    def __init__(self, tokens: Mapping[str, int]) -> None:
        parts: list[bytes] = []
        offsets, ids = array("Q", [0]), array("q")  # narrowed below (never a list of ints: peak memory)
        self._blocks: list[array] = []
        keys, values = iter(tokens), iter(tokens.values())
        while block := list(islice(keys, _BLOCK)):
            ids.extend(islice(values, len(block)))
            encoded = list(map(_ENCODE, block))
            offsets.extend(islice(accumulate(map(len, encoded), initial=offsets[-1]), 1, None))
            parts.append(b"".join(encoded))
            # str hashes are cached: nothing is rehashed
            tagged = list(map(or_, map(_half, map(hash, block)), range(len(block))))
            tagged.sort()
            self._blocks.append(_ints(tagged))
        self._blob = b"".join(parts)
        self._offsets = array("I", offsets) if offsets[-1] < 1 << 32 else offsets
        self._ids = _ints(ids)

    def _ordinal(self, key: object) -> int:
        if not isinstance(key, str):
            return -1
        h = _half(hash(key))
        want = None
        off, blob = self._offsets, self._blob
        for b, tagged in enumerate(self._blocks):
            i = bisect_left(tagged, h)
            while i < len(tagged) and tagged[i] & _HIGH == h:
                if want is None:
                    want = _ENCODE(key)
                o = (b << _BITS) | (tagged[i] & _LOW)
                if blob[off[o] : off[o + 1]] == want:
                    return o
                i += 1
        return -1

    def __getitem__(self, key: str) -> int:
        o = self._ordinal(key)
        if o < 0:
            raise KeyError(key)
        return self._ids[o]

    def __contains__(self, key: object) -> bool:
        return self._ordinal(key) >= 0

    def get(self, key, default=None):
        o = self._ordinal(key)
        return default if o < 0 else self._ids[o]

    def __len__(self) -> int:
        return len(self._ids)

    def key_at(self, o: int) -> str:
        """The o-th key, in the order of the mapping it was built from."""
        return self._blob[self._offsets[o] : self._offsets[o + 1]].decode("utf-8", "surrogatepass")

    def ids(self) -> array:
        """The values, in key order."""
        return self._ids

    # the Mapping defaults look every key up again (gemma3: 262k lookups, over a second of
    # the interpreter held in slices, whenever a config check read the whole table)
    def values(self) -> ValuesView:
        return KeyOrderValues(self)

    def items(self) -> ItemsView:
        return KeyOrderItems(self)

    def ordinal(self, key: str) -> int | None:
        o = self._ordinal(key)
        return None if o < 0 else o

    def __iter__(self) -> Iterator[str]:
        blob, off = self._blob, self._offsets
        for o in range(len(self._ids)):
            yield blob[off[o] : off[o + 1]].decode("utf-8", "surrogatepass")


class KeyOrderValues(ValuesView):
    """values() of a mapping with ids() (its values in key order): no lookup per key."""

    def __iter__(self) -> Iterator[int]:
        return iter(self._mapping.ids())


class KeyOrderItems(ItemsView):
    def __iter__(self) -> Iterator[tuple[str, int]]:
        return zip(self._mapping, self._mapping.ids())


class PendingTokens(Mapping):
    """A vocabulary's token table that another stage of a build delivers (core.staged_build):
    `later()` gives it the first time it is used, from whichever thread asks first."""

    __slots__ = ("_later", "_lock", "_value")

    def __init__(self, later: Callable[[], Mapping[str, int]]) -> None:
        self._later, self._value, self._lock = later, None, threading.Lock()

    def resolved(self) -> Mapping[str, int]:
        if self._later is None:  # resolved: no lock (_value is set before _later is cleared)
            return self._value
        with self._lock:
            if self._later is not None:
                self._value, self._later = self._later(), None
        return self._value

    def __getitem__(self, key: str) -> int:
        return self.resolved()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.resolved())

    def __len__(self) -> int:
        return len(self.resolved())

    def __contains__(self, key: object) -> bool:
        return key in self.resolved()

    def get(self, key, default=None):
        return self.resolved().get(key, default)

    def __reduce__(self):  # a copy for another process is the table it resolves to
        return (_same, (self.resolved(),))

    def __getattr__(self, name: str):  # key_at, ordinal, ids of a CompactTokens
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.resolved(), name)


def _same(value):
    return value


def settled_tokens(vocab) -> Mapping[str, int]:
    """vocab.tokens as the type checks on the table must see it: a pending table's value.
    The vocabulary is not changed: a published index is read from several threads, and
    the pending table keeps what it resolved to."""
    return unwrapped(vocab.tokens)


def unwrapped(tokens: Mapping[str, int]) -> Mapping[str, int]:
    """The table itself of a pending one (core.staged_build), else the table."""
    return tokens.resolved() if isinstance(tokens, PendingTokens) else tokens
