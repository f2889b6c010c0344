"""Lookups for hovers and hints over a tokenizer.json or vocab.json: literal tables,
merges read back from their literals, and packed merge hashes for the typing fast path."""

from __future__ import annotations

from array import array
from itertools import repeat
from operator import and_

import orjson

from ... import seams
from ...compact_vocab import CompactTokens, settled_tokens
from ...model import TokenRef, Vocabulary, split_merge, split_well_formed
from .literal_table import LiteralTable
from .merge_layout import MergeLayout, detect_layout
from .resolve import _string_merge_part

_WINDOW = 1 << 15  # items per C-level pass where other threads must get the interpreter
MIN_SCAN_BYTES = 1 << 20  # smaller merges are hashed in-process (a fork costs more)
# merge hashes keep 32 bits (half the memory): a match is confirmed on the strings anyway
MERGE_HASH = "I"
_LOW32 = 0xFFFFFFFF


def merge_hash(token: str) -> int:
    return hash(token) & _LOW32


class JsonLookups:
    """Lookup tables of a JsonDocument (mixed into it); built once, off the event loop."""

    def build_tables(self) -> None:
        """Literal tables for the vocab and merges regions, and hashes of every merge for
        the typing fast path (one C-level pass each; call off the event loop). The parsed
        merges are dropped afterwards: 500k small lists cost over 100 MB, and a merge is
        read back from its literal when a hover or an edit needs it."""
        if self._tables is not None:
            return
        self._compact_vocab()  # first: the dict's memory is free for what follows
        tables: dict = {}
        # merges still in the text: a forked child parses and hashes them while this
        # process builds the literal tables (which only read the text)
        span = self.merges_span
        child = seams.in_child(self._scan_merges) if span is not None and span[1] - span[0] >= MIN_SCAN_BYTES else None
        if self.vocab_start is not None:
            t = LiteralTable(self.data, self.vocab_start, self.source_key_count)
            if self._first_matches(t, next(iter(self.vocab.tokens), None)):
                tables["vocab"] = t
        if self.merges_start is not None:
            ahead = LiteralTable(self.data, self.merges_start, 1 << 62, span[1]) if child else None
            count, shape_ok, first, hashes = child.result() if child else self._scan_merges()
            n = (2 * count if shape_ok else 0) if self.vocab.merges_as_pairs else count
            if n:
                t = ahead if ahead is not None and len(ahead) == n else LiteralTable(self.data, self.merges_start, n)
                if self._first_matches(t, first) and len(t) == n:
                    tables["merges"] = t
                    self.merge_count = count
                    self.merge_hashes = hashes
                    self._merges_text = self._merges_array_span(t)
        tables["added"] = self._added_content_spans()
        self.vocab.merges = None
        self.merges_span = None
        self._tables = tables

    _merges_text: tuple[int, int] | None = None  # the merges array, for navigation

    def _merges_array_span(self, table: LiteralTable) -> tuple[int, int] | None:
        """[start, end) of the merges array, from its last literal (valid JSON: it parsed)."""
        close = self.data.find(b"]", table.span(len(table) - 1)[1])
        if close >= 0 and self.vocab.merges_as_pairs:
            close = self.data.find(b"]", close + 1)
        return (self.merges_start, close + 1) if close >= 0 else None

    def merge_span(self, rank: int, part: int | None = None) -> tuple[int, int] | None:
        """Source range of a merge (part None) or of one of its parts."""
        table = (self._tables or {}).get("merges")
        if table is None or not 0 <= rank < self.merge_count:
            return None
        if self.vocab.merges_as_pairs:
            if part is None:
                return table.span(2 * rank)[0], table.span(2 * rank + 1)[1]
            return table.span(2 * rank + part)
        span = table.span(rank)
        return span if part is None else _string_merge_part(self.data, span, part)

    def merge_part_spans(self, uses: list[tuple[int, int]]) -> list[tuple[int, int] | None]:
        """merge_span(rank, part) of many uses at once (`▁` is a part of 40k merges)."""
        table = (self._tables or {}).get("merges")
        if type(table) is not LiteralTable or not self.vocab.merges_as_pairs:
            return [self.merge_span(rank, part) for rank, part in uses]
        starts, ends, count = table.starts, table.ends, self.merge_count
        return [(starts[2 * r + p], ends[2 * r + p]) if 0 <= r < count else None for r, p in uses]

    def merge_literal_offsets(self) -> tuple[array, array] | None:
        """(starts, ends) of every merge literal (2 per merge for pairs), when they are the
        parse's own (an edit since wraps them in a ShiftedTable: None)."""
        table = (self._tables or {}).get("merges")
        return (table.starts, table.ends) if type(table) is LiteralTable and self.merge_count else None

    def merge_layout(self) -> MergeLayout | None:
        """The merges' layout when it is a regular one (core.formats.json.merge_layout); costly on large
        files: with the navigation lookups, off the event loop."""
        offsets = self.merge_literal_offsets()
        return detect_layout(self.data, *offsets, self.vocab.merges_as_pairs) if offsets is not None else None

    def vocab_span(self, ordinal: int) -> tuple[int, int] | None:
        """Source range of the key literal of the vocabulary's ordinal-th token."""
        table = (self._tables or {}).get("vocab")
        if table is None or len(table) != len(self.vocab.tokens) or not 0 <= ordinal < len(table):
            return None  # duplicate keys: literal k is not key k
        return table.span(ordinal)

    def merge_columns(self) -> tuple[array, array, array]:
        """Every merge's first part, second part and result as vocabulary ordinals (-1: not
        in the vocabulary), read back from the text a piece at a time (costly on large
        files: run it in a forked child, see core.seams)."""
        columns = (array("i"), array("i"), array("i"))
        if self._merges_text is None:
            return columns
        tokens = self.vocab.tokens
        ordinal = dict(zip(tokens, range(len(tokens))))
        pairs, v = self.vocab.merges_as_pairs, self.vocab
        for _, merges in self._merge_pieces(self._merges_text, array=self._merges_text):
            merges = merges or []
            split = split_well_formed(merges, pairs)
            if split is None:
                found = [split_merge(m, pairs) or ("\0", "\0") for m in merges]
                firsts, seconds = [a for a, _ in found], [b for _, b in found]
            else:
                firsts, seconds = split[0][0::2], split[0][1::2]
            results = list(map(v.merge_result, firsts, seconds))
            for column, values in zip(columns, (firsts, seconds, results)):
                column.extend(map(ordinal.get, values, repeat(-1)))
        return columns

    def _compact_vocab(self) -> None:
        """Swap the vocab dict for flat arrays: after the checks only single lookups remain
        (the dict is most of an index's memory)."""
        tokens = settled_tokens(self.vocab)  # built beside (core.index.staged): compact already
        if type(tokens) is not dict:
            return
        try:
            self.vocab.tokens = CompactTokens(tokens)
        except (OverflowError, TypeError):  # ids that are not 64-bit ints: keep the dict
            return
        _free_in_batches(tokens)

    merge_count = 0  # merges readable through the merges table
    # merge_hash() of each merge's first part, second part and result, packed in
    # MERGE_HASH format (None when some merge is not two strings)
    merge_hashes: tuple[bytes, bytes, bytes] | None = None

    def _scan_merges(self) -> tuple[int, bool, object, tuple[bytes, bytes, bytes] | None]:
        """(count, all pairs of two, first literal's value, hashes) over the merges,
        parsed a chunk at a time unless they already are."""
        v = self.vocab
        pairs = v.merges_as_pairs
        columns = [array(MERGE_HASH), array(MERGE_HASH), array(MERGE_HASH)]
        count, shape_ok, well_formed, first = 0, True, True, None
        for merges in self._merge_chunks():
            if merges is None:  # unparsable (the findings said so already)
                return 0, False, None, None
            if not merges:
                continue
            if first is None:
                first = merges[0][0] if pairs and isinstance(merges[0], list) and merges[0] else merges[0]
            count += len(merges)
            if pairs:
                shape_ok = shape_ok and set(map(type, merges)) == {list} and set(map(len, merges)) == {2}
            if well_formed and shape_ok:
                well_formed = _hash_merges(v, merges, columns)
        hashes = None
        if well_formed and shape_ok:
            packed = []
            while columns:  # one column's copy at a time
                packed.append(columns.pop(0).tobytes())
            hashes = tuple(packed)
        return count, shape_ok, first, hashes

    def _merge_chunks(self):
        if self.vocab.merges is not None or self.merges_span is None:
            merges = self.vocab.merges or []
            for lo in range(0, len(merges), _WINDOW // 4):  # short C calls, as for pieces
                yield merges[lo : lo + _WINDOW // 4]
            return
        for _, merges in self._merge_pieces(self.merges_span):
            yield merges

    def merge_at(self, rank: int) -> tuple[str, str] | None:
        """The two parts of the merge of this rank, read from its literal(s)."""
        if self.vocab.merges is not None:
            return (
                split_merge(self.vocab.merges[rank], self.vocab.merges_as_pairs)
                if 0 <= rank < len(self.vocab.merges)
                else None
            )
        table = (self._tables or {}).get("merges")
        if table is None or not 0 <= rank < self.merge_count:
            return None
        try:
            if self.vocab.merges_as_pairs:
                (s1, e1), (s2, e2) = table.span(2 * rank), table.span(2 * rank + 1)
                return split_merge([orjson.loads(self.data[s1:e1]), orjson.loads(self.data[s2:e2])], True)
            s, e = table.span(rank)
            return split_merge(orjson.loads(self.data[s:e]), False)
        except orjson.JSONDecodeError:
            return None

    def _first_matches(self, table: LiteralTable, token) -> bool:
        if not len(table) or token is None:
            return False
        try:
            s, e = table.span(0)
            return orjson.loads(self.data[s:e]) == token
        except orjson.JSONDecodeError:
            return False

    @property
    def tables_ready(self) -> bool:
        return self._tables is not None

    def token_at(self, offset: int) -> TokenRef | None:
        if self._tables is None:
            return None
        for role, table in self._tables.items():
            if role == "added":
                for k, (s, e) in enumerate(table):
                    if s <= offset < e:
                        return self._ref(role, k, s, e)
                continue
            k = table.at_offset(offset)
            if k is not None:
                return self._ref(role, k, *table.span(k))
        return None

    def tokens_in(self, start: int, end: int, limit: int | None = None) -> list[TokenRef]:
        """The literals wholly inside [start, end), in file order (the first `limit`)."""
        if self._tables is None:
            return []
        out: list[TokenRef] = []
        for role, table in self._tables.items():
            if role == "added":
                out.extend(self._ref(role, k, s, e) for k, (s, e) in enumerate(table) if start <= s < e <= end)
                continue
            for k in table.within(start, end)[:limit]:
                out.append(self._ref(role, k, *table.span(k)))
        out.sort(key=lambda r: r.start)
        return out[:limit]

    def _ref(self, role: str, k: int, s: int, e: int) -> TokenRef:
        token = orjson.loads(self.data[s:e])
        if role == "merges":
            if self.vocab.merges_as_pairs:
                rank, part = divmod(k, 2)
                return TokenRef(s, e, "merge", token, rank, part)
            return TokenRef(s, e, "merge", token, k, None)
        return TokenRef(s, e, "vocab" if role == "vocab" else "added", token)


def _hash_merges(v: Vocabulary, merges: list, columns: list[array]) -> bool:
    """Append hashes of firsts, seconds and results; False if some merge is malformed."""
    split = split_well_formed(merges, v.merges_as_pairs)
    if split is None:
        return False
    parts, results = split
    firsts, seconds = parts[0::2], parts[1::2]
    if v.subword_prefix:
        results = list(map(v.merge_result, firsts, seconds))
    for column, values in zip(columns, (firsts, seconds, results)):
        column.extend(map(and_, map(hash, values), repeat(_LOW32)))
    return True


def _free_in_batches(d: dict) -> None:
    """Empty a large dict a few thousand keys at a time: freeing 260k strings in one go
    holds the interpreter for 20 ms (hovers wait), in batches the event loop gets it
    back between them."""
    keys = list(d)
    d.clear()  # the values (ints, in one C call of a few ms) and the table
    while keys:
        del keys[-_WINDOW // 4 :]
