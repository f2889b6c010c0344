"""The formats' own libraries, for the ids the playground must show (never our code)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from functools import cache

from tests.conftest import corpus_file

# CJK, emoji with ZWJ (and a flag, a skin tone), combining marks, tabs, runs of spaces
TEXTS = {
    "cjk": "你好，世界。日本語のテキストと한국어 텍스트。",
    "zwj": "family 👨‍👩‍👧‍👦 and 👩‍👩‍👧 rainbow 🏳️‍🌈 wave 👋🏽 flags 🇫🇷🇯🇵",
    "combining": "e\u0301 n\u0303 a\u0308 Z\u0351\u0306\u0315a\u0301l\u0317go Ä vs A\u0308",
    "tabs": "\tdef f(x):\n\t\treturn x\t# tab\t\tend\n\t",
    "spaces": "a  b   c    d         e" + " " * 40 + "f\n   \n  ",
    "mixed": "Hello 世界 👩‍👩‍👧 e\u0301\t\t  x   🇫🇷 \u00a0 end",
}


@cache
def qwen3():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(corpus_file("qwen3/tokenizer.json")))


@cache
def llama3():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(corpus_file("llama3/tokenizer.json")))


@cache
def o200k():
    """tiktoken's own o200k_base, offline: its loader reads the corpus file from its cache
    (named by the SHA-1 of the download URL) and checks the SHA-256 it expects."""
    import tiktoken
    import tiktoken.registry

    src = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    folder = tempfile.mkdtemp(prefix="tiktoken-cache-")
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    shutil.copy(src, os.path.join(folder, hashlib.sha1(url.encode()).hexdigest()))
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = folder
    try:
        tiktoken.registry.ENCODINGS.pop("o200k_base", None)
        return tiktoken.get_encoding("o200k_base")
    finally:
        tiktoken.registry.ENCODINGS.pop("o200k_base", None)
        if old is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


@cache
def spm():
    import sentencepiece

    return sentencepiece.SentencePieceProcessor(
        model_file=str(corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3"))
    )


def ids(name: str, text: str) -> list[int]:
    if name == "qwen3":
        return qwen3().encode(text, add_special_tokens=False).ids
    if name == "llama3":
        return llama3().encode(text, add_special_tokens=False).ids
    if name == "o200k":
        return o200k().encode_ordinary(text)
    if name == "spm":
        return spm().encode(text)
    raise KeyError(name)
