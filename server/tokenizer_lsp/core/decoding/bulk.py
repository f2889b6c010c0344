"""Whole-vocabulary classification in a few C-level passes (150k-260k tokens)."""

from __future__ import annotations

import codecs
from array import array
from bisect import bisect_right
from itertools import accumulate
from operator import add

from .bytemap import BYTE_TO_CHAR

_ENCODING_MAP = codecs.charmap_build("".join(BYTE_TO_CHAR))
# An ASCII separator between tokens resets UTF-8 decoding, so every token is judged
# alone; 'A' is in the byte alphabet, so the joined text still encodes one char per byte.
_SEP = "A"
_collected: list[int] = []


def _collect_decode(err: UnicodeError):
    _collected.append(err.start)
    return "", err.end


def _collect_encode(err: UnicodeError):
    _collected.append(err.start)
    return _SEP * (err.end - err.start), err.end


codecs.register_error("tokenizer_lsp_collect_decode", _collect_decode)
codecs.register_error("tokenizer_lsp_collect_encode", _collect_encode)


def byte_level_faults(tokens: list[str]) -> tuple[list[int], list[int]]:
    """Indices of tokens with characters outside the byte map, and of tokens whose bytes
    are not valid UTF-8 (among the others)."""
    outside, bad_utf8, _ = byte_level_scan(tokens)
    return outside, bad_utf8


_BATCH = 1 << 14  # tokens per C-level pass: other threads get the interpreter between


def byte_level_scan(tokens: list[str]) -> tuple[list[int], list[int], list[bytes]]:
    """byte_level_faults, plus the bytes of each token that is not valid UTF-8."""
    outside: list[int] = []
    bad_utf8: list[int] = []
    bad_bytes: list[bytes] = []
    for base in range(0, len(tokens), _BATCH):
        o, b, data = _scan_batch(tokens[base : base + _BATCH])
        outside += [base + i for i in o]
        bad_utf8 += [base + i for i in b]
        bad_bytes += data
    return outside, bad_utf8, bad_bytes


def _scan_batch(tokens: list[str]) -> tuple[list[int], list[int], list[bytes]]:
    joined = _SEP.join(tokens)
    # token i starts at (total length of tokens before it) + i separators; C-level only
    starts = array("q", map(add, accumulate(map(len, tokens), initial=0), range(len(tokens) + 1)))
    _collected.clear()
    data, _ = codecs.charmap_encode(joined, "tokenizer_lsp_collect_encode", _ENCODING_MAP)
    outside = _owners(starts, _collected)
    _collected.clear()
    data.decode("utf-8", "tokenizer_lsp_collect_decode")
    skip = set(outside)
    bad_utf8 = [i for i in _owners(starts, _collected) if i not in skip]
    _collected.clear()
    return outside, bad_utf8, [data[starts[i] : starts[i + 1] - 1] for i in bad_utf8]


def _owners(starts, positions: list[int]) -> list[int]:
    out: list[int] = []
    last = -1
    for p in positions:
        i = bisect_right(starts, p) - 1
        if i != last:
            out.append(i)
            last = i
    return out


def byte_fallback_fragments(vocab: dict[str, int]) -> list[str]:
    """SentencePiece byte tokens <0x80>..<0xFF> in the vocab (never UTF-8 alone)."""
    return [t for b in range(0x80, 0x100) for t in dict.fromkeys((f"<0x{b:02X}>", f"<0x{b:02x}>")) if t in vocab]
