"""The command line on every registered table format (cli/tables.py): folders, mixed
invocations, the "not a tokenizer file" error, and diff across formats, checked against
the formats' own libraries."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sentencepiece as spm  # third-party engine, not our code
from sentencepiece import sentencepiece_model_pb2 as pb2
from tokenizer_lsp.core.formats.registry import plugins

from tests.conftest import corpus_file

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

DATA = Path(__file__).parent.parent / "data" / "sentencepiece"
UNIGRAM = DATA / "botchan_en_unigram_1000.model"


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_a_folder_holding_only_a_tokenizer_model(tmp_path):
    shutil.copy(corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3"), tmp_path / "tokenizer.model")
    p = cli("check", "--format", "json", tmp_path)
    assert p.returncode == 0, p.stderr
    found = json.loads(p.stdout)
    assert found and {f["path"] for f in found} == {str(tmp_path / "tokenizer.model")}
    assert all(f["range"] is None and isinstance(f["id"], int) for f in found)


def test_binary_and_text_files_in_one_check(tmp_path):
    model = corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3")
    llama = corpus_file("llama2/tokenizer.json")
    p = cli("check", "--format", "json", model, llama)
    assert p.returncode == 0, p.stderr
    found = json.loads(p.stdout)
    by_path = {f["path"]: f for f in found}
    assert by_path[str(model)]["range"] is None and isinstance(by_path[str(llama)]["range"], dict)
    p = cli("check", "--show-hints", model)
    sp = spm.SentencePieceProcessor(model_file=str(model))
    first_fragment = next(
        i for i in range(sp.get_piece_size()) if sp.is_byte(i) and int(sp.id_to_piece(i)[3:5], 16) >= 0x80
    )
    assert f"{model}:#{first_fragment}: hint utf8-fragment" in p.stdout


@pytest.mark.parametrize("command", ["check", "decode", "stats", "encode", "diff"])
def test_not_a_tokenizer_names_every_format(tmp_path, command):
    path = tmp_path / "vocab.txt"
    path.write_text("[section]\nkey = value\nother = 1\n")
    args = {"encode": [path, "text"], "diff": [path, path]}.get(command, [path])
    p = cli(command, *args)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "JSON" not in p.stderr
    for plugin in plugins():
        assert plugin.label in p.stderr


def converted_unigram(tmp_path) -> Path:
    """tokenizers' own conversion of a Unigram .model (SentencePieceUnigramTokenizer.from_spm
    reads it with sentencepiece_model_pb2)."""
    from tokenizers.implementations import SentencePieceUnigramTokenizer

    sys.modules.setdefault("sentencepiece_model_pb2", pb2)
    out = tmp_path / "tokenizer.json"
    SentencePieceUnigramTokenizer.from_spm(str(UNIGRAM)).save(str(out))
    return out


def test_diff_model_against_the_tokenizer_json_converted_from_it(tmp_path):
    converted = converted_unigram(tmp_path)
    text = "Botchan's father was a man of few words."
    p = cli("diff", "--format", "json", "--text", text, UNIGRAM, converted)
    d = json.loads(p.stdout)
    assert not any(d["vocab"].values()) and not d["model"] and not d["merges"]["added"]
    sp = spm.SentencePieceProcessor(model_file=str(UNIGRAM))
    from tokenizers import Tokenizer

    assert d["text"]["old_ids"] == sp.encode(text)
    assert d["text"]["new_ids"] == Tokenizer.from_file(str(converted)).encode(text).ids


def test_diff_names_the_pieces_scores_and_types_that_changed(tmp_path):
    m = pb2.ModelProto()
    m.ParseFromString(UNIGRAM.read_bytes())
    normal = [i for i, p in enumerate(m.pieces) if p.type == 1]
    rescored, retyped = normal[10], normal[20]
    m.pieces[rescored].score -= 1.5
    m.pieces[retyped].type = 4  # USER_DEFINED: matched whole in any text
    gone = m.pieces[normal[30]].piece
    del m.pieces[normal[30]]
    edited = tmp_path / "edited.model"
    edited.write_bytes(m.SerializeToString())
    p = cli("diff", "--format", "json", UNIGRAM, edited)
    assert p.returncode == 1, p.stderr
    d = json.loads(p.stdout)
    assert [e["token"] for e in d["vocab"]["rescored"]] == [m.pieces[rescored].piece]
    assert [e["token"] for e in d["vocab"]["removed"]] == [gone]
    assert [a["content"] for a in d["added_tokens"]["added"]] == [m.pieces[retyped].piece]
    assert [(t["token"], t["old_type"], t["new_type"]) for t in d["types"]] == [
        (m.pieces[retyped].piece, "NORMAL", "USER_DEFINED")
    ]
    assert cli("diff", UNIGRAM, UNIGRAM).returncode == 0


def test_diff_vocab_txt_against_its_tokenizer_json():
    p = cli(
        "diff",
        "--format",
        "json",
        corpus_file("all-minilm-l6-v2/vocab.txt"),
        corpus_file("all-minilm-l6-v2/tokenizer.json"),
    )
    d = json.loads(p.stdout)
    assert p.returncode == 0 and d["same"], d["counts"]
