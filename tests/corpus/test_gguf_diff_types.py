"""`diff` of a GGUF against its HF source: a CONTROL token at the same id with the same
text as an HF special added token is the same token (GPT-2's `<|endoftext|>` is in the
model vocabulary and an added token; the GGUF, one flat list, cannot say both), and a
token whose kind differs (NORMAL, CONTROL, USER_DEFINED against special / non-special
added / vocabulary) is a type change, not a token added on one side and removed on the other.

The GGUF side is the corpus's ggml-vocab-gpt-2.gguf (llama.cpp's) read with gguf's
GGUFReader, and copies of it written with gguf's GGUFWriter with one type changed; the HF
side is GPT-2's vocab.json + merges.txt (whisper's copy in the corpus) made a
tokenizer.json by tokenizers, `<|endoftext|>` added as HF's gpt2 file has it (special,
normalized: a field a GGUF does not store).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gguf
import pytest

from tests.conftest import corpus_file
from tests.gguf_fixtures import write_gguf

EOT = "<|endoftext|>"
NORMAL, CONTROL, USER_DEFINED = 1, 3, 4  # gguf.TokenType


def diff(old: Path, new: Path) -> tuple[int, dict]:
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "diff", "--format", "json", str(old), str(new)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    """(the corpus GGUF, what it holds as gguf reads it, the HF tokenizer.json)."""
    from tokenizers import AddedToken, Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE

    path = corpus_file("gguf/ggml-vocab-gpt-2.gguf")
    reader = gguf.GGUFReader(str(path))

    def strings(key):
        f = reader.fields[key]
        return [bytes(f.parts[i]).decode("utf-8") for i in f.data]

    f = reader.fields["tokenizer.ggml.token_type"]
    conv = {
        "tokens": strings("tokenizer.ggml.tokens"),
        "types": [int(f.parts[i][0]) for i in f.data],
        "merges": strings("tokenizer.ggml.merges"),
        "pre": "gpt-2",
    }
    conv["bos"] = conv["eos"] = conv["tokens"].index(EOT)
    tok = Tokenizer(
        BPE.from_file(str(corpus_file("whisper-gpt2/vocab.json")), str(corpus_file("whisper-gpt2/merges.txt")))
    )
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(EOT, special=True, normalized=True)])
    hf = tmp_path_factory.mktemp("gpt2") / "tokenizer.json"
    tok.save(str(hf))
    # the two hold the same tokens at the same ids; only <|endoftext|> is CONTROL
    vocab = tok.get_vocab(with_added_tokens=False)
    assert conv["tokens"] == sorted(vocab, key=vocab.__getitem__)
    assert [i for i, t in enumerate(conv["types"]) if t != NORMAL] == [tok.token_to_id(EOT)]
    assert conv["types"][tok.token_to_id(EOT)] == CONTROL
    return path, conv, hf


def test_control_token_equals_the_hf_special_token(gpt2):
    path, _, hf = gpt2
    for old, new in ((path, hf), (hf, path)):
        code, d = diff(old, new)
        assert (code, d["same"]) == (0, True), d["counts"]
        assert d["types"] == [] and not any(d["vocab"].values()) and not any(d["added_tokens"].values())


@pytest.mark.parametrize("typed, name", [(NORMAL, "NORMAL"), (USER_DEFINED, "USER_DEFINED")])
def test_a_different_type_is_a_type_change(gpt2, tmp_path, typed, name):
    path, conv, hf = gpt2
    eot = conv["tokens"].index(EOT)
    types = list(conv["types"])
    types[eot] = typed
    retyped = write_gguf(tmp_path / "retyped.gguf", {**conv, "types": types})
    code, d = diff(hf, retyped)
    assert code == 1
    assert d["types"] == [{"token": EOT, "text": EOT, "id": eot, "old_type": "CONTROL", "new_type": name}]
    assert not any(d["vocab"].values()) and not any(d["added_tokens"].values())
    assert d["counts"]["types_changed"] == 1


def test_a_token_only_one_side_has_is_still_added(gpt2, tmp_path):
    """A CONTROL token the HF file does not have (at an id after its vocabulary) is an
    added token of the GGUF; a vocabulary token the GGUF types CONTROL is a type change."""
    path, conv, hf = gpt2
    extra = "<|im_start|>"
    n = len(conv["tokens"])
    types = list(conv["types"])
    k = conv["tokens"].index("the")
    types[k] = CONTROL
    grown = write_gguf(
        tmp_path / "grown.gguf", {**conv, "tokens": conv["tokens"] + [extra], "types": types + [CONTROL]}
    )
    code, d = diff(hf, grown)
    assert code == 1
    assert [(a["content"], a["id"], a["special"]) for a in d["added_tokens"]["added"]] == [(extra, n, True)]
    assert [(t["token"], t["old_type"], t["new_type"]) for t in d["types"]] == [("the", "NORMAL", "CONTROL")]
    assert not any(d["vocab"].values()) and not d["added_tokens"]["removed"]


def test_a_slow_folder_whose_class_makes_the_token_special_is_the_same(gpt2, tmp_path):
    """GPT-2's vocab.json + merges.txt with a tokenizer_config.json naming GPT2Tokenizer:
    transformers loads `<|endoftext|>` as a special added token (the class's default), so
    the GGUF's CONTROL token at its id is that token, not a type change."""
    import shutil

    import transformers

    path, conv, _ = gpt2
    folder = tmp_path / "slow-gpt2"
    folder.mkdir()
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(corpus_file(f"whisper-gpt2/{name}"), folder / name)
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "GPT2Tokenizer"}), encoding="utf-8")
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    eot = conv["tokens"].index(EOT)
    assert {i: (t.content, t.special) for i, t in auto.added_tokens_decoder.items()} == {eot: (EOT, True)}
    assert conv["types"][eot] == CONTROL
    for old, new in ((path, folder / "vocab.json"), (folder / "merges.txt", path)):
        code, d = diff(old, new)
        assert (code, d["same"]) == (0, True), d["counts"]
        assert d["types"] == [] and not any(d["added_tokens"].values())
