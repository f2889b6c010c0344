"""From findings' references (the k-th vocab entry, the merge of rank r...) to source
ranges of a tokenizer.json or vocab.json, located in one forward pass per kind."""

from __future__ import annotations

import re

from ...model import Ref
from .layout import STRING, Locator, array_element_spans

_CONTENT_RE = re.compile(rb'(?<!\\)"content"\s*:\s*(' + STRING + rb")")


def _string_merge_part(data: bytes, span: tuple[int, int], part: int) -> tuple[int, int]:
    """The source range of one part of a `"a b"` merge literal (quotes excluded)."""
    s, e = span
    sep = data.find(b" ", s + 1, e)
    if sep < 0:
        return span
    return (s + 1, sep) if part == 0 else (sep + 1, e - 1)


class JsonResolver:
    """Source ranges for a JsonDocument (mixed into it)."""

    def resolve(self, refs: list[Ref]) -> list[tuple[int, int]]:
        """Source ranges of references, located in one forward pass per kind."""
        out: list[tuple[int, int]] = [(0, 0)] * len(refs)
        by_kind: dict[str, list[int]] = {}
        for i, r in enumerate(refs):
            by_kind.setdefault(r.kind, []).append(i)
        fallback = (0, min(1, len(self.data)))
        needs_list = any(refs[i].token is None for i in by_kind.get("vocab", ()))
        tokens = list(self.vocab.tokens) if needs_list else []
        added_spans = self._added_content_spans() if ("added" in by_kind or "added-id" in by_kind) else []
        for kind, idxs in by_kind.items():
            idxs.sort(key=lambda i: refs[i].key)
            if kind == "span":
                for i in idxs:
                    out[i] = (refs[i].key, refs[i].end)
            elif kind == "vocab" and self.vocab_start is not None:
                loc = Locator(self.data, self.vocab_start)
                follow = b"," if self.unigram else b":"
                for i in idxs:
                    tok = refs[i].token if refs[i].token is not None else tokens[refs[i].key]
                    out[i] = loc.find(tok, follow) or fallback
            elif kind == "merge" and self.merges_start is not None:
                loc = Locator(self.data, self.merges_start)
                # as stored ("a b" or [a, b]); parsed from the text only for malformed merges
                merges = self._merges_by_rank({refs[i].key for i in idxs if refs[i].pair is None})
                for i in idxs:
                    if refs[i].pair is not None:
                        a, b = refs[i].pair
                        merges[refs[i].key] = [a, b] if self.vocab.merges_as_pairs else f"{a} {b}"
                found: dict[int, tuple | None] = {}  # rank -> literal span(s), located once
                for i in idxs:
                    rank, part = refs[i].key, refs[i].part
                    m = merges.get(rank)
                    if rank not in found:
                        if isinstance(m, str):
                            found[rank] = loc.find(m, b",]")
                        elif isinstance(m, list) and len(m) == 2 and all(isinstance(p, str) for p in m):
                            found[rank] = loc.find_pair(m[0], m[1])
                        else:
                            found[rank] = None
                    spans = found[rank]
                    span = None
                    if spans is not None and isinstance(m, str):
                        span = _string_merge_part(self.data, spans, part) if part is not None else spans
                    elif spans is not None:
                        span = spans[part] if part is not None else (spans[0][0], spans[1][1])
                    out[i] = span or (self.merges_start, self.merges_start + 1)
                # malformed merges (not two strings): found by their place in the array
                lost = {refs[i].key for i in idxs if found.get(refs[i].key) is None}
                if lost:
                    where = array_element_spans(self.data, self.merges_start, lost)
                    for i in idxs:
                        if refs[i].key in where and found.get(refs[i].key) is None:
                            out[i] = where[refs[i].key]
            elif kind == "added":
                for i in idxs:
                    k = refs[i].key
                    out[i] = added_spans[k][:2] if k < len(added_spans) else fallback
            elif kind == "added-id":
                by_id = {self.added_list[k].get("id"): s for k, s in enumerate(added_spans) if k < len(self.added_list)}
                for i in idxs:
                    s = by_id.get(refs[i].key)
                    out[i] = s[:2] if s else fallback
            else:
                for i in idxs:
                    out[i] = fallback
        return out

    def _merges_by_rank(self, ranks: set[int]) -> dict[int, object]:
        """The merges of these ranks as stored; merges still in the text are parsed a
        piece at a time and only those are kept (all at once: 60 ms with the interpreter
        held, and 100+ MB of lists on the largest files)."""
        if self.merges_span is None:
            merges = self.vocab.merges or []
            return {r: merges[r] for r in ranks if 0 <= r < len(merges)}
        out: dict[int, object] = {}
        if not ranks:
            return out
        todo = sorted(r for r in ranks if r >= 0)
        base = k = 0
        for _, merges in self._merge_pieces(self.merges_span):
            if merges is None or k == len(todo):
                break
            while k < len(todo) and todo[k] < base + len(merges):
                out[todo[k]] = merges[todo[k] - base]
                k += 1
            base += len(merges)
        return out

    def _added_content_spans(self) -> list[tuple[int, int]]:
        """The span of each added_list entry's content literal, in order. An entry without
        a string content (reported apart) gets an empty span at its start: the k-th
        `"content"` of the text is then not the k-th entry's."""
        if self.added_start is None:
            return []
        out = []
        if not self.bad_added:
            pos = self.added_start
            for _ in self.added_list:
                m = _CONTENT_RE.search(self.data, pos)
                if m is None:
                    break
                out.append(m.span(1))
                pos = m.end()
            return out
        where = array_element_spans(self.data, self.added_start, set(self.added_positions))
        for i in self.added_positions:
            s, e = where.get(i, (self.added_start, self.added_start))
            m = _CONTENT_RE.search(self.data, s, e)
            out.append(m.span(1) if m and isinstance(self.added_list[len(out)].get("content"), str) else (s, s))
        return out

    # ---- lookups for hover and hints -------------------------------------------------
