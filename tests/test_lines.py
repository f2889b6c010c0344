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
        offsets = sorted({0, len(text)} | {i for i in range(len(text) + 1) if i == len(text) or not 0x80 <= text[i] < 0xC0})
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
