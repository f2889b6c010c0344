"""The ids /api/encode answers are the format's own library's (tokenizers for qwen3's
tokenizer.json, tiktoken for o200k_base, sentencepiece for the .model), and the object is
`encode --format json`'s."""

import json
import subprocess
import sys
import unicodedata

import pytest

from tests.conftest import corpus_file

from . import oracles
from .harness import ROOT

# the playground fixture's order (conftest.py)
INDEX = {"qwen3": 0, "o200k": 1, "spm": 2}


@pytest.mark.parametrize("name", INDEX)
@pytest.mark.parametrize("sample", oracles.TEXTS)
def test_ids_are_the_librarys(playground, name, sample):
    text = oracles.TEXTS[sample]
    got = playground.api("/api/encode", {"tokenizer": INDEX[name], "text": text})
    assert got["ids"] == oracles.ids(name, text)
    assert [t["id"] for t in got["tokens"]] == got["ids"]


@pytest.mark.parametrize("sample", oracles.TEXTS)
def test_qwen3_tokens_are_the_texts_bytes(playground, sample):
    # byte-level BPE, no prefix space: the pieces concatenate to the text after the file's NFC
    text = oracles.TEXTS[sample]
    got = playground.api("/api/encode", {"tokenizer": 0, "text": text})
    assert "".join(t["bytes"] for t in got["tokens"]) == unicodedata.normalize("NFC", text).encode().hex()


def test_o200k_tokens_are_the_texts_bytes_and_cover_it(playground):
    text = oracles.TEXTS["mixed"]
    got = playground.api("/api/encode", {"tokenizer": 1, "text": text})
    assert "".join(t["bytes"] for t in got["tokens"]) == text.encode().hex()
    assert got["tokens"][0]["start"] == 0 and got["tokens"][-1]["end"] == len(text)


def test_100_kb_of_text(playground):
    text = ("".join(oracles.TEXTS.values()) * 200)[:100_000]
    for name in INDEX:
        got = playground.api("/api/encode", {"tokenizer": INDEX[name], "text": text})
        assert got["ids"] == oracles.ids(name, text)


@pytest.mark.parametrize(
    "path", ["qwen3", "openai-tiktoken/o200k_base.tiktoken", "mistral-spm/mistral_instruct_tokenizer_240323.model.v3"]
)
def test_the_answer_is_encode_format_jsons_object(playground, path):
    text = oracles.TEXTS["mixed"]
    index = {"qwen3": 0, "openai-tiktoken/o200k_base.tiktoken": 1}.get(path, 2)
    target = corpus_file(path if "/" in path else f"{path}/tokenizer.json")
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "tokenizer_lsp",
            "encode",
            str(target if "/" in path else target.parent),
            "--format",
            "json",
            "--file",
            "/dev/stdin",
        ],
        input=text.encode(),
        capture_output=True,
        env={"PYTHONPATH": str(ROOT / "server"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert playground.api("/api/encode", {"tokenizer": index, "text": text}) == json.loads(cli.stdout)


def test_specials_are_the_librarys(playground):
    qwen = oracles.qwen3()
    want = sorted(i for i, t in qwen.get_added_tokens_decoder().items() if t.special)
    assert playground.api("/api/specials?tokenizer=0") == {"ids": want}
    # SentencePiece: its CONTROL pieces and <unk> (special, as the converters to tokenizer.json make them)
    sp = oracles.spm()
    want = [i for i in range(sp.get_piece_size()) if sp.is_control(i) or sp.is_unknown(i)]
    assert playground.api("/api/specials?tokenizer=2") == {"ids": want}
    assert playground.api("/api/specials?tokenizer=1") == {"ids": []}  # a bare .tiktoken file has none


@pytest.fixture(scope="module")
def more_formats():
    from .harness import start, stop

    pg = start(
        [str(corpus_file("gpt2-openai/encoder.json").parent), str(corpus_file("mistral-tekken/tekken_240718.json"))]
    )
    yield pg
    stop(pg)


@pytest.mark.parametrize("sample", oracles.TEXTS)
def test_vocab_json_and_tekken_ids_are_their_librarys(more_formats, sample):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    from tokenizers import Tokenizer, models, pre_tokenizers

    text = oracles.TEXTS[sample]
    folder = corpus_file("gpt2-openai/encoder.json").parent
    # INTERFACE: BPE(vocab, merges) with a ByteLevel(add_prefix_space=False) pre-tokenizer
    bpe = Tokenizer(models.BPE.from_file(str(folder / "encoder.json"), str(folder / "vocab.bpe")))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert more_formats.api("/api/encode", {"tokenizer": 0, "text": text})["ids"] == bpe.encode(text).ids
    tek = Tekkenizer.from_file(str(corpus_file("mistral-tekken/tekken_240718.json")))
    assert more_formats.api("/api/encode", {"tokenizer": 1, "text": text})["ids"] == tek.encode(
        text, bos=False, eos=False
    )


def test_render_is_apply_chat_template_with_the_template_findings(playground):
    """/api/render on qwen3's folder: the ids of transformers' apply_chat_template, and the
    template checks' findings beside them; qwen3's template fails on content given as parts
    (transformers raises on that chat), which the findings say."""
    from tokenizer_lsp.core.chat.chats import sample, standard_chats

    from tests.chat import oracle

    folder = str(corpus_file("qwen3/tokenizer.json").parent)
    got = playground.api("/api/render", {"tokenizer": 0, "messages": sample()})
    assert got["ids"] == oracle.apply(folder, sample(), tokenize=True, return_dict=False)
    with pytest.raises(Exception):  # noqa: B017 - transformers' own error, whichever it is
        oracle.apply(folder, standard_chats()["parts"][1], tokenize=False)
    # (portability: what other engines make of it, held to them in tests/unit/test_chat_portability.py)
    assert [f["code"] for f in got["findings"] if f["code"] != "chat-template-portability"] == ["chat-template-rejects"]
    assert "list of parts" in got["findings"][0]["message"] and got["findings"][0]["line"] >= 1
