"""Classifying and explaining byte strings that are not valid UTF-8."""

from __future__ import annotations

import enum
import re
import unicodedata


class Utf8Kind(str, enum.Enum):
    VALID = "valid"
    INCOMPLETE = "incomplete"  # a valid prefix cut at the end
    CONTINUATION = "continuation"  # only 0x80-0xBF bytes
    INVALID = "invalid"  # any other shape


def sequence_length(lead: int) -> int:
    """Length of the UTF-8 sequence a lead byte starts (0 when it cannot start one)."""
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def classify(data: bytes) -> Utf8Kind:
    try:
        data.decode("utf-8")
        return Utf8Kind.VALID
    except UnicodeDecodeError as err:
        if all(0x80 <= b <= 0xBF for b in data):
            return Utf8Kind.CONTINUATION
        if err.reason == "unexpected end of data" and _only_fault_is_tail(data, err.start):
            return Utf8Kind.INCOMPLETE
        return Utf8Kind.INVALID


def _only_fault_is_tail(data: bytes, start: int) -> bool:
    # The decoder reports the first error; "incomplete" also needs the head to be valid.
    try:
        data[:start].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _leading_continuations(data: bytes) -> int:
    n = 0
    for b in data:
        if 0x80 <= b <= 0xBF:
            n += 1
        else:
            break
    return n


def incomplete_tail(data: bytes) -> tuple[int, int] | None:
    """(start, expected length) of a sequence cut off at the end of data, if any."""
    for back in range(1, min(4, len(data)) + 1):
        i = len(data) - back
        length = sequence_length(data[i])
        if length == 0:
            if 0x80 <= data[i] <= 0xBF:
                continue
            return None
        if length > back and _valid_prefix(data[i:]):
            return i, length
        return None
    return None


def _valid_prefix(part: bytes) -> bool:
    try:
        part.decode("utf-8")
    except UnicodeDecodeError as err:
        return err.reason == "unexpected end of data" and err.start == 0
    return False


def completion_range(prefix: bytes, length: int) -> tuple[int, int] | None:
    """Lowest and highest code point whose UTF-8 starts with this prefix."""
    missing = length - len(prefix)
    lo_bytes = prefix + b"\x80" * missing
    hi_bytes = prefix + b"\xbf" * missing
    lo = _first_valid(lo_bytes, prefix, missing, up=True)
    hi = _first_valid(hi_bytes, prefix, missing, up=False)
    if lo is None or hi is None:
        return None
    return lo, hi


def _first_valid(candidate: bytes, prefix: bytes, missing: int, up: bool) -> int | None:
    # Overlong and surrogate limits shrink the range of the second byte; walk to a valid one.
    value = int.from_bytes(candidate[len(prefix):], "big") if missing else 0
    for _ in range(64):
        tail = value.to_bytes(missing, "big") if missing else b""
        try:
            return ord((prefix + tail).decode("utf-8"))
        except UnicodeDecodeError:
            if missing == 0:
                return None
            step = 1 << (8 * (missing - 1))
            value = value + step if up else value - step
    return None


def describe_fragment(data: bytes) -> str:
    """One sentence a person understands: what the bytes are part of, what is missing."""
    kind = classify(data)
    if kind is Utf8Kind.VALID:
        return "valid UTF-8"
    lead_cont = _leading_continuations(data)
    parts: list[str] = []
    if kind is Utf8Kind.CONTINUATION:
        n = len(data)
        which = "a continuation byte" if n == 1 else f"{n} continuation bytes"
        return (f"continuation bytes only: {which} from the middle or end of a multi-byte character "
                "whose lead byte is in an earlier token")
    if lead_cont:
        parts.append(
            f"starts with {lead_cont} continuation byte{'s' if lead_cont != 1 else ''} "
            "(the end of a character begun in an earlier token)"
        )
    tail = incomplete_tail(data)
    if tail is not None:
        start, length = tail
        have = len(data) - start
        prefix = data[start:]
        text = (
            f"first {have} of {length} bytes of a UTF-8 sequence (lead byte {data[start]:02X}); "
            f"missing {length - have} continuation byte{'s' if length - have != 1 else ''}"
        )
        rng = completion_range(prefix, length)
        if rng is not None:
            lo, hi = rng
            ex = _visible_example(lo, hi)
            example = chr(ex).encode("utf-8").hex(" ").upper()
            text += (
                f"; completes a character in U+{lo:04X}..U+{hi:04X}, "
                f"e.g. {chr(ex)} U+{ex:04X} = {example}"
            )
        parts.append(text)
    for m in _SURROGATE.finditer(data):
        parts.append(f"{m.group().hex(' ').upper()} encodes a UTF-16 surrogate (U+D800..U+DFFF), which UTF-8 forbids")
    for m in _OVERLONG.finditer(data):
        parts.append(f"{m.group().hex(' ').upper()} is an overlong encoding (a shorter sequence exists), "
                     "which UTF-8 forbids")
    bad = sorted({b for b in data if sequence_length(b) == 0 and not 0x80 <= b <= 0xBF})
    if bad:
        parts.append("holds bytes that never occur in UTF-8: " + " ".join(f"{b:02X}" for b in bad))
    if not parts:
        parts.append("not a valid UTF-8 sequence")
    return "; ".join(parts)


_SURROGATE = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]?")
_OVERLONG = re.compile(rb"[\xc0\xc1][\x80-\xbf]?|\xe0[\x80-\x9f][\x80-\xbf]?|\xf0[\x80-\x8f][\x80-\xbf]{0,2}")


def _visible_example(lo: int, hi: int) -> int:
    """A character of the range worth showing (U+2000, the first for E2, is a blank)."""
    for cp in range(lo, min(hi, lo + 4096) + 1):
        if unicodedata.category(chr(cp))[0] not in "ZC":
            return cp
    return lo


def short_fragment_kind(data: bytes) -> str:
    """The fragment shape for a one-line diagnostic message."""
    kind = classify(data)
    if kind is Utf8Kind.CONTINUATION:
        return "continuation bytes only"
    tail = incomplete_tail(data)
    lead_cont = _leading_continuations(data)
    bits = []
    if lead_cont:
        bits.append(f"starts with {lead_cont} continuation byte{'s' if lead_cont != 1 else ''}")
    if tail is not None:
        start, length = tail
        bits.append(f"first {len(data) - start} of {length} bytes of a UTF-8 sequence")
    if not bits:
        bits.append("invalid UTF-8")
    return ", ".join(bits)
