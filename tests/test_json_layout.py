"""Helpers that scan a document in windows must agree with one scan of the whole."""

from hypothesis import given
from hypothesis import strategies as st

from tokenizer_lsp.formats.json_layout import count_in_windows, line_windows


@given(st.lists(st.sampled_from([b'",', b"[", b"x", b'"', b",", b"\n"]), max_size=200),
       st.sampled_from([b'",', b"["]), st.integers(1, 9))
def test_count_in_windows_equals_count(parts, needle, size):
    data = b"".join(parts)
    # windows smaller than the needle's length still count each occurrence once
    assert count_in_windows(data, needle, 0, len(data), size) == data.count(needle)
    if len(data) > 2:
        assert count_in_windows(data, needle, 1, len(data) - 1, size) == data.count(needle, 1, len(data) - 1)


@given(st.lists(st.sampled_from([b"ab", b"\n", b'"k": 1,']), max_size=100), st.integers(1, 16))
def test_line_windows_cover_the_region_at_line_ends(parts, size):
    data = b"".join(parts)
    windows = list(line_windows(data, 0, len(data), size))
    assert b"".join(data[lo:hi] for lo, hi in windows) == data
    assert all(data[hi - 1 : hi] == b"\n" for _, hi in windows[:-1])
