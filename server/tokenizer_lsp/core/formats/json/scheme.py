"""Which decoding rule a tokenizer.json or vocab.json follows, from its own configuration."""

from __future__ import annotations

import re
from itertools import islice

from ...decoding.bytemap import BYTE_TO_CHAR
from ...decoding.tokens import CLIP_SUFFIX, SP_SPACE, Scheme


def _types(node) -> list[str]:
    """Component types in a normalizer/pre_tokenizer/decoder, Sequences flattened."""
    if isinstance(node, list):
        return [t for n in node for t in _types(n)]
    if not isinstance(node, dict):
        return []
    out = [node.get("type")] if isinstance(node.get("type"), str) else []
    for key in ("decoders", "pretokenizers", "normalizers", "processors"):
        out.extend(_types(node.get(key)))
    return out


def _replaces_sp_space(node) -> bool:
    if isinstance(node, list):
        return any(_replaces_sp_space(n) for n in node)
    if not isinstance(node, dict):
        return False
    if node.get("type") == "Replace":
        pat = node.get("pattern")
        pat = pat.get("String") if isinstance(pat, dict) else pat
        if pat == "\u2581":
            return True
    return any(_replaces_sp_space(node.get(k)) for k in ("decoders", "pretokenizers", "normalizers"))


def scheme_of(obj: dict) -> Scheme:
    """Which decoding rule applies, from the file's own decoder, pre_tokenizer, normalizer."""
    model = obj.get("model") if isinstance(obj.get("model"), dict) else {}
    types = set()
    for key in ("decoder", "pre_tokenizer", "normalizer"):
        types.update(_types(obj.get(key)))
    if "ByteLevel" in types:
        return Scheme.BYTE_LEVEL
    if (
        model.get("byte_fallback") is True
        or "ByteFallback" in types
        or "Metaspace" in types
        or _replaces_sp_space(obj.get("decoder"))
        or _replaces_sp_space(obj.get("normalizer"))
    ):
        return Scheme.SENTENCEPIECE
    if model.get("type") == "WordPiece" or "WordPiece" in types:
        return Scheme.WORDPIECE
    return Scheme.LITERAL


def _decoder_prefix(decoder) -> str:
    """The continuation prefix a WordPiece decoder strips (`##`), if that is the decoder."""
    if isinstance(decoder, dict) and decoder.get("type") == "WordPiece" and isinstance(decoder.get("prefix"), str):
        return decoder["prefix"]
    return ""


_NOT_BYTE_ALPHABET = re.compile("[^" + re.escape("".join(BYTE_TO_CHAR)) + "]")


def vocab_json_scheme(obj: dict) -> Scheme:
    """A vocab.json has no decoder to say how it is stored. GPT-2-style ones hold only the
    byte alphabet (a few specials aside); one where many tokens leave it was exported from
    a SentencePiece (`▁`) or plain-text vocabulary, and byte-level errors would be false."""
    keys = "".join(obj)
    outside = sum(1 for _ in islice(_NOT_BYTE_ALPHABET.finditer(keys), 4096))
    if outside <= max(16, len(obj) // 100):
        return Scheme.BYTE_LEVEL
    return Scheme.SENTENCEPIECE if SP_SPACE in keys else Scheme.LITERAL


def _word_suffix(model: dict, decoder) -> str:
    """The end-of-word suffix (CLIP's `</w>`): the model's, else a BPEDecoder's (whose
    default is `</w>`), found in a Sequence too."""
    suffix = model.get("end_of_word_suffix")
    if isinstance(suffix, str) and suffix:
        return suffix
    nodes = [decoder]
    while nodes:
        node = nodes.pop()
        if isinstance(node, list):
            nodes.extend(node)
        elif isinstance(node, dict):
            if node.get("type") == "BPEDecoder":
                suffix = node.get("suffix", CLIP_SUFFIX)
                return suffix if isinstance(suffix, str) else ""
            nodes.append(node.get("decoders"))
    return ""


def vocab_json_suffix(tokens: dict) -> str:
    """`</w>` when a vocab.json is CLIP's: every byte character also stands with the
    suffix, as a word's last symbol (256 lookups, not a pass over the vocabulary)."""
    return CLIP_SUFFIX if sum(1 for c in BYTE_TO_CHAR if c + CLIP_SUFFIX in tokens) >= 128 else ""
