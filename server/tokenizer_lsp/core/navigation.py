"""Navigation lookups of one index: which merges use a token, which merge makes it, and
tokens found by decoded text or stored form.

Built once per index version, after its hover lookups, off the event loop; then never
changed. Compact, since they stay in the server beside the index and an edit's new text
comes on top (peak memory is a target): every merge is three 3-byte vocabulary ordinals
(4.5 MB for gemma3's 515k merges), searched with bytes.find; per-token arrays of the
lowest producing rank and the number of merges using it (2 bytes when that fits); the
decoded and stored forms of every token in blobs grouped by decoded length, so a search
stops once the shortest matches are found, and by character width, so that one CJK or
emoji token does not widen a whole group's blob to 2 or 4 bytes a character. Decoded
texts of one length need no offsets: entry k starts at k * (length + 1).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from itertools import groupby

from . import hooks
from .decoding.display import visible_text
from .decoding.tokens import decode_token
from .hooks import MIN_PARALLEL_WORK

_SEP = "\x00"  # between tokens in a search blob (no real token holds a NUL)
MAX_SYMBOLS = 200


_WIDTH = 3  # bytes per ordinal in the merge columns (vocabularies stay below 16M tokens)
_NONE = (1 << 8 * _WIDTH) - 1  # a part that is not in the vocabulary (-1)


def _pack(column: array) -> bytes:
    """32-bit ordinals (-1: none) as _WIDTH-byte little-endian ones."""
    if column and max(column) >= _NONE:
        raise ValueError("more tokens than the merge columns can name")
    if sys.byteorder == "big":
        column = array(column.typecode, column)
        column.byteswap()
    raw, out = column.tobytes(), bytearray(_WIDTH * len(column))
    for b in range(_WIDTH):  # the low bytes of each int; -1 keeps ff ff ff (_NONE)
        out[b::_WIDTH] = raw[b::4]
    return bytes(out)


def _ordinal_at(packed: bytes, k: int) -> int:
    v = int.from_bytes(packed[_WIDTH * k:_WIDTH * k + _WIDTH], "little")
    return -1 if v == _NONE else v


def _positions(packed: bytes, value: int) -> list[int]:
    """Indices of the ordinals equal to value (>= 0) in a packed column."""
    needle, out = value.to_bytes(_WIDTH, "little"), []
    i = packed.find(needle)
    while i >= 0:
        if i % _WIDTH == 0:
            out.append(i // _WIDTH)
            i = packed.find(needle, i + _WIDTH)
        else:
            i = packed.find(needle, i + 1)
    return out


@dataclass(frozen=True)
class Bucket:
    """Tokens whose decoded text has one length and whose two forms each take one
    character width: their ordinals (ascending, packed), the decoded texts joined (fixed
    width) and the stored forms joined (with their offsets; as UTF-8 when that is
    smaller: byte-level forms are mostly ASCII with a few 2-byte characters)."""

    length: int
    ordinals: bytes
    decoded: str
    stored: str | bytes
    stored_starts: array


class Navigation:
    def __init__(self, token_count: int, columns: tuple[array, array, array] | None,
                 decoded: list[str], stored: list[str]) -> None:
        firsts, seconds, results = columns or (array("i"), array("i"), array("i"))
        self.merge_count = len(results)
        producer, self._uses = _producer_and_uses(token_count, firsts, seconds, results)
        self._token_count, self._producer = token_count, _pack(producer)  # ranks fit as ordinals do
        self._firsts, self._seconds, self._results = _pack(firsts), _pack(seconds), _pack(results)
        self._buckets = _buckets(decoded, stored)  # by length, then width

    # ---- merges ------------------------------------------------------------------------

    def parts(self, rank: int) -> tuple[int, int, int]:
        """(first, second, result) ordinals of a merge."""
        return (_ordinal_at(self._firsts, rank), _ordinal_at(self._seconds, rank),
                _ordinal_at(self._results, rank))

    def producer(self, ordinal: int) -> int | None:
        """The lowest rank of a merge whose result is this token."""
        r = _ordinal_at(self._producer, ordinal) if 0 <= ordinal < self._token_count else -1
        return r if r >= 0 else None

    def producers(self, ordinal: int) -> list[int]:
        """Every merge whose result is this token (several in files converted from tiktoken)."""
        return _positions(self._results, ordinal) if ordinal >= 0 else []

    def uses(self, ordinal: int) -> int:
        """How many distinct merges have this token as a part."""
        return self._uses[ordinal] if 0 <= ordinal < len(self._uses) else 0

    def using(self, ordinal: int) -> list[tuple[int, int]]:
        """(rank, part) of every use of this token as a merge part, by rank then part."""
        if ordinal < 0:
            return []
        found = [(r, 0) for r in _positions(self._firsts, ordinal)]
        found += [(r, 1) for r in _positions(self._seconds, ordinal)]
        found.sort()
        return found

    # ---- search ------------------------------------------------------------------------

    def search(self, query: str, limit: int = MAX_SYMBOLS, stored_exact: int | None = None) -> list[int]:
        """Ordinals of tokens whose decoded text or stored form contains query: exact
        matches first (stored_exact: the token stored as exactly the query, if any), then
        shorter tokens, at most `limit`."""
        if not query or _SEP in query:
            return []
        exact = [stored_exact] if stored_exact is not None else []
        rest: list[int] = []
        encoded = query.encode("utf-8", "surrogatepass")  # for stored forms kept as UTF-8
        for length, buckets in groupby(self._buckets, key=lambda b: b.length):
            found: list[tuple[int, bool]] = []  # (ordinal, decoded exactly as the query)
            for bucket in buckets:
                w = length + 1
                stored = encoded if isinstance(bucket.stored, bytes) else query
                for k in _fixed_hits(bucket.decoded, w, query) | _hits(bucket.stored, bucket.stored_starts, stored):
                    o = _ordinal_at(bucket.ordinals, k)
                    if o != stored_exact:
                        found.append((o, length == len(query) and bucket.decoded[k * w:k * w + length] == query))
            found.sort()  # vocabulary order within a length, as one bucket of them had
            for o, is_exact in found:
                (exact if is_exact else rest).append(o)
            if len(exact) + len(rest) >= limit and length >= len(query):
                break  # every decoded exact match has been seen (its bucket is len(query))
        return (exact + rest)[:limit]


def _producer_and_uses(token_count: int, firsts: array, seconds: array, results: array) -> tuple[array, array]:
    producer = array("i", [-1]) * token_count
    for rank in range(len(results) - 1, -1, -1):  # the lowest rank wins
        o = results[rank]
        if o >= 0:
            producer[o] = rank
    uses = array("i", [0]) * token_count
    for a, b in zip(firsts, seconds):
        if a >= 0:
            uses[a] += 1
        if b >= 0 and b != a:  # a merge of a token with itself uses it once
            uses[b] += 1
    if max(uses, default=0) < 1 << 16:
        uses = array("H", uses)  # half the size; even gemma3's most used token is in 40k merges
    return producer, uses


def _fixed_hits(blob: str, width: int, query: str) -> set[int]:
    """Entries of a blob of fixed-width entries (separator included) holding query."""
    out: set[int] = set()
    i = blob.find(query)
    while i >= 0:
        k, at = divmod(i, width)
        if at + len(query) < width:  # not across the separator
            out.add(k)
            i = blob.find(query, (k + 1) * width)  # the next token
        else:
            i = blob.find(query, i + 1)
    return out


def _hits(blob: str | bytes, starts: array, query: str | bytes) -> set[int]:
    out: set[int] = set()
    i = blob.find(query)
    while i >= 0:
        k = bisect_right(starts, i) - 1
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(blob)
        if i + len(query) <= end:  # not across a separator
            out.add(k)
            i = blob.find(query, end)  # the next token
        else:
            i = blob.find(query, i + 1)
    return out


def _width(text: str) -> int:
    """Bytes a character in CPython's storage of text (1, 2 or 4)."""
    top = ord(max(text)) if text else 0
    return 1 if top < 0x100 else 2 if top < 0x10000 else 4


def _buckets(decoded: list[str], stored: list[str]) -> list[Bucket]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for o, (d, s) in enumerate(zip(decoded, stored)):
        groups.setdefault((len(d), _width(d), _width(s)), []).append(o)
    out = []
    for (length, _, _), ordinals in sorted(groups.items()):
        joined, starts = _joined([stored[o] for o in ordinals])
        out.append(Bucket(length, _pack(array("i", ordinals)), _SEP.join(decoded[o] for o in ordinals), joined, starts))
    return out


def _joined(parts: list[str]) -> tuple[str | bytes, array]:
    """parts joined by _SEP, and where each starts: as UTF-8 when that takes less memory."""
    text = _SEP.join(parts)
    encoded = [p.encode("utf-8", "surrogatepass") for p in parts]
    if sum(map(len, encoded)) + len(parts) < len(text) * _width(text):
        return _SEP.encode().join(encoded), _starts(encoded)
    return text, _starts(parts)


def _starts(parts: list[str] | list[bytes]) -> array:
    out, pos = array("i"), 0
    for p in parts:
        out.append(pos)
        pos += len(p) + 1
    return out


def build_navigation(idx) -> Navigation | None:
    """The navigation lookups of an index whose hover lookups are ready (None: nothing to
    navigate). Call off the event loop. On large files everything is computed beside it
    (core.hooks.beside) and only the compact result comes back: the lists of strings
    it is built from would otherwise raise the server's peak memory."""
    doc, v = idx.doc, idx.vocab
    if doc is None or v is None or not idx.lookups_ready:
        return None
    work = len(v.tokens) + getattr(doc, "merge_count", 0)
    run = hooks.beside if work >= MIN_PARALLEL_WORK else hooks.InProcess
    return run(_build, doc, v).result()


def _build(doc, v) -> Navigation:
    tokens = list(v.tokens)
    columns = doc.merge_columns() if hasattr(doc, "merge_columns") else None
    special, scheme, prefix, suffix = v.special, v.scheme, v.subword_prefix, v.word_suffix
    decoded = []
    for t in tokens:
        d = decode_token(t, scheme, t in special, prefix, suffix)
        decoded.append(visible_text(d.data) if d.text is None else d.text)
    return Navigation(len(tokens), columns, decoded, tokens)
