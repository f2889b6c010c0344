"""core/behaviour/subset_bpe.py: a BPE tokenizer.json reduced to what one text can use
encodes that text to exactly the ids of the whole file (tokenizers, both sides), on fuzzed
texts mixing the file's added tokens, CJK, emoji with ZWJ, combining marks, tabs and runs of
spaces."""

from __future__ import annotations

import functools

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizer_lsp.core.behaviour.subset_bpe import subset_json
from tokenizers import Tokenizer

from tests.conftest import corpus_file

FILES = ["qwen3", "llama3", "llama2", "gemma3"]
PIECES = [
    "Hello",
    " world",
    "  ",
    "\t",
    "\n\n",
    "我们今天去北京",
    "👨\u200d👩\u200d👧",
    "e\u0301",
    "ế",
    "Ａ",
    "ﬁ",
    "\r\n",
    "1234567",
    "’s",
    " don't",
    "<",
    "|",
    ">",
    "▁",
    "Ġ",
    "\u00a0",
    "x" * 70,
    " " * 70,
]


@functools.lru_cache(maxsize=4)
def _whole(name: str):
    path = corpus_file(f"{name}/tokenizer.json")
    data = path.read_bytes()
    obj = orjson.loads(data)
    added = [a["content"] for a in obj["added_tokens"]][:40]
    return obj, Tokenizer.from_str(data.decode()), added


@pytest.mark.parametrize("name", FILES)
def test_subset_encodes_as_the_whole_file(name):
    obj, whole, added = _whole(name)

    @settings(max_examples=40 if name != "gemma3" else 8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.one_of(st.sampled_from(PIECES + added), st.text(max_size=6)), max_size=25))
    def check(parts):
        text = "".join(parts)
        reduced = subset_json(obj, text)
        assert reduced is not None
        small = Tokenizer.from_str(reduced.decode())
        assert small.encode(text, add_special_tokens=False).ids == whole.encode(text, add_special_tokens=False).ids

    check()


def test_not_bpe_is_left_to_the_whole_file():
    obj = orjson.loads(corpus_file("all-minilm-l6-v2/tokenizer.json").read_bytes())
    assert subset_json(obj, "hello") is None
