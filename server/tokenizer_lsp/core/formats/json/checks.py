"""The findings of a tokenizer.json or vocab.json: vocabulary, ids, added tokens and
merges, checked on two cores for large files (see core.seams.in_child)."""

from __future__ import annotations

from functools import cached_property

import orjson

from ... import checks, seams
from ...checks import PendingFinding
from ...checks.pipeline import Scope, located, vocabulary_checks
from ...decoding.tokens import Scheme
from ...model import Finding
from ...seams import MIN_PARALLEL_WORK
from .layout import array_element_spans, count_in_windows, element_boundary, key_count_estimate, object_key_spans
from .schema import schema_findings


class JsonChecks:
    """Findings of a JsonDocument (mixed into it)."""

    def pending_findings(self, fragments: bool = True) -> list[PendingFinding]:
        if self._tables is not None and self.merge_count:
            raise RuntimeError("findings must come before build_tables, which drops the merges")
        if self.merges_span is not None:
            return self._pending_deferred(fragments)
        v = self.vocab
        # on large files a forked child checks the vocabulary and the first merges while
        # this process checks the other merges (see _pending_deferred)
        n = len(v.merges or ())
        split = max(0, self._child_merges(n, merge_cost=1.0))
        child = seams.in_child(self._child_parsed, split, fragments) if n + len(v.tokens) >= MIN_PARALLEL_WORK else None
        mine = checks.merge_findings(v, split) if child and split < n else []
        out, key_count, first = child.result() if child else self._child_parsed(n, fragments)
        self.__dict__["source_key_count"] = key_count  # counted in the child
        return out + first + mine

    def _pending_deferred(self, fragments: bool) -> list[PendingFinding]:
        """The merges are still text. A forked child checks the vocabulary and the first
        merges while this process parses and checks the other merges. That way round,
        this process only reads the parsed vocabulary while the child lives: writes (even
        reference counts) would fault in copies of the pages they touch, and a thread
        stalled on those faults is a hover that waits."""
        v = self.vocab
        s, e = self.merges_span
        pairs = v.merges_as_pairs
        n = max(1, count_in_windows(self.data, b"[" if pairs else b'",', s + 1, e))  # about the merge count
        take = self._child_merges(n)
        cut = element_boundary(self.data, s + (e - s) * take // n, e, pairs) if 0 < take < n else None
        if take <= 0:
            chunks = [None, (s, e)]
        elif take >= n or cut is None:
            chunks = [(s, e), None]
        else:
            chunks = [(s, cut[0]), (cut[1], e)]
        child = (
            seams.in_child(self._child_deferred, chunks[0], fragments)
            if n + len(v.tokens) >= MIN_PARALLEL_WORK
            else None
        )
        # this process's share, a piece at a time (all at once would hold them all in
        # memory), before the child says at which rank it starts
        flagged, parsed_ok, local = [], True, 0
        for span, merges in self._merge_pieces(chunks[1]) if chunks[1] else ():
            if merges is None:
                parsed_ok = False
                break
            if checks.merge_findings(v, 0, merges=merges):
                flagged.append((span, local))
            local += len(merges)
        out, key_count, first = child.result() if child else self._child_deferred(chunks[0], fragments)
        self.__dict__["source_key_count"] = key_count  # counted in the child
        if first is None or not parsed_ok:
            raise orjson.JSONDecodeError("model.merges is not valid JSON", "", 0)
        done, count = first
        for span, base in flagged:  # rare: messages name ranks, so check again with the right ones
            done += checks.merge_findings(v, count + base, merges=self._parse_merge_chunk(span))
        return out + done

    def _vocab_share(self, fragments: bool) -> tuple[list[PendingFinding], int]:
        """(vocab, added and id findings, source key count)."""
        out = schema_findings(self)
        out += vocabulary_checks(self.vocab, self.added_list, self._duplicate_keys(), Scope(fragments=fragments))
        return out, self.source_key_count

    def _child_deferred(self, chunk: tuple[int, int] | None, fragments: bool):
        """_vocab_share and (findings, count) of the merges in `chunk` (None when they
        do not parse)."""
        return (*self._vocab_share(fragments), self._check_merge_chunk(chunk) if chunk else ([], 0))

    def _child_parsed(self, split: int, fragments: bool):
        """_vocab_share and the findings of the first `split` parsed merges."""
        return (*self._vocab_share(fragments), checks.merge_findings(self.vocab, 0, split) if split else [])

    def _check_merge_chunk(self, chunk: tuple[int, int]) -> tuple[list[PendingFinding], int] | None:
        """Findings and count of the merges in a slice of the merges array that starts at
        rank 0; None if the slice is not an array."""
        merges = self._parse_merge_chunk(chunk)
        if merges is None:
            return None
        return checks.merge_findings(self.vocab, 0, merges=merges), len(merges)

    def _parse_merge_chunk(self, chunk: tuple[int, int], array: tuple[int, int] | None = None) -> list | None:
        """The merges of a slice of the merges array (`array`: its bounds, by default the
        part of the text parse_deferring_merges left out)."""
        s, e = chunk
        array_start, array_end = array or self.merges_span
        view = memoryview(self.data)
        text = b"".join((b"" if s == array_start else b"[", view[s:e], b"" if e == array_end else b"]"))
        try:
            merges = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        return merges if isinstance(merges, list) else None

    def _child_merges(self, n: int, merge_cost: float = 2.0) -> int:
        """How many of about n merges the child takes, beside the vocabulary, so both
        processes finish together; from measured costs (microseconds per item on the
        2-core reference machine; a merge costs twice as much when it is parsed as well
        as checked). 0 or less: none."""
        tokens = len(self.vocab.tokens)
        vocab_cost = (1.05 if self.vocab.scheme is Scheme.BYTE_LEVEL else 0.1) * tokens + 0.5 * tokens
        return min(n, int((merge_cost * n - vocab_cost) / (2 * merge_cost)))

    def findings(self) -> list[Finding]:
        return located(self.pending_findings(), self.resolve)

    def _duplicate_keys(self) -> list[tuple[int, int, str]]:
        if self.unigram and self.vocab_start is not None:
            dups = getattr(self, "unigram_dups", [])
            where = array_element_spans(self.data, self.vocab_start, set(dups))
            return [(*where[i], self.unigram_list[i][0]) for i in dups if i in where]
        if self.vocab_start is None or self.source_key_count <= len(self.vocab.tokens):
            return []
        seen: set[str] = set()
        dups = []
        for s, e in self._exact_key_spans or []:
            tok = orjson.loads(self.data[s:e])
            if tok in seen:
                dups.append((s, e, tok))
            seen.add(tok)
        return dups

    _exact_key_spans: list[tuple[int, int]] | None = None

    @cached_property
    def source_key_count(self) -> int:
        """Entries of the vocab as written, duplicates included."""
        if self.vocab_start is None:
            return 0
        if self.unigram:
            return len(self.unigram_list)
        end = len(self.data)
        if (self.merges_start or 0) > self.vocab_start:
            end = self.data.rfind(b'"merges"', self.vocab_start, self.merges_start)
        n = key_count_estimate(self.data, self.vocab_start, end)
        if n <= len(self.vocab.tokens):
            return len(self.vocab.tokens)
        self._exact_key_spans = object_key_spans(self.data, self.vocab_start)
        return len(self._exact_key_spans)

    def _merge_pieces(self, span: tuple[int, int], size: int = 1 << 16, array: tuple[int, int] | None = None):
        """(piece's span, its merges) over a slice of the merges array, parsed `size`
        bytes at a time (one orjson call on 10 MB holds the interpreter for 80 ms);
        the merges are None for a piece that does not parse, and the last."""
        s, e = span
        while s < e:
            cut = element_boundary(self.data, s + size, e, self.vocab.merges_as_pairs) if s + size < e else None
            piece = (s, cut[0]) if cut else (s, e)
            merges = self._parse_merge_chunk(piece, array)
            yield piece, merges
            if merges is None or cut is None:
                return
            s = cut[1]
