"""Helpers that scan a document in windows must agree with one scan of the whole."""

import json

from hypothesis import given
from hypothesis import strategies as st
from tokenizer_lsp.core.formats.json.layout import _STRING_RE, count_in_windows, line_windows
from tokenizer_lsp.core.formats.json.literal_table import LiteralTable


@given(
    st.lists(st.sampled_from([b'",', b"[", b"x", b'"', b",", b"\n"]), max_size=200),
    st.sampled_from([b'",', b"["]),
    st.integers(1, 9),
)
def test_count_in_windows_equals_count(parts, needle, size):
    data = b"".join(parts)
    # windows smaller than the needle's length still count each occurrence once
    assert count_in_windows(data, needle, 0, len(data), size) == data.count(needle)
    if len(data) > 2:
        assert count_in_windows(data, needle, 1, len(data) - 1, size) == data.count(needle, 1, len(data) - 1)


def _outside_strings(data: bytes, at: int) -> bool:
    return not any(s < at < e for s, e in (m.span() for m in _STRING_RE.finditer(data)))


@given(
    st.lists(
        st.sampled_from([b"ab", b"\n", b'"k": 1,', b'"a,\\",": 2, ', b'"\\"":3,', b'"a\\\\":4,', b'"b\\\\\\",":5,']),
        max_size=100,
    ),
    st.integers(1, 16),
)
def test_windows_cover_the_region_and_cut_outside_strings(parts, size):
    data = b"".join(parts)
    windows = list(line_windows(data, 0, len(data), size))
    assert b"".join(data[lo:hi] for lo, hi in windows) == data
    for _, hi in windows[:-1]:
        assert data[hi - 1 : hi] in (b"\n", b",") and _outside_strings(data, hi)


@given(st.lists(st.text(max_size=6), max_size=60), st.sampled_from([4, 16, 64]), st.booleans())
def test_literal_table_on_one_line_equals_a_whole_scan(tokens, chunk, pairs):
    data = json.dumps(
        [[t, t] for t in tokens] if pairs else {t: i for i, t in enumerate(tokens)}, ensure_ascii=False
    ).encode()
    want = [m.span() for m in _STRING_RE.finditer(data)]
    old, LiteralTable.CHUNK = LiteralTable.CHUNK, chunk
    try:
        table = LiteralTable(data, 0, len(want))
    finally:
        LiteralTable.CHUNK = old
    assert [table.span(k) for k in range(len(table))] == want
