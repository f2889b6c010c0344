"""Line-based formats: one entry per line, every position known from the line split."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from itertools import accumulate

from ..model import Finding
from .json.doc import TokenRef

_EOL = re.compile(rb"(\r\n|\r|\n)")


def _split_lines(data: bytes) -> tuple[list[bytes], list[int]]:
    """Lines without their line breaks, and their start offsets (\\n, \\r\\n and \\r end lines)."""
    if b"\r" in data:
        parts = _EOL.split(data)
        lines = parts[0::2]
        starts = [0]
        pos = 0
        for i in range(0, len(parts) - 1, 2):
            pos += len(parts[i]) + len(parts[i + 1])
            starts.append(pos)
        return lines, starts
    lines = data.split(b"\n")
    starts = list(accumulate((len(l) + 1 for l in lines[:-1]), initial=0))
    return lines, starts


class LineDocument:
    """Entries one per line; every position is known from the line split itself."""

    format = ""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.lines, self.starts = _split_lines(data)
        self._starts_arr = array("q", self.starts)
        self.extra: list[Finding] = []

    tables_ready = True

    def build_tables(self) -> None:
        pass

    def _line_at(self, offset: int) -> int:
        return bisect_right(self._starts_arr, offset) - 1

    def token_at(self, offset: int) -> TokenRef | None:
        i = self._line_at(offset)
        for ref in self._refs_on_line(i):
            if ref.start <= offset < ref.end:
                return ref
        return None

    def tokens_in(self, start: int, end: int, limit: int | None = None) -> list[TokenRef]:
        out: list[TokenRef] = []
        first = max(0, self._line_at(start))
        last = self._line_at(max(start, end - 1))
        for i in range(first, last + 1):
            out.extend(r for r in self._refs_on_line(i) if start <= r.start and r.end <= end)
            if limit is not None and len(out) >= limit:
                break
        return out[:limit]

    def _refs_on_line(self, i: int) -> list[TokenRef]:
        return []  # each format lists the token literals of a line
