"""Fixes of one merge or of a merges file: remove a merge, add the `#version` header."""

from __future__ import annotations

from ..formats.merges.doc import MergesDocument
from ..index.document import DocumentIndex
from .fix import QUICKFIX, Fix

_WS = b" \t\r\n"


def _skip_back(data: bytes, i: int) -> int:
    """The offset just after the last non-blank byte before i."""
    while i > 0 and data[i - 1] in _WS:
        i -= 1
    return i


def _skip_forward(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _WS:
        i += 1
    return i


def element_removal(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The bytes to delete to remove the array element data[start:end] with one comma:
    its own and the blanks up to the next element, or for the last element the comma
    before it (so the layout of the others stays as it was)."""
    after = _skip_forward(data, end)
    if data[after : after + 1] == b",":
        return start, _skip_forward(data, after + 1)
    before = _skip_back(data, start)
    if data[before - 1 : before] == b",":
        return before - 1, end
    return start, end


def _merge_rank(idx: DocumentIndex, start: int, end: int) -> int | None:
    """The rank of the merge whose literal (or a part of it) holds [start, end)."""
    for at in (start, max(start, end - 1)):
        ref = idx.token_at(at)
        if ref is not None and ref.role == "merge" and ref.rank is not None:
            return ref.rank
    return None


def remove_merge(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """Remove a merge that names a token missing from the vocabulary: the whole pair element
    with its comma in a tokenizer.json, the line in a merges file."""
    data = idx.data
    if isinstance(idx.doc, MergesDocument):
        line = idx.lines.line_of(start)
        s, e = idx.lines.line_start(line), idx.lines.line_start(line + 1)
        shown = data[s : idx.lines.line_end(line)].decode("utf-8", "replace")
        return [
            Fix(
                f"Remove merge `{shown}`",
                QUICKFIX,
                "merge-unknown-token",
                (start, end),
                preferred=True,
                edits=[(s, e, b"")],
            )
        ]
    rank = _merge_rank(idx, start, end)
    span = idx.merge_span(rank) if rank is not None else None
    if span is None:
        return []
    s, e = span
    if idx.vocab.merges_as_pairs:  # the literals of both parts: widen to the brackets
        s, e = _skip_back(data, s), _skip_forward(data, e)
        if data[s - 1 : s] != b"[" or data[e : e + 1] != b"]":
            return []
        s, e = s - 1, e + 1
    pair = idx.merge_at(rank)
    shown = f"{pair[0]} + {pair[1]}" if pair else data[s:e].decode("utf-8", "replace")
    cut = element_removal(data, s, e)
    return [
        Fix(
            f"Remove merge {rank} ({shown})",
            QUICKFIX,
            "merge-unknown-token",
            (start, end),
            preferred=True,
            edits=[(cut[0], cut[1], b"")],
        )
    ]


HEADER = b"#version: 0.2"


def add_header(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """Add `#version: 0.2` to a merges file that has no header (tokenizers skips the line;
    older loaders that drop the first line then drop it instead of a merge)."""
    doc = idx.doc
    if not isinstance(doc, MergesDocument) or doc.has_header:
        return []  # a BOM or text before the header: not this fix
    data = idx.data
    eol = (
        b"\r\n"
        if data[idx.lines.line_end(0) : idx.lines.line_end(0) + 2] == b"\r\n"
        else (b"\r" if data[idx.lines.line_end(0) : idx.lines.line_end(0) + 1] == b"\r" else b"\n")
    )
    at = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # after a byte order mark
    return [
        Fix(
            "Add the `#version: 0.2` header",
            QUICKFIX,
            "merges-header",
            (start, end),
            preferred=True,
            safe=True,
            edits=[(at, at, HEADER + eol)],
        )
    ]
