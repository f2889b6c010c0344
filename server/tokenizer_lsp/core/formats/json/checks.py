"""The checks of a tokenizer.json or vocab.json (a JsonDocument, doc.py): vocabulary, ids,
added tokens and merges, checked on two cores for large files (see core.seams.in_child);
and the checks that hold on what a salvage recovered from broken JSON (salvage.py).

The JSON plug-ins' checks module (core/formats/json/__init__.py names it): the index's
build calls document_findings(parsed) on what the plug-in parsed.
"""

from __future__ import annotations

import orjson

from ... import checks, seams
from ...checks.pipeline import Scope, located, vocabulary_checks
from ...decoding.tokens import Scheme
from ...model import Finding, PendingFinding
from ...seams import MIN_PARALLEL_WORK
from ..parsed import Parsed
from .layout import array_element_spans, count_in_windows, element_boundary
from .schema import schema_findings


def document_findings(parsed: Parsed) -> list[Finding]:
    """The findings of what the JSON plug-in parsed. The merges parsed apart from the rest
    may turn out not to parse: then the text is salvaged as broken JSON after all, and
    `parsed` says so (format "json", the salvaged document, the json-syntax error)."""
    if parsed.salvaged is None:
        try:
            return findings(parsed.doc)
        except orjson.JSONDecodeError:  # in the merges parsed apart from the rest
            from . import salvaged

            got = salvaged(parsed.doc.data, parsed.path, None)
            parsed.format, parsed.doc, parsed.error, parsed.salvaged = got.format, got.doc, got.error, got.salvaged
    found = salvaged_findings(parsed.salvaged)
    parsed.doc = parsed.salvaged.doc  # None when its checks failed: the json-syntax finding alone
    return found


def salvaged_findings(found) -> list[Finding]:
    """The json-syntax finding first, then the checks that hold on what was recovered, in
    file order (salvage.py says which). Merges are not checked: against a partial
    vocabulary every later token would be missing, and against a whole one the check
    costs as much as indexing the file (they are, once it parses again). Never raises:
    a failure leaves the finding alone (and no document)."""
    doc = found.doc
    if doc is None:
        return [found.error]
    scope = Scope(
        byte_level=found.added_known and found.scheme_trusted,
        added=found.added_known,
        gaps=found.vocab_complete and found.added_known,
    )
    try:
        return [found.error] + located(
            vocabulary_checks(doc.vocab, doc.added_list, _duplicate_keys(doc), scope), doc.resolve
        )
    except Exception:  # a file broken in a way not foreseen: the finding alone
        found.doc = None
        return [found.error]


def pending_findings(doc, fragments: bool = True) -> list[PendingFinding]:
    if doc._tables is not None and doc.merge_count:
        raise RuntimeError("findings must come before build_tables, which drops the merges")
    if doc.merges_span is not None:
        return _pending_deferred(doc, fragments)
    v = doc.vocab
    # on large files a forked child checks the vocabulary and the first merges while
    # this process checks the other merges (see _pending_deferred)
    n = len(v.merges or ())
    split = max(0, _child_merges(doc, n, merge_cost=1.0))
    child = seams.in_child(_child_parsed, doc, split, fragments) if n + len(v.tokens) >= MIN_PARALLEL_WORK else None
    mine = checks.merge_findings(v, split) if child and split < n else []
    out, key_count, first = child.result() if child else _child_parsed(doc, n, fragments)
    doc.__dict__["source_key_count"] = key_count  # counted in the child
    return out + first + mine


def _pending_deferred(doc, fragments: bool) -> list[PendingFinding]:
    """The merges are still text. A forked child checks the vocabulary and the first
    merges while this process parses and checks the other merges. That way round,
    this process only reads the parsed vocabulary while the child lives: writes (even
    reference counts) would fault in copies of the pages they touch, and a thread
    stalled on those faults is a hover that waits."""
    v = doc.vocab
    s, e = doc.merges_span
    pairs = v.merges_as_pairs
    n = max(1, count_in_windows(doc.data, b"[" if pairs else b'",', s + 1, e))  # about the merge count
    take = _child_merges(doc, n)
    cut = element_boundary(doc.data, s + (e - s) * take // n, e, pairs) if 0 < take < n else None
    if take <= 0:
        chunks = [None, (s, e)]
    elif take >= n or cut is None:
        chunks = [(s, e), None]
    else:
        chunks = [(s, cut[0]), (cut[1], e)]
    child = (
        seams.in_child(_child_deferred, doc, chunks[0], fragments) if n + len(v.tokens) >= MIN_PARALLEL_WORK else None
    )
    # this process's share, a piece at a time (all at once would hold them all in
    # memory), before the child says at which rank it starts
    flagged, parsed_ok, local = [], True, 0
    for span, merges in doc._merge_pieces(chunks[1]) if chunks[1] else ():
        if merges is None:
            parsed_ok = False
            break
        if checks.merge_findings(v, 0, merges=merges):
            flagged.append((span, local))
        local += len(merges)
    out, key_count, first = child.result() if child else _child_deferred(doc, chunks[0], fragments)
    doc.__dict__["source_key_count"] = key_count  # counted in the child
    if first is None or not parsed_ok:
        raise orjson.JSONDecodeError("model.merges is not valid JSON", "", 0)
    done, count = first
    doc.__dict__["checked_merge_count"] = count + local
    for span, base in flagged:  # rare: messages name ranks, so check again with the right ones
        done += checks.merge_findings(v, count + base, merges=doc._parse_merge_chunk(span))
    return out + done


def _vocab_share(doc, fragments: bool) -> tuple[list[PendingFinding], int]:
    """(vocab, added and id findings, source key count)."""
    out = schema_findings(doc)
    out += vocabulary_checks(doc.vocab, doc.added_list, _duplicate_keys(doc), Scope(fragments=fragments))
    return out, doc.source_key_count


def _child_deferred(doc, chunk: tuple[int, int] | None, fragments: bool):
    """_vocab_share and (findings, count) of the merges in `chunk` (None when they
    do not parse)."""
    return (*_vocab_share(doc, fragments), _check_merge_chunk(doc, chunk) if chunk else ([], 0))


def _child_parsed(doc, split: int, fragments: bool):
    """_vocab_share and the findings of the first `split` parsed merges."""
    return (*_vocab_share(doc, fragments), checks.merge_findings(doc.vocab, 0, split) if split else [])


def _check_merge_chunk(doc, chunk: tuple[int, int]) -> tuple[list[PendingFinding], int] | None:
    """Findings and count of the merges in a slice of the merges array that starts at
    rank 0; None if the slice is not an array."""
    merges = doc._parse_merge_chunk(chunk)
    if merges is None:
        return None
    return checks.merge_findings(doc.vocab, 0, merges=merges), len(merges)


def _child_merges(doc, n: int, merge_cost: float = 2.0) -> int:
    """How many of about n merges the child takes, beside the vocabulary, so both
    processes finish together; from measured costs (microseconds per item on the
    2-core reference machine; a merge costs twice as much when it is parsed as well
    as checked). 0 or less: none."""
    tokens = len(doc.vocab.tokens)
    vocab_cost = (1.05 if doc.vocab.scheme is Scheme.BYTE_LEVEL else 0.1) * tokens + 0.5 * tokens
    return min(n, int((merge_cost * n - vocab_cost) / (2 * merge_cost)))


def findings(doc) -> list[Finding]:
    return located(pending_findings(doc), doc.resolve)


def _duplicate_keys(doc) -> list[tuple[int, int, str]]:
    if doc.unigram and doc.vocab_start is not None:
        dups = getattr(doc, "unigram_dups", [])
        where = array_element_spans(doc.data, doc.vocab_start, set(dups))
        return [(*where[i], doc.unigram_list[i][0]) for i in dups if i in where]
    if doc.vocab_start is None or doc.source_key_count <= len(doc.vocab.tokens):
        return []
    seen: set[str] = set()
    dups = []
    for s, e in doc._exact_key_spans or []:
        tok = orjson.loads(doc.data[s:e])
        if tok in seen:
            dups.append((s, e, tok))
        seen.add(tok)
    return dups
