"""A model folder whose tokenizer is a SentencePiece `tokenizer.model` or a BERT `vocab.txt`
(no tokenizer.json): its config files are checked against that file, as beside a
tokenizer.json (config-token-missing, config-id-mismatch), by `check FOLDER`,
`check FOLDER/<tokenizer file>` and `check FOLDER/tokenizer_config.json`.

Which tokens the tokenizer has, and their ids, come from sentencepiece's
SentencePieceProcessor and tokenizers' WordPiece.read_file on the same files.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sentencepiece as spm

from tests.conftest import ROOT, corpus_file

CONFIG_CODES = ("config-token-missing", "config-id-mismatch")
ABSENT = "<|not-a-piece|>"


def check(target: Path) -> tuple[int, list[dict]]:
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", "--format", "json", str(target)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, [r for r in json.loads(p.stdout) if r["code"] in CONFIG_CODES]


def spm_folder(folder: Path, model: Path, missing: bool) -> dict:
    """tokenizer.model + a tokenizer_config.json naming its bos/eos/unk pieces with their
    ids (as sentencepiece gives them), and `ABSENT` when `missing`."""
    sp = spm.SentencePieceProcessor(model_file=str(model))
    assert sp.piece_to_id(ABSENT) == sp.unk_id() and sp.id_to_piece(sp.unk_id()) != ABSENT
    folder.mkdir()
    shutil.copy(model, folder / "tokenizer.model")
    config = {"tokenizer_class": "LlamaTokenizer"}
    for which, tid in (("bos", sp.bos_id()), ("eos", sp.eos_id()), ("unk", sp.unk_id())):
        if tid >= 0:
            config[f"{which}_token"] = sp.id_to_piece(tid)
    if sp.eos_id() >= 0:
        config["eos_token_id"] = sp.eos_id()
    config["additional_special_tokens"] = [ABSENT] if missing else []
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return config


MODELS = [
    "mistral-spm/mistral_instruct_tokenizer_240323.model.v3",
    "tests/data/sentencepiece/botchan_en_bpe_1000.model",
]


def model_path(rel: str) -> Path:
    return ROOT / rel if rel.startswith("tests/") else corpus_file(rel)


@pytest.mark.parametrize("rel", MODELS)
def test_config_beside_a_sentencepiece_model(tmp_path, rel):
    model = model_path(rel)
    good = tmp_path / "good"
    spm_folder(good, model, missing=False)
    bad = tmp_path / "bad"
    spm_folder(bad, model, missing=True)
    for target in (good, good / "tokenizer.model", good / "tokenizer_config.json"):
        assert check(target)[1] == [], target
    for target in (bad, bad / "tokenizer.model", bad / "tokenizer_config.json"):
        code, rows = check(target)
        assert code == 1, target
        assert [(r["code"], r["path"]) for r in rows] == [("config-token-missing", str(bad / "tokenizer_config.json"))]
        assert ABSENT in rows[0]["message"] and "tokenizer.model" in rows[0]["message"]


def test_config_id_beside_a_sentencepiece_model(tmp_path):
    """An eos_token_id that is not the eos piece's id (sentencepiece's) is a mismatch."""
    model = model_path(MODELS[1])
    sp = spm.SentencePieceProcessor(model_file=str(model))
    folder = tmp_path / "ids"
    config = spm_folder(folder, model, missing=False)
    config["eos_token_id"] = sp.eos_id() + 1
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    code, rows = check(folder)
    assert code == 1 and [r["code"] for r in rows] == ["config-id-mismatch"]
    assert f"is id {sp.eos_id()} in tokenizer.model" in rows[0]["message"]


def test_config_beside_a_vocab_txt(tmp_path):
    from tokenizers.models import WordPiece

    source = corpus_file("all-minilm-l6-v2/vocab.txt")
    ids = WordPiece.read_file(str(source))
    specials = {
        "unk_token": "[UNK]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    }
    assert all(t in ids for t in specials.values()) and ABSENT not in ids
    for name, extra in (("good", []), ("bad", [ABSENT])):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(source, folder / "vocab.txt")  # alone: no tokenizer.json beside it
        config = {
            "tokenizer_class": "BertTokenizer",
            "do_lower_case": True,
            **specials,
            "pad_token_id": ids["[PAD]"],
            "additional_special_tokens": extra,
        }
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    for target in (tmp_path / "good", tmp_path / "good" / "vocab.txt"):
        assert check(target)[1] == [], target
    for target in (tmp_path / "bad", tmp_path / "bad" / "vocab.txt", tmp_path / "bad" / "tokenizer_config.json"):
        code, rows = check(target)
        assert code == 1 and [r["code"] for r in rows] == ["config-token-missing"], target
        assert ABSENT in rows[0]["message"] and "vocab.txt" in rows[0]["message"]


# ---- the server: an open config file beside a tokenizer.model --------------------------------

from tests.lsp.test_model_folder import client, open_file, published  # noqa: E402, F401 (a fixture)


async def test_server_checks_a_config_beside_a_sentencepiece_model(client, tmp_path):
    model = model_path(MODELS[1])
    for name, missing in (("good", False), ("bad", True)):
        spm_folder(tmp_path / name, model, missing)
    uri, _ = open_file(client, tmp_path / "bad" / "tokenizer_config.json")
    diags = await published(client, uri)
    assert [d.code for d in diags if d.code in CONFIG_CODES] == ["config-token-missing"]
    assert ABSENT in next(d.message for d in diags if d.code == "config-token-missing")
    uri, _ = open_file(client, tmp_path / "good" / "tokenizer_config.json")
    assert [d.code for d in await published(client, uri) if d.code in CONFIG_CODES] == []
