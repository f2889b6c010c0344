"""A read-only token -> id mapping in a few flat arrays instead of a dict of strings.

Once the checks have run, the server looks tokens up one at a time (hovers, edits). A dict
of 150k-260k str keys and int values costs 20-35 MB; this costs about 34 bytes a token:
the tokens' UTF-8 in one blob with their offsets and ids, and one sorted array of their
hashes, each with the token's place in its low 32 bits, searched by one bisect and
confirmed on the bytes (a lookup is about a microsecond).

The array is sorted in steps of a few milliseconds each, never in one call over all the
tokens: a build running in the indexer thread must never hold the interpreter long enough
to stall a hover. The tokens are hashed and sorted in blocks of _BLOCK in source order, each
sorted block is cut into _BUCKETS ranges of hash values, and each range, sorted on its own,
is appended in range order: the ranges concatenated are the whole array sorted. (The
array used to stay in blocks, each searched in turn: 32 bisects a lookup on gemma3, and the
6,400 tokens its tokenizer_config.json names took 0.2 s to check after every edit.)
"""

from __future__ import annotations

import sys
import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, ItemsView, Iterator, Mapping, ValuesView
from functools import partial
from itertools import accumulate, islice
from operator import and_, methodcaller, or_

_ENCODE = methodcaller("encode", "utf-8", "surrogatepass")  # tokens may hold lone surrogates
_BLOCK = 1 << 13
_BUCKET_BITS = 7
_BUCKETS = 1 << _BUCKET_BITS
_PLACE = (1 << 32) - 1  # the low 32 bits of an entry: the token's place (ordinal)
_HASH = ~_PLACE
# 4-byte arrays for ids and offsets where the values fit (they always do in real files)
_HASH_SHIFT = 32 if sys.hash_info.width == 64 else 0


def _key_of_hash(h: int) -> int:
    """A token's entry without its place: 32 bits of its hash, as the high half of a
    non-negative 64-bit int."""
    return ((h >> _HASH_SHIFT) & _PLACE) << 32


# with 64-bit hashes that is their top half masked: a C call, no Python frame per token
_key = partial(and_, _HASH & ((1 << 64) - 1)) if _HASH_SHIFT == 32 else _key_of_hash


def _ints(values) -> array:
    """A 4-byte signed array of the values, an 8-byte one when one of them does not fit."""
    try:
        return array("i", values)
    except OverflowError:
        return array("q", values)


class CompactTokens(Mapping):
    """Keys in the order of the mapping it was built from. The values must be ints that
    fit in 64 bits (the constructor raises OverflowError otherwise)."""

    __slots__ = ("_blob", "_hashes", "_ids", "_offsets")

    def __init__(self, tokens: Mapping[str, int]) -> None:
        parts: list[bytes] = []
        offsets, ids = array("Q", [0]), array("q")  # narrowed below (never a list of ints: peak memory)
        ranges = [array("Q") for _ in range(_BUCKETS)]  # by the top _BUCKET_BITS of the hash
        bounds = [b << (64 - _BUCKET_BITS) for b in range(1, _BUCKETS)]
        keys, values = iter(tokens), iter(tokens.values())
        while block := list(islice(keys, _BLOCK)):
            first = len(ids)
            ids.extend(islice(values, len(block)))
            encoded = list(map(_ENCODE, block))
            offsets.extend(islice(accumulate(map(len, encoded), initial=offsets[-1]), 1, None))
            parts.append(b"".join(encoded))
            # str hashes are cached: nothing is rehashed
            entries = list(map(or_, map(_key, map(hash, block)), range(first, first + len(block))))
            entries.sort()
            cuts = [0, *(bisect_left(entries, b) for b in bounds), len(entries)]
            for r, (lo, hi) in enumerate(zip(cuts, cuts[1:])):
                if hi > lo:
                    ranges[r].extend(entries[lo:hi])
        self._blob = b"".join(parts)
        if len(ids) >= 1 << 32:
            raise OverflowError("more tokens than an entry's 32-bit place holds")
        self._hashes = array("Q")
        for r in range(_BUCKETS):  # each range sorted on its own: a short C call each
            self._hashes.extend(sorted(ranges[r]))
            ranges[r] = None
        self._offsets = array("I", offsets) if offsets[-1] < 1 << 32 else offsets
        self._ids = _ints(ids)

    def _ordinal(self, key: object) -> int:
        if not isinstance(key, str):
            return -1
        k = _key(hash(key))
        hashes = self._hashes
        i = bisect_left(hashes, k)
        want = None
        while i < len(hashes) and hashes[i] & _HASH == k:
            if want is None:
                want = _ENCODE(key)
            o = hashes[i] & _PLACE
            if self._blob[self._offsets[o] : self._offsets[o + 1]] == want:
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

    def max_id(self) -> int | None:
        """The highest value (one C pass over the ids array, no copy)."""
        return max(self._ids, default=None)

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


class KnownTokens:
    """What a token table answers about a few tokens and ids, sent ahead of the table itself
    (core.index.staged): the config files beside a tokenizer name a few dozen tokens and ids
    (thousands: gemma3), and their checks, which a user waits for after opening the file,
    need only those. Answers are the table's own: `ids[token]` is `table.get(token)`,
    `tokens[id]` the first token in the table's order with that id (None: no entry),
    `max_id` the highest id (None: not known)."""

    __slots__ = ("ids", "max_id", "tokens")

    def __init__(self, ids: dict[str, int | None], tokens: dict[int, str | None], max_id: int | None) -> None:
        self.ids, self.tokens, self.max_id = ids, tokens, max_id

    def __reduce__(self):  # slots only: pickled for the trip from the build's child
        return (KnownTokens, (self.ids, self.tokens, self.max_id))


class PendingTokens(Mapping):
    """A vocabulary's token table that another stage of a build delivers (core.index.staged):
    `later()` gives it the first time it is used, from whichever thread asks first. Until
    then, what `known()` answers (KnownTokens, sent ahead of it) is answered without it."""

    __slots__ = ("_known", "_later", "_lock", "_value")

    def __init__(
        self, later: Callable[[], Mapping[str, int]], known: Callable[[], KnownTokens | None] | None = None
    ) -> None:
        self._later, self._value, self._lock = later, None, threading.Lock()
        self._known = known

    def known_ahead(self) -> KnownTokens | None:
        """The answers sent ahead of the table, while it is still to come (else None)."""
        known = self._known
        return known() if known is not None and self._later is not None else None

    def resolved(self) -> Mapping[str, int]:
        if self._later is None:  # resolved: no lock (_value is set before _later is cleared)
            return self._value
        with self._lock:
            if self._later is not None:
                self._value, self._later = self._later(), None
        return self._value

    def _known_id(self, key) -> tuple[bool, int | None]:
        known = self.known_ahead() if isinstance(key, str) else None
        if known is not None and key in known.ids:
            return True, known.ids[key]
        return False, None

    def __getitem__(self, key: str) -> int:
        ok, tid = self._known_id(key)
        if ok:
            if tid is None:
                raise KeyError(key)
            return tid
        return self.resolved()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.resolved())

    def __len__(self) -> int:
        return len(self.resolved())

    def __contains__(self, key: object) -> bool:
        ok, tid = self._known_id(key)
        return tid is not None if ok else key in self.resolved()

    def get(self, key, default=None):
        ok, tid = self._known_id(key)
        if ok:
            return default if tid is None else tid
        return self.resolved().get(key, default)

    def __reduce__(self):  # a copy for another process is the table it resolves to
        return (_same, (self.resolved(),))

    def __getattr__(self, name: str):  # key_at, ordinal, ids of a CompactTokens
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.resolved(), name)


def known_of(tokens: Mapping[str, int]) -> KnownTokens | None:
    """The answers a table still pending gives ahead of it (None: a table at hand, or none)."""
    return tokens.known_ahead() if isinstance(tokens, PendingTokens) else None


def _same(value):
    return value


def settled_tokens(vocab) -> Mapping[str, int]:
    """vocab.tokens as the type checks on the table must see it: a pending table's value.
    The vocabulary is not changed: a published index is read from several threads, and
    the pending table keeps what it resolved to."""
    return unwrapped(vocab.tokens)


def unwrapped(tokens: Mapping[str, int]) -> Mapping[str, int]:
    """The table itself of a pending one (core.index.staged), else the table."""
    return tokens.resolved() if isinstance(tokens, PendingTokens) else tokens
