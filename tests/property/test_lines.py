"""Positions on long lines (column checkpoints) agree with the plain computation."""

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizer_lsp.core.text import lines
from tokenizer_lsp.core.text.lines import LineIndex, byte_length_of_columns, column_of

chars = st.sampled_from(["a", "Ġ", "é", "∀", "😀", "\n", '"', ","])


@settings(max_examples=150)
@given(st.lists(chars, max_size=300), st.sampled_from(["utf-16", "utf-32", "utf-8"]), st.data())
def test_long_lines_answer_like_short_ones(parts, encoding, data):
    text = "".join(parts).encode("utf-8")
    plain = LineIndex(text)
    old = lines._LONG, lines._STEP
    lines._LONG, lines._STEP = 4, 3  # every line is long here
    try:
        quick = LineIndex(text)
        offsets = sorted(
            {0, len(text)} | {i for i in range(len(text) + 1) if i == len(text) or not 0x80 <= text[i] < 0xC0}
        )
        for off in offsets:
            line, col = quick.position(off, encoding)
            start = plain.line_start(line)
            assert (line, col) == (plain.line_of(off), column_of(text[start:off], encoding))
            assert quick.offset(line, col, encoding) == off
        assert quick.positions(offsets, encoding) == [quick.position(o, encoding) for o in offsets]
        for line in range(plain.line_count):
            start, end = plain.line_start(line), plain.line_end(line)
            col = data.draw(st.integers(0, column_of(text[start:end], encoding) + 3))
            assert quick.offset(line, col, encoding) == start + byte_length_of_columns(text[start:end], col, encoding)
    finally:
        lines._LONG, lines._STEP = old


@settings(max_examples=150)
@given(
    st.lists(st.sampled_from(["a", "Ġ", "▁", "é", "😀", "\n", "\r\n", '"', " "]), max_size=200),
    st.sampled_from(["utf-16", "utf-32", "utf-8"]),
    st.data(),
)
def test_span_positions_equal_positions_of_both_ends(parts, encoding, data):
    """The one-pass ranges of many spans (references of `▁`) agree with position() of each
    end, for spans inside a line, across lines, repeated, and out of order."""
    text = "".join(parts).encode("utf-8")
    idx = LineIndex(text)
    bounds = [i for i in range(len(text) + 1) if i == len(text) or not 0x80 <= text[i] < 0xC0]
    spans = data.draw(st.lists(st.tuples(st.sampled_from(bounds), st.sampled_from(bounds)), max_size=30))
    spans = [(min(a, b), max(a, b)) for a, b in spans]
    if data.draw(st.booleans()):
        spans.sort()
    expected = [(idx.position(s, encoding), idx.position(e, encoding)) for s, e in spans]
    assert idx.span_positions(spans, encoding) == expected


@settings(max_examples=100)
@given(st.lists(chars, max_size=200), st.sampled_from(["utf-16", "utf-32", "utf-8"]), st.data())
def test_positions_of_offsets_far_apart_equal_position_of_each(parts, encoding, data):
    """Offsets further apart than _JUMP are placed by each one's chunk, not by counting the
    line breaks between them: the same answers as position() one at a time (made small
    here so that random texts have both kinds of gaps)."""
    text = "".join(parts).encode("utf-8")
    bounds = [i for i in range(len(text) + 1) if i == len(text) or not 0x80 <= text[i] < 0xC0]
    offsets = data.draw(st.lists(st.sampled_from(bounds), max_size=40))
    old = lines._JUMP, lines._CHUNK
    lines._JUMP, lines._CHUNK = data.draw(st.sampled_from([(3, 4), (8, 2), (1, 16)]))
    try:
        idx = LineIndex(text)
        assert idx.positions(offsets, encoding) == [idx.position(o, encoding) for o in offsets]
    finally:
        lines._JUMP, lines._CHUNK = old
