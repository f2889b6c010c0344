"""Navigation lookups of one index: which merges use a token, which merge makes it, and
tokens found by decoded text or stored form.

Built once per index version, after its hover lookups, off the event loop; then never
changed. Compact, since they stay in the server beside the index and an edit's new text
comes on top (peak memory is a target): the merges using each token, an inverted index of
3-byte keys `4 * rank + part` grouped by token (CSR: keys and per-token offsets, 3.9 MB
for gemma3's 515k merges), so the 40k uses of `▁` are one slice (the key is also a
part's line in pretty-printed pairs, less the first's: core.formats.json.merge_layout); the lowest
producing rank of each token, and the other producers only where there are any (files
converted from SentencePiece or tiktoken list every split); a merge's parts are found
back from those (only tests ask). The
decoded and stored forms of every token in blobs grouped by decoded length, so a search
stops once the shortest matches are found, and by character width, so that one CJK or
emoji token does not widen a whole group's blob to 2 or 4 bytes a character. Decoded
texts of one length need no offsets: entry k starts at k * (length + 1).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate, compress, count, groupby, repeat
from operator import eq, ne

from .. import seams
from ..decoding.display import visible_text
from ..decoding.tokens import decode_token
from ..formats.json.merge_layout import MergeLayout
from ..seams import MIN_PARALLEL_WORK

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
    v = int.from_bytes(packed[_WIDTH * k : _WIDTH * k + _WIDTH], "little")
    return -1 if v == _NONE else v


def _pack_wide(values) -> tuple[bytes, int]:
    """Non-negative ints as 3-byte little-endian ones when all fit, else 4-byte: (raw, width)."""
    column = array("I", values)
    if not column or max(column) < 1 << 24:
        return _pack(column), _WIDTH
    if sys.byteorder == "big":
        column.byteswap()
    return column.tobytes(), 4


def _unpack(raw: bytes, width: int) -> array:
    """The ints of a packed slice (C-level copies, no loop per value)."""
    if width == 4:
        out = array("I", raw)
    else:
        wide = bytearray(4 * (len(raw) // width))
        for b in range(width):
            wide[b::4] = raw[b::width]
        out = array("I", bytes(wide))
    if sys.byteorder == "big":
        out.byteswap()
    return out


def _int_at(raw: bytes, width: int, k: int) -> int:
    return int.from_bytes(raw[width * k : width * k + width], "little")


def _find(raw: bytes, width: int, value: int) -> int:
    """Index of the first entry equal to value in a packed column, -1 if none."""
    needle = value.to_bytes(width, "little")
    i = raw.find(needle)
    while i >= 0 and i % width:
        i = raw.find(needle, i + 1)
    return i // width if i >= 0 else -1


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
    def __init__(
        self, token_count: int, columns: tuple[array, array, array] | None, decoded: list[str], stored: list[str]
    ) -> None:
        firsts, seconds, results = columns or (array("i"), array("i"), array("i"))
        self.merge_count = len(results)
        producer = _lowest_producers(token_count, results)
        self._more_producers = _more_producers(producer, results)
        self._token_count, self._producer = token_count, _pack(producer)  # ranks fit as ordinals do
        (self._use_keys, self._key_width), (self._use_starts, self._start_width), self._self_merges = _uses_by_token(
            token_count, firsts, seconds
        )
        self._buckets = _buckets(decoded, stored)  # by length, then width
        # where the merges' literals sit when their layout is regular (core.formats.json.merge_layout):
        # set by build_navigation
        self.merge_layout: MergeLayout | None = None

    # ---- merges ------------------------------------------------------------------------

    def parts(self, rank: int) -> tuple[int, int, int]:
        """(first, second, result) ordinals of a merge (-1: not in the vocabulary), found
        back in the indexes by a search of their bytes."""
        if not 0 <= rank < self.merge_count:
            return -1, -1, -1
        first, second = (
            self._group_of(
                _find(self._use_keys, self._key_width, 4 * rank + p), self._use_starts, self._start_width, None
            )
            for p in (0, 1)
        )
        result = _find(self._producer, _WIDTH, rank)
        if result < 0:  # not a lowest producer: one of the others
            (tokens, tw), (starts, sw), (ranks, rw) = self._more_producers
            result = self._group_of(_find(ranks, rw, rank), starts, sw, (tokens, tw))
        return first, second, result

    def _group_of(self, i: int, starts: bytes, width: int, names: tuple[bytes, int] | None) -> int:
        """The group (the token, or names[group]) holding entry i of a grouped index."""
        if i < 0:
            return -1
        n = len(starts) // width
        k = bisect_right(range(n), i, key=lambda g: _int_at(starts, width, g)) - 1
        return k if names is None else _int_at(names[0], names[1], k)

    def producer(self, ordinal: int) -> int | None:
        """The lowest rank of a merge whose result is this token."""
        r = _ordinal_at(self._producer, ordinal) if 0 <= ordinal < self._token_count else -1
        return r if r >= 0 else None

    def producers(self, ordinal: int) -> list[int]:
        """Every merge whose result is this token (several in files converted from tiktoken)."""
        first = self.producer(ordinal)
        if first is None:
            return []
        (tokens, tw), (starts, sw), (ranks, rw) = self._more_producers
        n = len(tokens) // tw
        k = bisect_left(range(n), ordinal, key=lambda i: _int_at(tokens, tw, i))
        if k == n or _int_at(tokens, tw, k) != ordinal:
            return [first]
        return [first, *_unpack(ranks[rw * _int_at(starts, sw, k) : rw * _int_at(starts, sw, k + 1)], rw)]

    def uses(self, ordinal: int) -> int:
        """How many distinct merges have this token as a part (a merge of a token with
        itself uses it once)."""
        lo, hi = self._use_range(ordinal)
        return hi - lo - self._self_merges.get(ordinal, 0)

    def use_keys(self, ordinal: int) -> array:
        """`4 * rank + part` of every use of this token as a merge part, ascending (by
        rank then part: file order)."""
        lo, hi = self._use_range(ordinal)
        w = self._key_width
        return _unpack(self._use_keys[w * lo : w * hi], w)

    def using(self, ordinal: int) -> list[tuple[int, int]]:
        """(rank, part) of every use of this token as a merge part, by rank then part."""
        return [(k >> 2, k & 3) for k in self.use_keys(ordinal)]

    def _use_range(self, ordinal: int) -> tuple[int, int]:
        if not 0 <= ordinal < self._token_count:
            return 0, 0
        raw, w = self._use_starts, self._start_width
        return _int_at(raw, w, ordinal), _int_at(raw, w, ordinal + 1)

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
                        found.append((o, length == len(query) and bucket.decoded[k * w : k * w + length] == query))
            found.sort()  # vocabulary order within a length, as one bucket of them had
            for o, is_exact in found:
                (exact if is_exact else rest).append(o)
            if len(exact) + len(rest) >= limit and length >= len(query):
                break  # every decoded exact match has been seen (its bucket is len(query))
        return (exact + rest)[:limit]


def _lowest_producers(token_count: int, results: array) -> array:
    producer = array("i", [-1]) * token_count
    for rank in range(len(results) - 1, -1, -1):  # the lowest rank wins
        o = results[rank]
        if o >= 0:
            producer[o] = rank
    return producer


def _more_producers(producer: array, results: array) -> tuple[tuple[bytes, int], ...]:
    """The producing merges after each token's lowest one, only for the tokens that have
    some (none in files HF trained from text; many in ones converted from SentencePiece
    or tiktoken, which list every split: 160k tokens of gemma3): (those tokens ascending,
    where each one's ranks start, the ranks), each packed (raw, width)."""
    if not producer:
        return _pack_wide(()), _pack_wide((0,)), _pack_wide(())
    later = list(compress(range(len(results)), map(ne, map(producer.__getitem__, results), count())))
    if results.count(-1):  # producer[-1] was looked up for a result outside the vocabulary
        later = [r for r in later if results[r] >= 0]
    later.sort(key=results.__getitem__)  # stable: ranks stay ascending within a token
    counts = Counter(map(results.__getitem__, later))
    tokens = sorted(counts)
    starts = accumulate(map(counts.__getitem__, tokens), initial=0)
    return _pack_wide(tokens), _pack_wide(starts), _pack_wide(later)


def _uses_by_token(
    token_count: int, firsts: array, seconds: array
) -> tuple[tuple[bytes, int], tuple[bytes, int], dict[int, int]]:
    """The inverted index of merge parts: ((keys `4 * rank + part` grouped by token, each
    group ascending), (where each token's group starts, token_count + 1 of them)), each
    packed (raw, width); and how many merges of a token with itself each such token has."""
    n = len(firsts)
    parts = array("i", [-1]) * (4 * n)
    parts[0::4], parts[1::4] = firsts, seconds  # at key 4 * rank + part
    keys = array("I", bytes(8 * n))
    keys[0::2], keys[1::2] = array("I", range(0, 4 * n, 4)), array("I", range(1, 4 * n, 4))
    # a stable sort by token keeps each token's keys ascending (C-level: 0.3 s for gemma3's 1M)
    keys = sorted(keys, key=parts.__getitem__)
    missing = firsts.count(-1) + seconds.count(-1)  # parts not in the vocabulary sort first
    del keys[:missing], parts
    counts = Counter(firsts)
    counts.update(seconds)
    starts = accumulate(map(counts.get, range(token_count), repeat(0)), initial=0)
    same = Counter(compress(firsts, map(eq, firsts, seconds)))
    same.pop(-1, None)
    return _pack_wide(keys), _pack_wide(starts), dict(same)


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
    navigate). Call off the event loop. On large files everything is computed in a forked child
    (core.seams.in_child) and only the compact result comes back: the lists of strings
    it is built from would otherwise raise the server's peak memory."""
    return _started(idx).result()


def navigation_job(idx):
    """build_navigation started, holding none of the index: its .result() is the lookups
    or raises seams.DetachedWorkLost (build them again from an index of the same parse). A
    build takes seconds beside a busy server; an index held that long keeps a text the
    edits since have replaced alive beside theirs (qwen3: 11 MB at every keystroke)."""
    job = _started(idx)
    job.detach()
    return job


def _started(idx):
    doc, v = idx.doc, idx.vocab
    if doc is None or v is None or not idx.lookups_ready:
        return seams.InProcess(lambda: None)
    work = len(v.tokens) + getattr(doc, "merge_count", 0)
    run = seams.in_child if work >= MIN_PARALLEL_WORK else seams.InProcess
    return run(_build, doc, v)


def _build(doc, v) -> Navigation:
    tokens = list(v.tokens)
    columns = doc.merge_columns() if hasattr(doc, "merge_columns") else None
    special, scheme, prefix, suffix = v.special, v.scheme, v.subword_prefix, v.word_suffix
    decoded = []
    for t in tokens:
        d = decode_token(t, scheme, t in special, prefix, suffix)
        decoded.append(visible_text(d.data) if d.text is None else d.text)
    nav = Navigation(len(tokens), columns, decoded, tokens)
    # the merges' layout too: checking it reads the whole merges text (0.2 s on gemma3),
    # which in the server's own thread held the interpreter from hovers and hints
    nav.merge_layout = doc.merge_layout() if hasattr(doc, "merge_layout") else None
    return nav
