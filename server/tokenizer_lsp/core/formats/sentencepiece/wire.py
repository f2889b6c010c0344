"""A minimal protobuf wire-format reader: just what a SentencePiece ModelProto needs.

Why ours and not `sentencepiece_model_pb2` (the `sentencepiece` package's own model
definition): that module needs the `protobuf` runtime, which is not among our dependencies
(nor in the editor bundles), and its generated code pins protobuf versions. The wire format
is five rules; reading it ourselves also lets every length be checked against the bytes
that are really there before anything is sliced, so random, truncated or lying input fails
with one FormatError instead of a decoder's traceback or a huge allocation.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from ..table import FormatError

VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5
_F32 = struct.Struct("<f").unpack_from
_MAX_FIELD = (1 << 29) - 1


def varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, next position) of the varint at `pos`; at most 10 bytes, never past `end`."""
    result = shift = 0
    for i in range(pos, min(end, pos + 10)):
        b = buf[i]
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i + 1
        shift += 7
    raise FormatError(f"cut or overlong varint at byte {pos}")


def fields(buf: bytes, pos: int = 0, end: int | None = None) -> Iterator[tuple[int, int, object, int]]:
    """(field number, wire type, value, offset of the field) of each field of the message
    in buf[pos:end]. LEN values are (start, stop) offsets into `buf` (no copy); VARINT an
    int; FIXED32 the 4 raw bytes' offset; FIXED64 its offset."""
    end = len(buf) if end is None else end
    while pos < end:
        at = pos
        key, pos = varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0 or number > _MAX_FIELD:
            raise FormatError(f"bad field number {number} at byte {at}")
        if wire == VARINT:
            value, pos = varint(buf, pos, end)
        elif wire == LEN:
            n, pos = varint(buf, pos, end)
            if n > end - pos:  # a lying length: checked before anything is sliced
                raise FormatError(f"field {number} at byte {at} claims {n} bytes, {end - pos} remain")
            value, pos = (pos, pos + n), pos + n
        elif wire == FIXED32:
            if end - pos < 4:
                raise FormatError(f"field {number} at byte {at} is cut")
            value, pos = pos, pos + 4
        elif wire == FIXED64:
            if end - pos < 8:
                raise FormatError(f"field {number} at byte {at} is cut")
            value, pos = pos, pos + 8
        else:  # groups (3, 4) are not used by sentencepiece_model.proto; 6, 7 do not exist
            raise FormatError(f"wire type {wire} of field {number} at byte {at} is not in a SentencePiece model")
        yield number, wire, value, at


def as_float(buf: bytes, value: object) -> float:
    return _F32(buf, value)[0]


def as_str(buf: bytes, value: object, what: str) -> str:
    start, stop = value
    try:
        return buf[start:stop].decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{what} at byte {start} is not UTF-8") from None


def signed32(value: int) -> int:
    """An int32 field: negative values are written as 10-byte two's complement varints."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value
