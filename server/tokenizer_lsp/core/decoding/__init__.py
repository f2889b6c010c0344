"""Pure decoding of stored tokens to bytes and text (no LSP imports)."""

from .bytemap import BYTE_TO_CHAR, CHAR_TO_BYTE, byte_level_decode, byte_level_encode
from .tokens import Decoded, Scheme, decode_token
from .utf8 import Utf8Kind, classify, describe_fragment

__all__ = [
    "BYTE_TO_CHAR",
    "CHAR_TO_BYTE",
    "Decoded",
    "Scheme",
    "Utf8Kind",
    "byte_level_decode",
    "byte_level_encode",
    "classify",
    "decode_token",
    "describe_fragment",
]
