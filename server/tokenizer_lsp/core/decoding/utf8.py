"""Classifying and explaining byte strings that are not valid UTF-8."""

from __future__ import annotations

import enum
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
    value = int.from_bytes(candidate[len(prefix) :], "big") if missing else 0
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


def _is_cont(b: int) -> bool:
    return 0x80 <= b <= 0xBF


# (lead byte, range of the second byte) of sequences UTF-8 forbids although the lead byte
# can start a valid one: overlong 3- and 4-byte forms, UTF-16 surrogates, beyond U+10FFFF
_FORBIDDEN_SECOND = {
    0xE0: (0x80, 0x9F, "overlong"),
    0xED: (0xA0, 0xBF, "surrogate"),
    0xF0: (0x80, 0x8F, "overlong"),
    0xF4: (0x90, 0xBF, "too-large"),
}


def faults(data: bytes, limit: int | None = None) -> list[tuple[str, int, int]]:
    """The faults of a byte string as UTF-8, in order: (shape, start, end) with shape
    "leading" (continuation bytes at the start: the end of an earlier character),
    "stray" (continuation bytes after a complete character), "cut" (a sequence broken off
    by a byte that does not continue it), "tail" (a valid prefix cut by the end),
    "overlong", "surrogate", "too-large" (a forbidden form) or "never" (C0, C1, F5..FF,
    bytes no form of UTF-8 uses). Python's decoder finds them; this names them. With a
    limit, at most that many (each costs a decode of the rest: a token can be megabytes)."""
    out: list[tuple[str, int, int]] = []
    n, pos = len(data), 0
    while pos < n and (limit is None or len(out) < limit):
        try:
            data[pos:].decode("utf-8")
            break
        except UnicodeDecodeError as err:
            s, stop, reason = pos + err.start, pos + err.end, err.reason
        b = data[s]
        if _is_cont(b):
            e = s
            while e < n and _is_cont(data[e]):
                e += 1
            out.append(("leading" if s == 0 else "stray", s, e))
            pos = e
            continue
        if b in (0xC0, 0xC1):  # would start an overlong 2-byte form
            e = s + 2 if s + 1 < n and _is_cont(data[s + 1]) else s + 1
            out.append(("overlong" if e == s + 2 else "never", s, e))
            pos = e
            continue
        if b >= 0xF5:
            out.append(("never", s, s + 1))
            pos = s + 1
            continue
        forbidden = _FORBIDDEN_SECOND.get(b)
        if forbidden and s + 1 < n and forbidden[0] <= data[s + 1] <= forbidden[1]:
            e, end = s + 1, min(n, s + sequence_length(b))
            while e < end and _is_cont(data[e]):
                e += 1
            out.append((forbidden[2], s, e))
            pos = e
            continue
        if reason == "unexpected end of data":
            out.append(("tail", s, n))
            break
        out.append(("cut", s, stop))  # lead byte and its continuations so far
        pos = stop
    return out


_MAX_FAULTS = 6  # explained in a message or hover; more are summed up as "and more"


def _hex(data: bytes) -> str:
    if len(data) > 12:  # a run of stray continuation bytes can be long
        return data[:12].hex(" ").upper() + f" … ({len(data)} bytes)"
    return data.hex(" ").upper()


def _code_point(seq: bytes) -> int:
    """The number a (possibly forbidden) complete sequence encodes."""
    length = len(seq)
    value = seq[0] & (0x7F >> length)
    for b in seq[1:]:
        value = (value << 6) | (b & 0x3F)
    return value


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def describe_fragment(data: bytes) -> str:
    """One sentence a person understands: what the bytes are part of, what is missing."""
    kind = classify(data)
    if kind is Utf8Kind.VALID:
        return "valid UTF-8"
    if kind is Utf8Kind.CONTINUATION:
        n = len(data)
        which = "a continuation byte" if n == 1 else f"{n} continuation bytes"
        # a lone 80..BF is not "the last byte" of anything in particular: it can be the
        # 2nd, 3rd or 4th byte of a character begun before it
        return (
            f"continuation bytes only: {which} from the middle or end of a multi-byte character "
            "whose lead byte is in an earlier token"
        )
    parts: list[str] = []
    found = faults(data, _MAX_FAULTS + 1)
    for shape, s, e in found[:_MAX_FAULTS]:
        seq = data[s:e]
        if shape == "leading":
            parts.append(
                f"starts with {_plural(e - s, 'continuation byte')} (the end of a character begun in an earlier token)"
            )
        elif shape == "stray":
            parts.append(
                f"{_hex(seq)} at byte {s + 1}: {'a continuation byte' if e - s == 1 else 'continuation bytes'} "
                "with no lead byte before (not part of any character)"
            )
        elif shape == "tail":
            parts.append(_tail_text(seq))
        elif shape == "cut":
            length = sequence_length(seq[0])
            after = f"by {data[e]:02X}" if e < len(data) else "by the end"
            parts.append(
                f"{_hex(seq)} is the first {len(seq)} of {length} bytes of a UTF-8 sequence "
                f"(lead byte {seq[0]:02X}), cut short {after}, which is not a continuation byte"
            )
        elif shape == "overlong":
            length = sequence_length(seq[0]) or 2
            if len(seq) == length:
                parts.append(
                    f"{_hex(seq)} is an overlong encoding of U+{_code_point(seq):04X} (a shorter "
                    "sequence exists), which UTF-8 forbids"
                    + (f"; {seq[0]:02X} never occurs in UTF-8" if seq[0] in (0xC0, 0xC1) else "")
                )
            else:
                parts.append(
                    f"{_hex(seq)} begins an overlong encoding (a shorter sequence exists), which UTF-8 forbids"
                )
        elif shape == "surrogate":
            what = (
                f"the UTF-16 surrogate U+{_code_point(seq):04X}"
                if len(seq) == 3
                else "a UTF-16 surrogate (U+D800..U+DFFF)"
            )
            parts.append(f"{_hex(seq)} encodes {what}, which UTF-8 forbids")
        elif shape == "too-large":
            what = f"U+{_code_point(seq):X}" if len(seq) == 4 else "a number"
            parts.append(f"{_hex(seq)} encodes {what}, above U+10FFFF, the last code point")
        else:  # never
            parts.append(f"holds {seq[0]:02X}, a byte that never occurs in UTF-8")
    if len(found) > _MAX_FAULTS:
        parts.append("and more faults after these")
    return "; ".join(parts) or "not a valid UTF-8 sequence"


def _tail_text(prefix: bytes) -> str:
    length = sequence_length(prefix[0])
    have = len(prefix)
    text = (
        f"first {have} of {length} bytes of a UTF-8 sequence (lead byte {prefix[0]:02X}); "
        f"missing {_plural(length - have, 'continuation byte')}"
    )
    rng = completion_range(prefix, length)
    if rng is not None:
        lo, hi = rng
        text += f"; completes a character in U+{lo:04X}..U+{hi:04X}"
        ex = _visible_example(lo, hi)
        if ex is not None:
            text += f", e.g. {chr(ex)} U+{ex:04X} = {_hex(chr(ex).encode('utf-8'))}"
    return text


def _visible_example(lo: int, hi: int) -> int | None:
    """A character of the range worth showing: not a blank, control, format, private-use
    or unassigned one (U+2000, the first for E2, is an invisible space); None if the
    first 4096 have none."""
    for cp in range(lo, min(hi, lo + 4096) + 1):
        if unicodedata.category(chr(cp))[0] not in "ZC":
            return cp
    return None


def short_fragment_kind(data: bytes) -> str:
    """The fragment shape for a one-line diagnostic message."""
    if classify(data) is Utf8Kind.CONTINUATION:
        return "continuation bytes only"
    bits = []
    found = faults(data, _MAX_FAULTS + 1)
    for shape, s, e in found[:_MAX_FAULTS]:
        seq = data[s:e]
        if shape == "leading":
            bits.append(f"starts with {_plural(e - s, 'continuation byte')}")
        elif shape == "stray":
            bits.append(f"stray continuation byte{'s' if e - s != 1 else ''} {_hex(seq)}")
        elif shape == "tail":
            bits.append(f"first {len(seq)} of {sequence_length(seq[0])} bytes of a UTF-8 sequence")
        elif shape == "cut":
            bits.append(
                f"{_hex(seq)} cut short (first {len(seq)} of {sequence_length(seq[0])} bytes of a UTF-8 sequence)"
            )
        elif shape == "overlong":
            bits.append(f"overlong encoding {_hex(seq)}")
        elif shape == "surrogate":
            bits.append(f"encoded UTF-16 surrogate {_hex(seq)}")
        elif shape == "too-large":
            bits.append(f"{_hex(seq)} above U+10FFFF")
        else:
            bits.append(f"byte {seq[0]:02X} never occurs in UTF-8")
    if len(found) > _MAX_FAULTS:
        bits.append("and more")
    return ", ".join(bits) or "invalid UTF-8"
