"""A GGUF file's metadata (the key/value section), read without touching the tensors.

Why a reader of ours and not `gguf.GGUFReader` (llama.cpp's own, on PyPI): GGUFReader
memory-maps the file (good) but then builds numpy views for every part of every field
(two per string: its length and its bytes) and parses every tensor info before it returns.
Measured by bench/gguf_bench.py (results/gguf.json; one run, a loaded 2-core machine): on
GPT-2's vocabulary (50k tokens, 50k merges) GGUFReader took 9-19 s and 246 MB of peak RSS,
ours 0.6-1.4 s and 32 MB, the same on the vocab-only file and on a 3 GB model. On lying
headers (tried by hand, gguf 0.19) GGUFReader raises numpy's "IndexError: index 0 is out of
bounds" for 2^60 keys, 2^40 tokens or a cut file (the cut file after 4 s and 179 MB), and
accepts a string claiming 2^50 bytes, returning what the file holds. This reader
walks the key/value section of a memory map with struct, keeps only the `tokenizer.*` and
`general.*` keys, stops at the end of that section (tensor infos and data are never read:
only the metadata's pages are touched), and checks every count and length against the
bytes left in the file before it allocates anything. GGUFReader stays the reference the
tests compare our arrays with.

Format (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md): magic "GGUF", uint32 version (2, 3; 1 had 32-bit counts),
uint64 tensor count, uint64 key count, then per key: string key, uint32 value type, value.
A string is uint64 length + UTF-8 bytes; an array is uint32 element type, uint64 count,
elements. Little-endian (a big-endian file, version bytes swapped, is refused by name).
"""

from __future__ import annotations

import mmap
import struct
from array import array

from ..table import FormatError

MAGIC = b"GGUF"

# value type -> (struct code, size) for the fixed-size scalars
_SCALARS = {
    0: ("B", 1),
    1: ("b", 1),
    2: ("H", 2),
    3: ("h", 2),
    4: ("I", 4),
    5: ("i", 4),
    6: ("f", 4),
    7: ("?", 1),
    10: ("Q", 8),
    11: ("q", 8),
    12: ("d", 8),
}
_STRING, _ARRAY = 8, 9
# array element type -> array module typecode (numbers only: a plain list would cost 28+
# bytes per score, array 4)
_ARRAY_CODES = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 10: "Q", 11: "q", 12: "d"}
KEEP_PREFIXES = ("tokenizer.", "general.")


class _Cursor:
    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf, pos: int) -> None:
        self.buf, self.pos, self.end = buf, pos, len(buf)

    def need(self, n: int, what: str) -> None:
        # the one check that keeps a lying header from allocating: every claimed size is
        # compared with what the file still holds
        if n < 0 or n > self.end - self.pos:
            raise FormatError(
                f"{what} claims {n} bytes at offset {self.pos}, but the file has "
                f"{self.end - self.pos} left (truncated or corrupt)"
            )

    def scalar(self, code: str, size: int, what: str):
        self.need(size, what)
        v = struct.unpack_from("<" + code, self.buf, self.pos)[0]
        self.pos += size
        return v

    def u32(self, what: str) -> int:
        return self.scalar("I", 4, what)

    def u64(self, what: str) -> int:
        return self.scalar("Q", 8, what)

    def string(self, what: str) -> str:
        n = self.u64(what)
        self.need(n, what)
        raw = bytes(self.buf[self.pos : self.pos + n])
        self.pos += n
        return raw.decode("utf-8", "surrogateescape")

    def skip_string(self, what: str) -> None:
        n = self.u64(what)
        self.need(n, what)
        self.pos += n


_U64 = struct.Struct("<Q").unpack_from


def _strings(cur: _Cursor, count: int, key: str, keep: bool) -> list[str] | None:
    # the hot loop of a vocabulary (256k tokens, 500k merges): locals only, one bounds
    # check per string, decoding after the walk
    buf, pos, end = cur.buf, cur.pos, cur.end
    raw = [b""] * count if keep else None
    for i in range(count):
        if end - pos < 8:
            cur.pos = pos
            cur.need(8, key)
        n = _U64(buf, pos)[0]
        pos += 8
        if n > end - pos:
            cur.pos = pos
            cur.need(n, f"{key}[{i}]")
        if keep:
            raw[i] = buf[pos : pos + n]
        pos += n
    cur.pos = pos
    if not keep:
        return None
    return [b.decode("utf-8", "surrogateescape") for b in raw]


MAX_DEPTH = 8  # arrays of arrays: GGUF writers nest one level; a deeper file is refused, not recursed


def _value(cur: _Cursor, vtype: int, key: str, keep: bool, depth: int = 0):
    if vtype in _SCALARS:
        code, size = _SCALARS[vtype]
        return cur.scalar(code, size, key)
    if vtype == _STRING:
        if keep:
            return cur.string(key)
        cur.skip_string(key)
        return None
    if vtype == _ARRAY:
        etype = cur.u32(key)
        count = cur.u64(key)
        if etype in _SCALARS:
            code, size = _SCALARS[etype]
            cur.need(count * size, f"{key} ({count} elements)")
            start = cur.pos
            cur.pos += count * size
            if not keep:
                return None
            if etype == 7:
                return [b != 0 for b in cur.buf[start : cur.pos]]
            arr = array(_ARRAY_CODES[etype])
            arr.frombytes(cur.buf[start : cur.pos])
            return arr
        if etype == _STRING:
            # each string takes at least its 8-byte length: a count the file cannot hold
            # is refused before the list grows
            cur.need(count * 8, f"{key} ({count} strings)")
            return _strings(cur, count, key, keep)
        if etype == _ARRAY:
            if depth >= MAX_DEPTH:
                raise FormatError(f"{key}: arrays nested more than {MAX_DEPTH} deep")
            cur.need(count * 12, f"{key} ({count} arrays)")
            out = [_value(cur, _ARRAY, key, keep, depth + 1) for _ in range(count)]
            return out if keep else None
        raise FormatError(f"{key}: unknown array element type {etype}")
    raise FormatError(f"{key}: unknown value type {vtype}")


def read_metadata(buf) -> tuple[int, int, dict]:
    """(version, tensor count, {key: value}) of the `tokenizer.*` and `general.*` keys of
    the GGUF in `buf` (bytes, a memoryview or an mmap)."""
    if len(buf) < 4 or bytes(buf[:4]) != MAGIC:
        raise FormatError("not a GGUF file (no GGUF magic)")
    cur = _Cursor(buf, 4)
    version = cur.u32("version")
    if version not in (1, 2, 3):
        if version & 0xFFFF == 0 and 0 < (version >> 24) <= 3:
            raise FormatError("big-endian GGUF, which this reader does not read")
        raise FormatError(f"GGUF version {version} (this reader knows 1 to 3)")
    if version == 1:  # v1 counts and lengths were 32-bit
        raise FormatError("GGUF version 1 (2023's first format; convert it again with llama.cpp)")
    n_tensors = cur.u64("tensor count")
    n_kv = cur.u64("key count")
    # a key takes at least 8 (key length) + 4 (type) + 1 bytes
    cur.need(n_kv * 13, f"key count {n_kv}")
    meta: dict = {}
    for _ in range(n_kv):
        key = cur.string("key")
        vtype = cur.u32(key)
        keep = key.startswith(KEEP_PREFIXES)
        value = _value(cur, vtype, key, keep)
        if keep:
            meta[key] = value
    return version, n_tensors, meta


def read_file_metadata(path: str) -> tuple[int, int, dict]:
    """read_metadata of the file at `path` through a read-only memory map: only the pages of
    the key/value section are ever read from disk."""
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        if size < 24:
            raise FormatError(f"file of {size} bytes is too short for a GGUF header")
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return read_metadata(mm)
    finally:
        mm.close()
