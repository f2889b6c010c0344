"""The GPT-2 byte map: every byte has a printable stand-in character."""

from __future__ import annotations


def _build() -> list[str]:
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table = [""] * 256
    for b in printable:
        table[b] = chr(b)
    shifted = 0x100
    for b in range(256):
        if not table[b]:
            table[b] = chr(shifted)
            shifted += 1
    return table


BYTE_TO_CHAR: list[str] = _build()
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
ALPHABET: frozenset[str] = frozenset(CHAR_TO_BYTE)

# str.translate maps each stand-in to the code point of its byte, so that
# encoding the result as latin-1 yields the bytes; characters outside the
# alphabet are mapped above 0xFF, which makes latin-1 fail for them.
_TO_LATIN1 = {ord(c): b for c, b in CHAR_TO_BYTE.items()}
for _cp in range(0x100):
    _TO_LATIN1.setdefault(_cp, 0x110000 - 1)
_FROM_BYTES = bytes(range(256)).decode("latin-1").maketrans({chr(b): c for b, c in enumerate(BYTE_TO_CHAR)})


def byte_level_decode(token: str) -> bytes | None:
    """Bytes a byte-level token stands for, or None if a character is outside the map."""
    try:
        return token.translate(_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        return None


def byte_level_encode(data: bytes) -> str:
    """The stored (byte-level) form of raw bytes."""
    return data.decode("latin-1").translate(_FROM_BYTES)


def outside_alphabet(token: str) -> list[str]:
    """Characters of a token that are not in the byte alphabet, in order, once each."""
    seen: list[str] = []
    for ch in token:
        if ch not in ALPHABET and ch not in seen:
            seen.append(ch)
    return seen
