"""Decoding a stored token under the scheme its file declares."""

from __future__ import annotations

import base64
import enum
import re
from dataclasses import dataclass

from .bytemap import byte_level_decode
from .utf8 import Utf8Kind, classify

SP_SPACE = "\u2581"  # ▁
CLIP_SUFFIX = "</w>"  # end-of-word suffix of CLIP's BPE (and BPEDecoder's default)
_BYTE_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")


class Scheme(str, enum.Enum):
    BYTE_LEVEL = "byte-level"  # GPT-2 byte map
    SENTENCEPIECE = "sentencepiece"  # ▁ for space, <0xNN> byte fallback
    WORDPIECE = "wordpiece"  # ## continuation prefix, otherwise literal
    LITERAL = "literal"  # stored text is the text
    RAW_BYTES = "raw-bytes"  # tiktoken: the stored form is base64 of the bytes


class Kind(str, enum.Enum):
    BYTE_LEVEL = "byte-level"
    BYTE_FALLBACK = "byte-fallback"
    LITERAL = "literal"
    SPECIAL = "special"


@dataclass(frozen=True, slots=True)
class Decoded:
    data: bytes
    kind: Kind
    utf8: Utf8Kind
    continues: str = ""  # the WordPiece prefix (##) this piece carried: it continues a word
    ends_word: str = ""  # the end-of-word suffix (CLIP's </w>) it carried, decoded as a space

    @property
    def text(self) -> str | None:
        return self.data.decode("utf-8") if self.utf8 is Utf8Kind.VALID else None


def sp_byte(token: str) -> int | None:
    """The byte of a SentencePiece byte-fallback token such as <0xE2>."""
    if len(token) == 6 and token.startswith("<0x"):
        m = _BYTE_FALLBACK.fullmatch(token)
        if m:
            return int(m.group(1), 16)
    return None


def decode_token(token: str, scheme: Scheme, special: bool = False, prefix: str = "", suffix: str = "") -> Decoded:
    """Bytes, kind and UTF-8 shape of a token stored in a file using `scheme`; `prefix`
    is a WordPiece vocabulary's continuation prefix (its decoder glues such pieces to the
    previous one, dropping the prefix); `suffix` a BPE model's end-of-word suffix (CLIP's
    `</w>`), which its BPEDecoder turns into a space."""
    data, kind, continues, ends_word = _decoded(token, scheme, special, prefix, suffix)
    return Decoded(data, kind, classify(data), continues, ends_word)


def token_bytes(token: str, scheme: Scheme, special: bool = False, prefix: str = "", suffix: str = "") -> bytes:
    """decode_token(...).data, without judging the bytes' UTF-8 shape: what a pass over a
    whole vocabulary that needs only the bytes pays (stats: gemma3's 262k tokens)."""
    return _decoded(token, scheme, special, prefix, suffix)[0]


def _decoded(token: str, scheme: Scheme, special: bool, prefix: str, suffix: str) -> tuple[bytes, Kind, str, str]:
    """(bytes, kind, the continuation prefix it carried, the end-of-word suffix it carried)."""
    if suffix and token.endswith(suffix) and len(token) > len(suffix) and not special:
        data, kind, continues, _ = _decoded(token[: -len(suffix)], scheme, special, prefix, "")
        return data + b" ", kind, continues, suffix
    if scheme is Scheme.WORDPIECE and prefix and token.startswith(prefix) and len(token) > len(prefix) and not special:
        return token[len(prefix) :].encode("utf-8", "surrogatepass"), Kind.LITERAL, prefix, ""
    if scheme is Scheme.BYTE_LEVEL:
        data = byte_level_decode(token)
        if data is None:  # HF's ByteLevel decoder falls back to the token's own UTF-8
            return token.encode("utf-8", "surrogatepass"), Kind.SPECIAL if special else Kind.LITERAL, "", ""
        return data, Kind.SPECIAL if special else Kind.BYTE_LEVEL, "", ""
    if scheme is Scheme.SENTENCEPIECE:
        b = sp_byte(token)
        if b is not None:
            return bytes([b]), Kind.BYTE_FALLBACK, "", ""
        data = token.replace(SP_SPACE, " ").encode("utf-8", "surrogatepass")
        return data, Kind.SPECIAL if special else Kind.LITERAL, "", ""
    if scheme is Scheme.RAW_BYTES:
        return base64.b64decode(token, validate=True), Kind.BYTE_LEVEL, "", ""
    return token.encode("utf-8", "surrogatepass"), Kind.SPECIAL if special else Kind.LITERAL, "", ""
