"""The typing fast path gives exactly what a full re-parse gives."""

import random

import pytest
from tokenizer_lsp.core.index.build import build_index

from tests.conftest import ROOT, corpus_file


def full(data):
    idx = build_index(data, "/x/tokenizer.json")
    idx.prepare_lookups()
    return idx


def facts(idx):
    return [(f.code, f.start, f.end, f.message) for f in idx.findings]


def same_lookups(a, b, offsets):
    for off in offsets:
        assert a.token_at(off) == b.token_at(off), off
        assert a.lines.position(off) == b.lines.position(off)
        line, col = b.lines.position(off)
        assert a.lines.offset(line, col) == b.lines.offset(line, col)


def literal_edits(idx, rng, count):
    """Random one-character edits strictly inside vocab keys and merge literals."""
    out = []
    for role in ("vocab", "merges"):
        table = idx.doc._tables[role]
        for k in rng.sample(range(len(table)), count):
            s, e = table.span(k)
            lit = idx.data[s:e]
            if b"\\" in lit or e - s < 3:
                continue
            # the end of the literal is ASCII-safe: insert before the closing quote,
            # or delete the last character when it is a single ASCII byte
            out.append((e - 1, e - 1, rng.choice([b"q", b"Z", b"e"])))
            if lit[-2] < 0x80 and e - s > 3:
                out.append((e - 2, e - 1, b""))
    return out


@pytest.mark.parametrize("path", [ROOT / "examples" / "tokenizer.json", "llama2/tokenizer.json"])
def test_single_edits_match_full_reparse(path):
    path = path if not isinstance(path, str) else corpus_file(path)
    data = path.read_bytes()
    base = full(data)
    rng = random.Random(7)
    used = 0
    for start, end, new in literal_edits(base, rng, 12):
        new_data = data[:start] + new + data[end:]
        derived = base.edited([(start, end, new)], new_data)
        if derived is None:  # e.g. the new token already exists: a full re-parse is right
            continue
        used += 1
        reference = full(new_data)
        assert facts(derived) == facts(reference)
        probes = [start - 3, start, start + 5, len(new_data) // 2, len(new_data) - 10]
        same_lookups(derived, reference, [p for p in probes if 0 <= p < len(new_data)])
    assert used >= 8


def test_chained_edits_and_fallbacks():
    data = (ROOT / "examples" / "tokenizer.json").read_bytes()
    idx = full(data)
    table = idx.doc._tables["vocab"]
    current = data
    for k in (300, 280, 260):  # each edit on the index derived from the previous one
        s, e = idx.doc._tables["vocab"].span(k)
        current = current[: e - 1] + b"Q" + current[e - 1 :]
        nxt = idx.edited([(e - 1, e - 1, b"Q")], current)
        assert nxt is not None
        # nothing of the derived index points at the previous text (it would stay alive)
        assert nxt.lines.data is current and nxt.doc.data is current
        idx = nxt
    assert facts(idx) == facts(full(current))
    # renaming a key to a token that already exists needs the duplicate check: full re-parse
    s, e = table.span(300)
    other = build_index(data, "/x/tokenizer.json").vocab
    assert full(data).edited([(s + 1, e - 1, b"a")], data[: s + 1] + b"a" + data[e - 1 :]) is None
    assert "a" in other.tokens
    # an edit that adds a quote changes the structure
    assert full(data).edited([(e - 1, e - 1, b'"')], data[: e - 1] + b'"' + data[e - 1 :]) is None
