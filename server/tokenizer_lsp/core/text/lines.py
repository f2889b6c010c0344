"""Offsets in UTF-8 bytes <-> LSP positions (line, column in the negotiated encoding).

Lines end at \\n, \\r\\n or \\r only (LSP rules; not str.splitlines). Building the index
costs one C-level pass; a lookup is a bisect plus a scan of at most one chunk.
"""

from __future__ import annotations

import codecs
import re
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from functools import cached_property
from itertools import pairwise
from operator import methodcaller

_CHUNK = 8192
# a line longer than this (a minified file is one line of megabytes) gets column
# checkpoints every _STEP bytes: converting a column deep in it then decodes one step,
# not the whole line before it (130 ms a hover on a 5 MB line)
_LONG = 1 << 16
_STEP = 1 << 13
_EOL = re.compile(rb"\r\n|\r|\n")
# spans further apart than this are placed by line_of (a chunk's count), not by counting
# the line breaks between them (a few spans across 30 MB took 5 ms)
_JUMP = 4 * _CHUNK
# edits an index carried through typing maps its chunk grid through, before a fresh count
# (one C pass, 45 ms on gemma3's 33 MB) is cheaper than the mapping
_CARRIED = 64


class LineIndex:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self._has_cr = b"\r" in data
        # a CR not followed by LF: an edit next to it may join the two into one line break
        self.has_lone_cr = self._has_cr and data.count(b"\r") != data.count(b"\r\n")
        if self._has_cr:
            starts = array("q", [0])
            starts.extend(m.end() for m in _EOL.finditer(data))
            self._starts: array | None = starts
        else:
            self._starts = None
            counts = array("q", [0])
            total = 0
            for i in range(0, len(data), _CHUNK):
                total += data.count(b"\n", i, i + _CHUNK)
                counts.append(total)
            self._chunk_lines = counts  # newlines before chunk k = counts[k]
        self.line_count = len(self._starts) if self._starts is not None else self._chunk_lines[-1] + 1
        self._checkpoints: dict[tuple[int, str], tuple[list[int], list[int]]] = {}
        # (start, end, inserted length) of each edit since the text the chunk counts were
        # made of, each in the text its predecessors made; see after_edits
        self._moves: tuple[tuple[int, int, int], ...] = ()

    def after_edits(self, data: bytes, edits: list[tuple[int, int, int]]) -> LineIndex | None:
        """The index of `data`, made from this index's text by `edits` ((start, end, length
        inserted), each in the text its predecessors made), none of which removed or
        inserted a line break (the caller knows: a typed character inside a token). None
        when a fresh index is due.

        Typing in gemma3 counted its 33 MB again at every keystroke (45 ms with the
        interpreter held). Here the chunk counts are shared, not copied, and a chunk's
        start is mapped through the edits: with no line break touched, the breaks between
        a mapped chunk start and an offset are the ones the count missed. The old text is
        not kept (a chain of indexes would keep every typed version alive)."""
        if self._starts is not None or len(self._moves) + len(edits) > _CARRIED:
            return None
        out = LineIndex.__new__(LineIndex)
        out.data, out._has_cr, out.has_lone_cr, out._starts = data, False, False, None
        out._chunk_lines, out.line_count, out._checkpoints = self._chunk_lines, self.line_count, {}
        out._moves = self._moves + tuple(edits)
        return out

    def _chunk_start(self, k: int) -> int:
        """Where the k-th chunk of the counted text begins in this text (at an edit made
        inside the chunk's first bytes: the edit's start; no line break lies between)."""
        x = k * _CHUNK
        for a, b, n in self._moves:
            if x >= b:
                x += n - (b - a)
            elif x > a:
                x = a
        return x

    def _chunk_of(self, offset: int) -> int:
        """The chunk of the counted text whose mapped start is the last one at or before offset."""
        o = offset
        for a, b, n in reversed(self._moves):
            if o >= a + n:
                o -= n - (b - a)
            elif o > a:
                o = a
        k = min(o // _CHUNK, len(self._chunk_lines) - 1)
        while k > 0 and self._chunk_start(k) > offset:
            k -= 1
        return k

    def line_start(self, line: int) -> int:
        if line <= 0:
            return 0
        if line >= self.line_count:
            return len(self.data)
        if self._starts is not None:
            return self._starts[line]
        # chunk k holds the newline that ends line-1 when counts[k] < line <= counts[k+1]
        k = bisect_right(self._chunk_lines, line - 1) - 1
        pos = self._chunk_start(k) if self._moves else k * _CHUNK
        find = self.data.find
        for _ in range(line - self._chunk_lines[k]):
            pos = find(b"\n", pos) + 1
        return pos

    def line_end(self, line: int) -> int:
        """Offset of the end of the line's content (before its line break)."""
        if line + 1 >= self.line_count:
            return len(self.data)
        nxt = self.line_start(line + 1)
        if self._has_cr and self.data[nxt - 2 : nxt] == b"\r\n":
            return nxt - 2
        return nxt - 1

    def line_of(self, offset: int) -> int:
        if self._starts is not None:
            return bisect_right(self._starts, offset) - 1
        if self._moves:
            k = self._chunk_of(offset)
            return self._chunk_lines[k] + self.data.count(b"\n", self._chunk_start(k), offset)
        k = min(offset // _CHUNK, len(self._chunk_lines) - 1)
        return self._chunk_lines[k] + self.data.count(b"\n", k * _CHUNK, offset)

    def start_of_line_at(self, offset: int) -> int:
        if self._starts is not None:
            return self._starts[bisect_right(self._starts, offset) - 1]
        return self.data.rfind(b"\n", 0, offset) + 1

    @cached_property
    def _ascii(self) -> bool:
        return self.data.isascii()  # one C pass over the text, once

    def _on_boundary(self, offset: int) -> int:
        """An offset inside a character (a finding on one byte of a 3-byte lone surrogate)
        is that character's start: columns are counted from offset to offset, and a count
        starting mid-character would take each of its remaining bytes for a character."""
        data = self.data
        if not 0 < offset < len(data) or data[offset] & 0xC0 != 0x80:
            return offset
        for back in (1, 2, 3):
            lead = data[offset - back] if offset - back >= 0 else 0
            if lead & 0xC0 != 0x80:
                size = 2 if lead >= 0xC0 else 0
                size = 4 if lead >= 0xF0 else 3 if lead >= 0xE0 else size
                return offset - back if back < size else offset
        return offset

    def _not_in_crlf(self, offset: int) -> int:
        """An offset between the CR and the LF of a line break is the line's end."""
        if self._has_cr and 0 < offset < len(self.data) and self.data[offset - 1 : offset + 1] == b"\r\n":
            return offset - 1
        return offset

    def position(self, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
        offset = self._on_boundary(self._not_in_crlf(min(max(offset, 0), len(self.data))))
        line = self.line_of(offset)
        start = self.start_of_line_at(offset)
        if offset - start > _LONG and encoding != "utf-8":
            offs, cols = self._columns(line, encoding)
            k = bisect_right(offs, offset) - 1
            return line, cols[k] + column_of(self.data[offs[k] : offset], encoding)
        return line, column_of(self.data[start:offset], encoding)

    def _columns(self, line: int, encoding: str) -> tuple[list[int], list[int]]:
        """Checkpoints of a long line: offsets about _STEP apart, each at the start of a
        character, and the column at each (built once per line and encoding)."""
        key = (line, encoding)
        found = self._checkpoints.get(key)
        if found is not None:
            return found
        data = self.data
        pos, end = self.line_start(line), self.line_end(line)
        offs, cols = [pos], [0]
        while pos + _STEP < end:
            nxt = pos + _STEP
            while nxt < end and 0x80 <= data[nxt] < 0xC0:  # not inside a character
                nxt += 1
            cols.append(cols[-1] + column_of(data[pos:nxt], encoding))
            offs.append(nxt)
            pos = nxt
        self._checkpoints[key] = (offs, cols)
        return offs, cols

    def positions(self, offsets: list[int], encoding: str = "utf-16") -> list[tuple[int, int]]:
        """Positions of many offsets; cost grows with the span they cover, not per offset."""
        n = len(self.data)
        offsets = (
            [self._not_in_crlf(min(max(o, 0), n)) for o in offsets]
            if self._has_cr
            else [min(max(o, 0), n) for o in offsets]
        )
        if not self._ascii:
            data = self.data
            offsets = [self._on_boundary(o) if o < n and data[o] & 0xC0 == 0x80 else o for o in offsets]
        order = sorted(range(len(offsets)), key=offsets.__getitem__)
        out: list[tuple[int, int]] = [(0, 0)] * len(offsets)
        line = -1
        line_start = next_start = 0
        col_base_off = 0
        col_base = 0
        data, prev = self.data, 0
        for i in order:
            off = offsets[i]
            if line < 0 or off >= next_start:
                if line < 0 or self._starts is not None or off - prev > _JUMP:
                    # far apart (findings spread over gemma3's 33 MB): a chunk's count, not
                    # one C call counting megabytes with the interpreter held (16 ms)
                    line = self.line_of(off)
                    line_start = self.start_of_line_at(off)
                else:  # count the line breaks since the previous offset: one pass in all
                    line += data.count(b"\n", prev, off)
                    line_start = data.rfind(b"\n", prev, off) + 1
                next_start = self._next_start_after(off)
                col_base_off, col_base = line_start, 0
            prev = off
            if off < col_base_off:
                col_base_off, col_base = line_start, 0
            if off - col_base_off > _LONG and encoding != "utf-8":
                col_base = self.position(off, encoding)[1]
            else:
                col_base += column_of(self.data[col_base_off:off], encoding)
            col_base_off = off
            out[i] = (line, col_base)
        return out

    def span_positions(
        self, spans: list[tuple[int, int]], encoding: str = "utf-16"
    ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """Ranges of many spans sorted by start, each inside one line (merge parts: `Ġ` or
        `▁` have tens of thousands): one pass counting line breaks between them, the end's
        column from the start's. Any other input takes the general path."""
        data = self.data
        if self._has_cr or any(s2 < s1 for (s1, _), (s2, _) in pairwise(spans)):
            flat = self.positions([o for span in spans for o in span], encoding)
            return [(flat[2 * k], flat[2 * k + 1]) for k in range(len(spans))]
        n, out = len(data), []
        line, prev = 0, 0
        col_at, col = 0, 0  # an offset on the current line and its column: the next span's
        # column adds the text since (a one-line file is not read again from its start each)
        count, rfind = data.count, data.rfind
        widths: dict[bytes, int] = {}  # the spans are mostly one token's literal, again and again
        for s, e in spans:
            if not 0 <= s <= e <= n:
                s, e = min(max(s, 0), n), min(max(e, s, 0), n)
            if s < n and data[s] & 0xC0 == 0x80 or e < n and data[e] & 0xC0 == 0x80:
                s, e = self._on_boundary(s), self._on_boundary(e)
            if s - prev > _JUMP:  # far apart (a vocab key, then merges): the line directly
                line, col_at, col = self.line_of(s), self.start_of_line_at(s), 0
            else:
                breaks = count(b"\n", prev, s)
                if breaks:
                    line += breaks
                    col_at, col = rfind(b"\n", prev, s) + 1, 0
            prev = s
            body = data[s:e]
            width = widths.get(body)
            if width is None:
                if b"\n" in body:
                    width = -1
                else:
                    width = len(body) if encoding == "utf-8" or body.isascii() else column_of(body, encoding)
                widths[body] = width
            if width < 0:
                out.append((self.position(s, encoding), self.position(e, encoding)))
                continue
            if s - col_at > _LONG and encoding != "utf-8":  # deep in a long line: its checkpoints
                col = self.position(s, encoding)[1]
            else:
                head = data[col_at:s]
                col += len(head) if encoding == "utf-8" or head.isascii() else column_of(head, encoding)
            col_at = s
            out.append(((line, col), (line, col + width)))
        return out

    def _next_start_after(self, offset: int) -> int:
        if self._starts is not None:
            k = bisect_right(self._starts, offset)
            return self._starts[k] if k < len(self._starts) else len(self.data) + 1
        i = self.data.find(b"\n", offset)
        return len(self.data) + 1 if i < 0 else i + 1

    def offset(self, line: int, character: int, encoding: str = "utf-16") -> int:
        """Offset of an LSP position; a column past the line's end means its end."""
        if line >= self.line_count:
            return len(self.data)
        start = self.line_start(line)
        end = self.line_end(line)
        if end - start > _LONG and encoding != "utf-8":
            offs, cols = self._columns(line, encoding)
            k = bisect_right(cols, character) - 1
            base = offs[k]
            stop = offs[k + 1] if k + 1 < len(offs) else end
            return base + byte_length_of_columns(self.data[base:stop], character - cols[k], encoding)
        return start + byte_length_of_columns(self.data[start:end], character, encoding)


def _client_chars(err: UnicodeDecodeError):
    """Decoding bytes back into the characters the client sent. A client's text may hold a
    lone surrogate (JSON allows `\\ud800`): the server stores it as its 3 surrogatepass
    bytes (ED A0..BF 80..BF), one character, one UTF-16 unit, to the client. Python's
    "replace" would make it 3 characters, and every column after it on the line 2 too far
    (ranges past the line's end). Other invalid bytes (a file read from disk) stay U+FFFD."""
    data, at = err.object, err.start
    if data[at] == 0xED and at + 2 < len(data) and 0xA0 <= data[at + 1] <= 0xBF and 0x80 <= data[at + 2] <= 0xBF:
        return data[at : at + 3].decode("utf-8", "surrogatepass"), at + 3
    return "\ufffd", at + 1


codecs.register_error("tokenizer_lsp_client_chars", _client_chars)
_CHARS = "tokenizer_lsp_client_chars"


def column_of(segment: bytes, encoding: str) -> int:
    if encoding == "utf-8":
        return len(segment)
    if segment.isascii():
        return len(segment)
    text = segment.decode("utf-8", _CHARS)
    if encoding == "utf-32" or not _has_astral(text):
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def columns_of_many(segments: Iterable[bytes], encoding: str) -> list[int]:
    """column_of each segment, in C-level passes (no Python code per segment)."""
    if encoding == "utf-8":
        return list(map(len, segments))
    texts = map(methodcaller("decode", "utf-8", _CHARS), segments)
    if encoding == "utf-32":
        return list(map(len, texts))
    # astral characters as 2 units, a lone surrogate as 1
    return list(map((2).__rfloordiv__, map(len, map(methodcaller("encode", "utf-16-le", "surrogatepass"), texts))))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _has_astral(text: str) -> bool:
    # a regex search, not max(text): that makes a 1-char str per character (150 ms for
    # the positions of 1.4k findings on a minified 5 MB line)
    return _ASTRAL.search(text) is not None


def byte_length_of_columns(line: bytes, columns: int, encoding: str) -> int:
    """How many bytes of `line` the first `columns` columns cover (clamped to the line)."""
    if columns <= 0:
        return 0
    if encoding == "utf-8" or line.isascii():
        return min(columns, len(line))
    text = line.decode("utf-8", _CHARS)
    if encoding == "utf-32" or not _has_astral(text):
        return _byte_length(line, text, columns)
    units = 0
    for i, ch in enumerate(text):
        if units >= columns:
            return _byte_length(line, text, i)
        units += 2 if ch > "\uffff" else 1
    return len(line)


def _byte_length(line: bytes, text: str, chars: int) -> int:
    """Bytes of `line` that its first `chars` characters (decoded by _client_chars) cover."""
    head = text[:chars]
    if "\ufffd" not in head:
        return len(head.encode("utf-8", "surrogatepass"))
    # a U+FFFD stood for one invalid byte, or was one in the text: decode again to count
    n = 0
    for ch in head:
        if ch == "\ufffd" and line[n : n + 3] != b"\xef\xbf\xbd":
            n += 1
        else:
            n += len(ch.encode("utf-8", "surrogatepass"))
    return min(n, len(line))
