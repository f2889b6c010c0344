"""Carrying positions between an indexed text and the text after later edits."""

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizer_lsp.core.text.position_map import range_to_new, span_of, to_new, to_old

ALPHABET = st.sampled_from(list("ab \né😀"))


def pos(text: str, i: int) -> tuple[int, int]:
    """LSP position (UTF-16) of character index i of a \\n-only text."""
    line = text.count("\n", 0, i)
    start = text.rfind("\n", 0, i) + 1
    return line, len(text[start:i].encode("utf-16-le")) // 2


@st.composite
def edited(draw):
    text = draw(st.text(ALPHABET, max_size=30))
    spans, origin = [], list(range(len(text)))  # origin[i]: index in the first text, or None
    first = text
    for _ in range(draw(st.integers(1, 3))):
        a = draw(st.integers(0, len(text)))
        b = draw(st.integers(a, len(text)))
        new = draw(st.text(ALPHABET, max_size=5))
        spans.append(span_of(pos(text, a), pos(text, b), new, "utf-16"))
        text = text[:a] + new + text[b:]
        origin = origin[:a] + [None] * len(new) + origin[b:]
    return first, text, spans, origin


@settings(max_examples=300, deadline=None)
@given(edited())
def test_positions_map_both_ways(case):
    first, text, spans, origin = case
    for i, o in enumerate(origin):
        got = to_old(pos(text, i), spans)
        if o is None:
            assert got is None  # typed since: the index knows nothing there
        else:
            assert got == pos(first, o)
            assert to_new(pos(first, o), spans) == pos(text, i)


@settings(max_examples=300, deadline=None)
@given(edited())
def test_untouched_ranges_move_touched_ones_vanish(case):
    first, text, spans, origin = case
    where = {o: i for i, o in enumerate(origin) if o is not None}
    for a in range(len(first)):
        b = a + 1
        moved = range_to_new(pos(first, a), pos(first, b), spans)
        # untouched: the character survived and nothing was inserted next to it inside
        if moved is not None:
            assert a in where and moved[0] == pos(text, where[a])
            assert text[where[a]] == first[a]


def test_edit_on_an_earlier_line_shifts_lines_only():
    spans = [span_of((0, 1), (0, 1), '  "x": ,\n', "utf-16")]
    assert to_old((5, 3), spans) == (4, 3)
    assert to_old((0, 5), spans) is None  # on the inserted text
    assert to_new((4, 3), spans) == (5, 3)
    assert to_old((1, 0), spans) == (0, 1)
