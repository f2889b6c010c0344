"""Navigation lookups of one index: which merges use a token, which merge makes it, and
tokens found by decoded text or stored form.

Built once per index version, after its hover lookups, off the event loop; then never
changed. Compact: every merge is three 32-bit vocabulary ordinals (6 MB for gemma3's
515k merges), searched with bytes.find; per-token arrays of the lowest producing rank
and the number of merges using it; the decoded and stored forms of every token in
blobs grouped by decoded length, so a search stops once the shortest matches are found.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import dataclass
from struct import pack

from . import hooks
from .decoding.display import visible_text
from .decoding.tokens import decode_token
from .hooks import MIN_PARALLEL_WORK

_SEP = "\x00"  # between tokens in a search blob (no real token holds a NUL)
MAX_SYMBOLS = 200


def _positions(packed: bytes, value: int) -> list[int]:
    """Indices of the 4-byte ints equal to value in a packed array."""
    needle, out = pack("i", value), []
    i = packed.find(needle)
    while i >= 0:
        if i % 4 == 0:
            out.append(i // 4)
            i = packed.find(needle, i + 4)
        else:
            i = packed.find(needle, i + 1)
    return out


@dataclass(frozen=True)
class Bucket:
    """Tokens whose decoded text has one length: their ordinals, and both forms joined."""

    ordinals: array
    decoded: str
    stored: str
    decoded_starts: array
    stored_starts: array


class Navigation:
    def __init__(self, token_count: int, columns: tuple[array, array, array] | None,
                 decoded: list[str], stored: list[str]) -> None:
        firsts, seconds, results = columns or (array("i"), array("i"), array("i"))
        self.merge_count = len(results)
        self._firsts, self._seconds, self._results = firsts.tobytes(), seconds.tobytes(), results.tobytes()
        self._producer, self._uses = _producer_and_uses(token_count, firsts, seconds, results)
        self._buckets = _buckets(decoded, stored)

    # ---- merges ------------------------------------------------------------------------

    def parts(self, rank: int) -> tuple[int, int, int]:
        """(first, second, result) ordinals of a merge."""
        at = slice(4 * rank, 4 * rank + 4)
        return (int.from_bytes(self._firsts[at], "little", signed=True),
                int.from_bytes(self._seconds[at], "little", signed=True),
                int.from_bytes(self._results[at], "little", signed=True))

    def producer(self, ordinal: int) -> int | None:
        """The lowest rank of a merge whose result is this token."""
        r = self._producer[ordinal] if 0 <= ordinal < len(self._producer) else -1
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
        for length in sorted(self._buckets):
            bucket = self._buckets[length]
            hits = _hits(bucket.decoded, bucket.decoded_starts, query) | _hits(bucket.stored, bucket.stored_starts, query)
            for k in sorted(hits):
                o = bucket.ordinals[k]
                if o == stored_exact:
                    continue
                if length == len(query) and _form(bucket.decoded, bucket.decoded_starts, k) == query:
                    exact.append(o)
                else:
                    rest.append(o)
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
    return producer, uses


def _hits(blob: str, starts: array, query: str) -> set[int]:
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


def _form(blob: str, starts: array, k: int) -> str:
    end = starts[k + 1] - 1 if k + 1 < len(starts) else len(blob)
    return blob[starts[k]:end]


def _buckets(decoded: list[str], stored: list[str]) -> dict[int, Bucket]:
    groups: dict[int, list[int]] = {}
    for o, text in enumerate(decoded):
        groups.setdefault(len(text), []).append(o)
    out = {}
    for length, ordinals in groups.items():
        d = [decoded[o] for o in ordinals]
        s = [stored[o] for o in ordinals]
        out[length] = Bucket(array("i", ordinals), _SEP.join(d), _SEP.join(s), _starts(d), _starts(s))
    return out


def _starts(parts: list[str]) -> array:
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
