"""Copy a large document's new version with the interpreter released.

A new version of a 33 MB text is a 20 ms copy (mostly page faults on this kind of
machine). Made by bytes.join it holds the interpreter all along and hovers wait;
ctypes.memmove releases it, so the event loop keeps answering on the other core.
The result is a fresh bytes object (calloc'ed, so large ones start as untouched
zero pages, backed by huge pages where Linux allows) that nothing else has seen
while it is filled in.
"""

from __future__ import annotations

import ctypes
import platform

from ..core.seams import plain_splice
from .malloc import prefer_huge_pages

_LARGE = 1 << 20
_CPYTHON = platform.python_implementation() == "CPython"


def splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    """data[:start] + new + data[end:] (core.seams.plain_splice is the reference)."""
    size = len(data) - (end - start) + len(new)
    if size < _LARGE or not _CPYTHON:
        return plain_splice(data, start, end, new)
    out = bytes(size)
    dst, src = _address(out), _address(data)
    prefer_huge_pages(dst, size)
    ctypes.memmove(dst, src, start)
    ctypes.memmove(dst + start, _address(new), len(new))
    ctypes.memmove(dst + start + len(new), src + end, len(data) - end)
    return out


def _address(b: bytes) -> int:
    return ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value or 0
