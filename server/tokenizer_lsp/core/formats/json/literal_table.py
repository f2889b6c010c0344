"""Offsets of the string literals of a JSON region: what hovers and hints look up by position."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate

from .layout import _SPLIT_RE, line_windows


class LiteralTable:
    """Start and end offsets of the first `count` string literals from `start`.

    Built by C-level regex splitting in chunks cut outside strings (line_windows), so
    other threads get the interpreter between chunks, also on a minified one-line file.
    """

    CHUNK = 1 << 16

    def __init__(self, data: bytes, start: int, count: int, end: int | None = None) -> None:
        """`end`: where the region stops (literals wholly before it), else the data's end."""
        n = len(data)
        code = "i" if n < 1 << 31 else "q"  # 4-byte offsets: a million literals in 8 MB
        starts = array(code)
        ends = array(code)
        for pos, stop in line_windows(data, start, n if end is None else end, self.CHUNK):
            if len(starts) >= count:
                break
            parts = _SPLIT_RE.split(data[pos:stop])
            bounds = array(code, accumulate(map(len, parts), initial=pos))
            # bounds: gap0 end = lit0 start, lit0 end, gap1 end = lit1 start, ...
            starts.extend(bounds[1:-1:2])
            ends.extend(bounds[2:-1:2])
        del starts[count:]
        del ends[count:]
        self.starts = starts
        self.ends = ends
        self.end = ends[-1] if ends else start

    def __len__(self) -> int:
        return len(self.starts)

    def span(self, k: int) -> tuple[int, int]:
        return self.starts[k], self.ends[k]

    depth = 0

    def at_offset(self, offset: int) -> int | None:
        """Ordinal of the literal that contains offset (quotes included)."""
        k = bisect_right(self.starts, offset) - 1
        if k >= 0 and offset < self.ends[k]:
            return k
        return None

    def within(self, start: int, end: int) -> range:
        """Ordinals of the literals wholly inside [start, end)."""
        lo = bisect_right(self.starts, start - 1)
        hi = bisect_right(self.ends, end)
        return range(lo, max(lo, hi))


class ShiftedTable:
    """A literal table after an edit inside one literal: stored offsets at or after
    `at` move by `delta`. Lookups translate instead of rewriting a million offsets."""

    def __init__(self, base, at: int, delta: int) -> None:
        self.base, self.at, self.delta = base, at, delta
        self.depth = base.depth + 1

    def __len__(self) -> int:
        return len(self.base)

    def _fwd(self, off: int) -> int:
        return off + self.delta if off >= self.at else off

    def _back(self, off: int) -> int:
        if off >= self.at + self.delta:
            return off - self.delta
        return min(off, self.at)  # inside the edited text: still inside its literal

    def span(self, k: int) -> tuple[int, int]:
        s, e = self.base.span(k)
        return self._fwd(s), self._fwd(e)

    def at_offset(self, offset: int) -> int | None:
        return self.base.at_offset(self._back(offset))

    def within(self, start: int, end: int) -> range:
        return self.base.within(self._back(start), self._back(end))

    @property
    def end(self) -> int:
        return self._fwd(self.base.end)
