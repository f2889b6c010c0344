"""Build the example vocabularies in this folder: a tiny byte-level BPE trained on a
multilingual paragraph (so some tokens are UTF-8 fragments), written in every format
tokenizer-lsp reads. Deterministic: running it again gives the same files.

    python examples/build_examples.py
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path

import regex
from tokenizer_lsp.decoding.bytemap import BYTE_TO_CHAR  # pip install -e . first

TEXT = """\
The quick brown fox jumps over the lazy dog. Tokenizers split text into tokens; \
byte-level BPE works on UTF-8 bytes, so every string can be encoded.
Le renard brun rapide saute par-dessus le chien paresseux. Ça marche très bien, né, été.
Der schnelle braune Fuchs springt über den faulen Hund. Größe, Straße, schön.
敏捷的棕色狐狸跳过了懒狗。我们的分词器把文本切成词元。我们喜欢我们的工具。
素早い茶色の狐がのろまな犬を飛び越える。トークナイザーはテキストを分割します。
Быстрая коричневая лиса прыгает через ленивую собаку. Привет, мир!
∀x ∈ ℝ: x² ≥ 0. ∀ε > 0 ∃δ > 0. Emoji: 👋 🙂 👋🙂 🚀
\tIndented line with a tab.
    def hello():\n        return "hello world"
"""

GPT2_SPLIT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
MERGES = 320


def byte_map() -> list[str]:
    return list(BYTE_TO_CHAR)


def train(text: str, merges: int) -> tuple[dict[str, int], list[tuple[str, str]]]:
    table = byte_map()
    words = Counter(tuple(table[b] for b in w.encode("utf-8")) for w in GPT2_SPLIT.findall(text))
    vocab = {c: i for i, c in enumerate(table)}
    learned: list[tuple[str, str]] = []
    for _ in range(merges):
        pairs: Counter = Counter()
        for word, n in words.items():
            for a, b in zip(word, word[1:]):
                pairs[a, b] += n
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if pairs[best] < 2:
            break
        learned.append(best)
        merged = best[0] + best[1]
        vocab.setdefault(merged, len(vocab))
        new_words: Counter = Counter()
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_words[tuple(out)] += n
        words = new_words
    return vocab, learned


def tokenizer_json(vocab: dict[str, int], merges: list[tuple[str, str]]) -> dict:
    eot = len(vocab)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": eot,
                "content": "<|endoftext|>",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {**vocab, "<|endoftext|>": eot},
            "merges": [list(m) for m in merges],
        },
    }


def main() -> None:
    here = Path(__file__).resolve().parent
    vocab, merges = train(TEXT, MERGES)
    (here / "tokenizer.json").write_text(
        json.dumps(tokenizer_json(vocab, merges), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    gpt2 = here / "gpt2-style"
    gpt2.mkdir(exist_ok=True)
    (gpt2 / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=True), encoding="utf-8")
    (gpt2 / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges), encoding="utf-8")
    inverse = {c: b for b, c in enumerate(byte_map())}
    lines = [f"{base64.b64encode(bytes(inverse[c] for c in tok)).decode()} {i}" for tok, i in vocab.items()]
    (here / "tiny.tiktoken").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
