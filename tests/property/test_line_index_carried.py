"""A line index carried through edits that touch no line break (LineIndex.after_edits)
answers as one counted afresh from the edited text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizer_lsp.core.text import lines as lines_module
from tokenizer_lsp.core.text.lines import LineIndex

# short chunks, so that a few hundred bytes span many and edits land on chunk boundaries
CHUNK = 8
text_bytes = st.text(alphabet=st.sampled_from(["a", "é", "\n", "我", "😀", " "]), max_size=300).map(str.encode)


@st.composite
def edit_chain(draw):
    """A text and rounds of edits on it (each round: its edits, each in the text its
    predecessors made, and the text they make), none removing or inserting a line break."""
    data = original = draw(text_bytes)
    rounds = []
    for _ in range(draw(st.integers(1, 6))):
        edits = []
        for _ in range(draw(st.integers(1, 4))):
            start = draw(st.integers(0, len(data)))
            nl = data.find(b"\n", start)  # the removed bytes hold no line break
            end = draw(st.integers(start, len(data) if nl < 0 else nl))
            new = draw(st.text(alphabet=st.sampled_from(["x", "ü", "𝔸"]), max_size=3)).encode()
            edits.append((start, end, len(new)))
            data = data[:start] + new + data[end:]
        rounds.append((edits, data))
    return original, rounds


def _same(got: LineIndex, data: bytes) -> None:
    fresh = LineIndex(data)
    assert got.line_count == fresh.line_count
    for o in range(len(data) + 1):
        assert got.line_of(o) == fresh.line_of(o), o
    for line in range(fresh.line_count + 1):
        assert got.line_start(line) == fresh.line_start(line), line
        assert got.line_end(line) == fresh.line_end(line), line
    offsets = list(range(0, len(data) + 1, 3))
    for enc in ("utf-16", "utf-8"):
        assert got.positions(offsets, enc) == fresh.positions(offsets, enc)
        for line in range(fresh.line_count):
            assert got.offset(line, 2, enc) == fresh.offset(line, 2, enc)


@settings(max_examples=300, deadline=None)
@given(edit_chain())
def test_a_carried_index_answers_as_a_fresh_one(chain):
    saved = lines_module._CHUNK
    lines_module._CHUNK = CHUNK
    try:
        original, rounds = chain
        idx = LineIndex(original)
        for edits, after in rounds:
            idx = idx.after_edits(after, edits)
            assert idx is not None
            _same(idx, after)
    finally:
        lines_module._CHUNK = saved


def test_a_text_with_carriage_returns_or_a_long_chain_is_counted_afresh():
    assert LineIndex(b"a\r\nb").after_edits(b"ax\r\nb", [(1, 1, 1)]) is None
    idx = LineIndex(b"ab\ncd")
    for k in range(lines_module._CARRIED):
        idx = idx.after_edits(b"a" + b"x" * (k + 1) + b"b\ncd", [(1, 1, 1)])
        assert idx is not None
    assert idx.after_edits(b"a" + b"x" * (lines_module._CARRIED + 1) + b"b\ncd", [(1, 1, 1)]) is None
