"""Whisper's two rank files (openai-whisper's whisper/assets/, kept in tests/data/whisper/)
are known tiktoken encodings, as r50k_base is: `encode` needs no `--pattern` and its ids are
those of the Encoding whisper builds (issue 32). openai-whisper pulls torch, so its
`get_encoding()` is copied here (whisper/tokenizer.py, 20250625), not imported.
"""

from __future__ import annotations

import base64
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken

DATA = Path(__file__).resolve().parent.parent / "data" / "whisper"

# whisper/tokenizer.py's LANGUAGES, its keys in order (the special tokens name them)
LANGUAGE_CODES = [
    "en",
    "zh",
    "de",
    "es",
    "ru",
    "ko",
    "fr",
    "ja",
    "pt",
    "tr",
    "pl",
    "ca",
    "nl",
    "ar",
    "sv",
    "it",
    "id",
    "hi",
    "fi",
    "vi",
    "he",
    "uk",
    "el",
    "ms",
    "cs",
    "ro",
    "da",
    "hu",
    "ta",
    "no",
    "th",
    "ur",
    "hr",
    "bg",
    "lt",
    "la",
    "mi",
    "ml",
    "cy",
    "sk",
    "te",
    "fa",
    "lv",
    "bn",
    "sr",
    "az",
    "sl",
    "kn",
    "et",
    "mk",
    "br",
    "eu",
    "is",
    "hy",
    "ne",
    "mn",
    "bs",
    "kk",
    "sq",
    "sw",
    "gl",
    "mr",
    "pa",
    "si",
    "km",
    "sn",
    "yo",
    "so",
    "af",
    "oc",
    "ka",
    "be",
    "tg",
    "sd",
    "gu",
    "am",
    "yi",
    "lo",
    "uz",
    "fo",
    "ht",
    "ps",
    "tk",
    "nn",
    "mt",
    "sa",
    "lb",
    "my",
    "bo",
    "tl",
    "mg",
    "as",
    "tt",
    "haw",
    "ln",
    "ha",
    "ba",
    "jw",
    "su",
    "yue",
]

TEXTS = [
    "Hello world",
    " ça va? Très bien.",
    "数字 12345 and emoji 🙂👍🏽",
    "I'LL don't  \n\n  trailing  ",
    "def f(x):\n\treturn x ** 2",
    "",
    "<|endoftext|> is plain text here",
    "Привет, мир! こんにちは",
]


def whisper_get_encoding(vocab_path: Path, num_languages: int = 99) -> tiktoken.Encoding:
    """whisper.tokenizer.get_encoding, line for line (the asset path given instead of a name)."""
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in open(vocab_path) if line)  # noqa: SIM115 (whisper's own line)
    }
    n_vocab = len(ranks)
    special_tokens = {}
    specials = [
        "<|endoftext|>",
        "<|startoftranscript|>",
        *[f"<|{lang}|>" for lang in LANGUAGE_CODES[:num_languages]],
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
        *[f"<|{i * 0.02:.2f}|>" for i in range(1501)],
    ]
    for token in specials:
        special_tokens[token] = n_vocab
        n_vocab += 1
    return tiktoken.Encoding(
        name=vocab_path.name,
        explicit_n_vocab=n_vocab,
        pat_str=r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
        mergeable_ranks=ranks,
        special_tokens=special_tokens,
    )


def run_cli(*args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module", params=["multilingual", "gpt2"])
def asset(request, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("whisper") / f"{request.param}.tiktoken"
    path.write_bytes(gzip.decompress((DATA / f"{request.param}.tiktoken.gz").read_bytes()))
    return path


def test_encode_is_whispers_encoding(asset):
    want = whisper_get_encoding(asset)
    for text in TEXTS:
        code, out, err = run_cli("encode", "--format", "json", str(asset), text)
        assert code == 0, err
        # encode_ordinary: special tokens written in the text are plain text (INTERFACE Part 2)
        assert json.loads(out)["ids"] == want.encode_ordinary(text), text


def test_recognised_by_content_under_another_name(asset, tmp_path):
    renamed = tmp_path / "vocab-copy.tiktoken"
    renamed.write_bytes(asset.read_bytes())
    want = whisper_get_encoding(asset)
    code, out, err = run_cli("encode", "--format", "json", str(renamed), TEXTS[2])
    assert code == 0, err
    assert json.loads(out)["ids"] == want.encode_ordinary(TEXTS[2])


def test_an_unknown_encoding_names_whispers_in_its_refusal(tmp_path):
    data = gzip.decompress((DATA / "multilingual.tiktoken.gz").read_bytes())
    other = tmp_path / "custom.tiktoken"
    other.write_bytes(data.replace(b" 50256\n", b" 50257\n", 1).rstrip(b"\n").rsplit(b"\n", 1)[0] + b"\n")
    code, out, err = run_cli("encode", str(other), "hi")
    assert code == 2 and "--pattern" in err and "multilingual.tiktoken" in err


def test_stats_takes_pattern(tmp_path):
    """stats counts unreachable tokens of a file that is not a known encoding when given its
    pattern, as encode takes it; without it, it says why it cannot."""
    data = gzip.decompress((DATA / "multilingual.tiktoken.gz").read_bytes())
    other = tmp_path / "custom.tiktoken"
    lines = data.splitlines()
    other.write_bytes(b"\n".join(lines[:-1]) + b"\n")  # one rank fewer: no longer whisper's file
    pat = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    code, out, err = run_cli("stats", "--format", "json", str(other))
    assert code == 0 and json.loads(out)[0]["unreachable"] is None and "--pattern" in err
    code, out, err = run_cli("stats", "--format", "json", "--pattern", pat, str(other))
    assert code == 0, err
    got = json.loads(out)[0]["unreachable"]
    # the oracle: tiktoken with that pattern, each rank's own bytes encoded alone
    ranks = {base64.b64decode(t): int(r) for t, r in (line.split() for line in lines[:-1] if line)}
    enc = tiktoken.Encoding("custom", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    want = 0
    for token, rank in ranks.items():
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue  # a fragment, not an unreachable token (INTERFACE Part 2)
        if text and enc.encode_ordinary(text) != [rank]:
            want += 1
    assert got == want
