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

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from itertools import accumulate, islice, repeat
from operator import and_, methodcaller, or_

_ENCODE = methodcaller("encode", "utf-8", "surrogatepass")  # tokens may hold lone surrogates
_BITS = 13
_BLOCK = 1 << _BITS
_LOW = _BLOCK - 1
_HIGH = ~_LOW


class CompactTokens(Mapping):
    """Keys in the order of the mapping it was built from. The values must be ints that
    fit in 64 bits (the constructor raises OverflowError otherwise)."""

    __slots__ = ("_blob", "_offsets", "_ids", "_blocks")

    def __init__(self, tokens: Mapping[str, int]) -> None:
        parts: list[bytes] = []
        self._offsets = array("Q", [0])
        self._ids = array("q")
        self._blocks: list[array] = []
        keys, values = iter(tokens), iter(tokens.values())
        while block := list(islice(keys, _BLOCK)):
            self._ids.extend(islice(values, len(block)))
            encoded = list(map(_ENCODE, block))
            self._offsets.extend(islice(accumulate(map(len, encoded), initial=self._offsets[-1]), 1, None))
            parts.append(b"".join(encoded))
            # str hashes are cached: nothing is rehashed
            tagged = list(map(or_, map(and_, map(hash, block), repeat(_HIGH)), range(len(block))))
            tagged.sort()
            self._blocks.append(array("q", tagged))
        self._blob = b"".join(parts)

    def _ordinal(self, key: object) -> int:
        if not isinstance(key, str):
            return -1
        h = hash(key) & _HIGH
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

    def ordinal(self, key: str) -> int | None:
        o = self._ordinal(key)
        return None if o < 0 else o

    def __iter__(self) -> Iterator[str]:
        blob, off = self._blob, self._offsets
        for o in range(len(self._ids)):
            yield blob[off[o] : off[o + 1]].decode("utf-8", "surrogatepass")
