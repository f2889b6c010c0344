"""Apply LSP content changes to a document's UTF-8 bytes, by the LSP's own rules.

pygls' TextDocument splits lines with str.splitlines (wrong at U+2028 and friends) and
rebuilds the whole string per change; documents are kept as bytes with our own line index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import seams
from .lines import LineIndex


@dataclass
class Change:
    text: str
    start: tuple[int, int] | None = None  # (line, character); None = whole document
    end: tuple[int, int] | None = None


Edit = tuple[int, int, bytes]  # replace bytes [start, end) with these


def apply_changes(
    data: bytes, changes: list[Change], encoding: str, lines: LineIndex | None = None
) -> tuple[bytes, list[Edit] | None]:
    """The new text, and the byte edits that made it (None after a whole-text change)."""
    edits: list[Edit] | None = []
    i = 0
    while i < len(changes):
        ch = changes[i]
        new = ch.text.encode("utf-8", "surrogatepass")
        if ch.start is None or ch.end is None:
            data, edits = new, None
            i += 1
            continue
        if lines is None or lines.data is not data:
            lines = LineIndex(data)
        j = _same_line_run(changes, i, lines)
        if j - i > 1:
            # a burst of typing: hundreds of changes on one line. Applied one by one, each
            # copied the whole text and counted its lines again (600 keystrokes on qwen3:
            # 6 s before the build began); here the line is edited alone and copied back once
            done = _apply_on_line(data, lines, changes[i:j], encoding)
            if done is not None:
                data, run = done
                if edits is not None:
                    edits.extend(run)
                i = j
                continue
        a = lines.offset(ch.start[0], ch.start[1], encoding)
        b = lines.offset(ch.end[0], ch.end[1], encoding)
        if b < a:
            a, b = b, a
        data = seams.splice(data, a, b, new)
        if edits is not None:
            edits.append((a, b, new))
        i += 1
    return data, edits


def _same_line_run(changes: list[Change], i: int, lines: LineIndex) -> int:
    """The end of the run of changes from i that stay on one line and make no line break."""
    line = changes[i].start[0] if changes[i].start is not None else -1
    if line < 0 or line >= lines.line_count:
        return i + 1
    j = i
    while j < len(changes):
        ch = changes[j]
        if (
            ch.start is None
            or ch.end is None
            or ch.start[0] != line
            or ch.end[0] != line
            or "\n" in ch.text
            or "\r" in ch.text
        ):
            break
        j += 1
    return max(j, i + 1)


def _apply_on_line(data: bytes, lines: LineIndex, changes: list[Change], encoding: str):
    """(new text, byte edits) of changes that all stay on one line (see _same_line_run);
    None when the line's columns are not its characters (astral characters in UTF-16,
    non-ASCII in UTF-8): the caller applies them one by one. The changes are coalesced in
    the line's characters first (a burst typed at one place is one edit), so the line is
    copied once per place, not once per keystroke; the edits returned make the same text."""
    line_no = changes[0].start[0]
    ls, le = lines.line_start(line_no), lines.line_end(line_no)
    try:
        line = data[ls:le].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None

    def plain(t: str) -> bool:  # a column is one character of t
        return encoding == "utf-32" or (t.isascii() if encoding == "utf-8" else not _ASTRAL.search(t))

    if not plain(line):
        return None
    steps, length = [], len(line)
    for ch in changes:
        if not plain(ch.text):
            return None
        ca, cb = min(ch.start[1], length), min(ch.end[1], length)
        if cb < ca:
            ca, cb = cb, ca
        steps.append((ca, cb, ch.text))
        length += len(ch.text) - (cb - ca)
    edits: list[Edit] = []
    for ca, cb, text in coalesced(steps, line):
        a = ls + len(line[:ca].encode("utf-8", "surrogatepass"))
        b = a + len(line[ca:cb].encode("utf-8", "surrogatepass"))
        edits.append((a, b, text.encode("utf-8", "surrogatepass")))
        line = line[:ca] + text + line[cb:]
    return seams.splice(data, ls, le, line.encode("utf-8", "surrogatepass")), edits


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def coalesced(edits: list, base):
    """The same change of `base` as `edits` (each in the text its predecessors made), as
    the fewest edits: one per place touched, in order, an edit undone by later ones gone.
    Bytes (never cut inside a UTF-8 character) or a str and its characters.

    A build that starts from an older index applies every edit since (a stale build's
    edits stay pending for the next one): 600 keystrokes on one key were 600 steps, past
    the fast path's depth, so a whole re-parse; coalesced they are one."""
    items: list[list] = []  # [start, end, new] in base's offsets, disjoint and sorted
    for s, e, n in edits:
        shift, i = 0, 0
        while i < len(items) and items[i][0] + shift + len(items[i][2]) < s:
            shift += len(items[i][2]) - (items[i][1] - items[i][0])
            i += 1
        j, shift_j = i, shift
        while j < len(items) and items[j][0] + shift_j <= e:
            shift_j += len(items[j][2]) - (items[j][1] - items[j][0])
            j += 1
        if i == j:
            item = [s - shift, e - shift, n]
        else:
            first, last = items[i], items[j - 1]
            bs, be = min(first[0], s - shift), max(last[1], e - shift_j)
            pieces, at = [], bs
            for it in items[i:j]:
                pieces += [base[at : it[0]], it[2]]
                at = it[1]
            pieces.append(base[at:be])
            current = base[:0].join(pieces)  # the text of [bs, be) as it is now
            cs = bs + shift
            item = [bs, be, current[: s - cs] + n + current[e - cs :]]
        items[i:j] = [] if _trim(item, base) else [item]
    out, shift = [], 0
    for bs, be, n in items:
        out.append((bs + shift, be + shift, n))
        shift += len(n) - (be - bs)
    return out


def _trim(item: list, base) -> bool:
    """Drop what an edit leaves as it was at both ends (never inside a UTF-8 character);
    True when nothing is left."""
    bs, be, n = item
    old = base[bs:be]
    utf8 = isinstance(old, bytes)
    k, m = 0, min(len(old), len(n))
    while k < m and old[k] == n[k]:
        k += 1
    while utf8 and 0 < k < len(old) and 0x80 <= old[k] < 0xC0:
        k -= 1
    t, m = 0, min(len(old), len(n)) - k
    while t < m and old[len(old) - 1 - t] == n[len(n) - 1 - t]:
        t += 1
    while utf8 and t > 0 and len(old) - t > k and 0x80 <= old[len(old) - t] < 0xC0:
        t -= 1
    item[0], item[1], item[2] = bs + k, be - t, n[k : len(n) - t]
    return item[0] == item[1] and not item[2]
