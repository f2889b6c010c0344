"""A GGUF checked against the HF folder it was converted from (issue 27's conversion bugs).

The HF folder is built with `tokenizers` (gguf_fixtures.hf_folder); the GGUFs are written with
`gguf.GGUFWriter` as convert_hf_to_gguf.py writes them, faithfully or with one bug each.
Each bug must give its code; the faithful copy none of the gguf-* codes and no error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from tokenizer_lsp.core.checks.tables import table_findings
from tokenizer_lsp.core.formats.gguf import PLUGIN
from tokenizer_lsp.core.formats.gguf.source_checks import PROBES

from tests.conftest import ROOT
from tests.gguf_fixtures import BUG_NAMES, bugs, converted, hf_folder, write_gguf

GGUF_CODES = {"gguf-pre-missing", "gguf-token-type", "gguf-mismatch", "gguf-special-id", "gguf-chat-template"}


@pytest.fixture(scope="module")
def hf(tmp_path_factory):
    return hf_folder(tmp_path_factory.mktemp("hf") / "model")


def _cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True, env=env, timeout=120
    )


def _codes(table, source=None) -> set[str]:
    return {f.code for f in table_findings(table, PLUGIN, source)}


def test_faithful_conversion_beside_its_folder_gives_no_finding(hf):
    path = write_gguf(hf / "model.gguf", converted(hf))
    found = table_findings(PLUGIN.read(str(path)), PLUGIN)
    assert not [f for f in found if f.code in GGUF_CODES or f.severity == "error"], found


@pytest.mark.parametrize("name", BUG_NAMES)
def test_each_conversion_bug_gives_its_code(hf, tmp_path, name):
    code, conv = bugs(converted(hf))[name]
    path = write_gguf(tmp_path / "model.gguf", conv)
    table = PLUGIN.read(str(path))
    assert code in _codes(table, str(hf)), name
    assert not _codes(table) & (GGUF_CODES - {"gguf-pre-missing"})  # nothing to compare with here


def test_bug_findings_name_the_id_or_key_and_both_values(hf, tmp_path):
    conv = bugs(converted(hf))["eos-end-of-text"][1]
    table = PLUGIN.read(str(write_gguf(tmp_path / "model.gguf", conv)))
    [f] = [f for f in table_findings(table, PLUGIN, str(hf)) if f.code == "gguf-special-id"]
    cfg = json.loads((hf / "tokenizer_config.json").read_text())
    tj = json.loads((hf / "tokenizer.json").read_text())
    want = next(a["id"] for a in tj["added_tokens"] if a["content"] == cfg["eos_token"])
    assert f.key == "tokenizer.ggml.eos_token_id"
    assert str(conv["eos"]) in f.message and str(want) in f.message


def test_check_cli_with_hf_dir_argument(hf, tmp_path):
    """`check model.gguf HF_DIR`: the folder is the source, not a folder to check."""
    faithful = write_gguf(tmp_path / "ok.gguf", converted(hf))
    bad = write_gguf(tmp_path / "bad.gguf", bugs(converted(hf))["start-of-turn-normal"][1])
    r = _cli("check", "--format", "json", str(faithful), str(hf))
    assert r.returncode == 0, r.stderr
    assert not {f["code"] for f in json.loads(r.stdout)} & GGUF_CODES
    assert {f["path"] for f in json.loads(r.stdout)} <= {str(faithful)}
    r = _cli("check", "--format", "json", str(bad), str(hf))
    assert r.returncode == 1
    found = [f for f in json.loads(r.stdout) if f["code"] == "gguf-token-type"]
    tj = json.loads((hf / "tokenizer.json").read_text())
    want = next(a["id"] for a in tj["added_tokens"] if a["content"] == "<start_of_turn>")
    assert [f["id"] for f in found] == [want] and found[0]["range"] is None


def test_encode_equals_hf_tokenizers_on_the_source(hf, tmp_path):
    from tokenizers import Tokenizer

    table = PLUGIN.read(str(write_gguf(tmp_path / "model.gguf", converted(hf))))
    tok = Tokenizer.from_file(str(hf / "tokenizer.json"))
    for text in PROBES:
        assert PLUGIN.encode(table, text, False, None) == tok.encode(text, add_special_tokens=False).ids, text


def test_diff_gguf_against_tokenizer_json(hf, tmp_path):
    faithful = write_gguf(tmp_path / "ok.gguf", converted(hf))
    r = _cli("diff", "--format", "json", str(faithful), str(hf / "tokenizer.json"))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert not d["vocab"]["added"] and not d["vocab"]["removed"] and not d["merges"]["added"]
    conv = bugs(converted(hf))["token-text-changed"][1]
    changed = write_gguf(tmp_path / "changed.gguf", conv)
    d = json.loads(_cli("diff", "--format", "json", str(changed), str(hf / "tokenizer.json")).stdout)
    tj = json.loads((hf / "tokenizer.json").read_text())
    lost = next(t for t, i in tj["model"]["vocab"].items() if conv["tokens"][i] != t)
    assert [v["token"] for v in d["vocab"]["added"]] == [lost]


def test_gguf_alone_in_a_folder_without_source(hf, tmp_path):
    path = tmp_path / "model.gguf"
    write_gguf(path, bugs(converted(hf))["eos-end-of-text"][1])
    assert not (tmp_path / "tokenizer.json").exists()
    assert not _codes(PLUGIN.read(str(path))) & GGUF_CODES
    shutil.copy(hf / "tokenizer.json", tmp_path)
    shutil.copy(hf / "tokenizer_config.json", tmp_path)
    assert "gguf-special-id" in _codes(PLUGIN.read(str(path)))


SPM_MODEL = ROOT / "tests" / "data" / "sentencepiece" / "botchan_en_bpe_1000.model"


def test_llama_gguf_against_its_tokenizer_model(tmp_path):
    """A `llama` GGUF converted from a SentencePiece tokenizer.model: encode equals
    SentencePieceProcessor.encode, the faithful copy gives no gguf-* finding, a CONTROL
    piece written NORMAL gives gguf-token-type."""
    import sentencepiece as spm

    from tests.gguf_fixtures import spm_conversion, write_spm_gguf

    folder = tmp_path / "hf"
    folder.mkdir()
    shutil.copy(SPM_MODEL, folder / "tokenizer.model")
    conv = spm_conversion(folder / "tokenizer.model")
    path = write_spm_gguf(folder / "model.gguf", conv)
    table = PLUGIN.read(str(path))
    sp = spm.SentencePieceProcessor(model_file=str(SPM_MODEL))
    # texts the .model's nmt_nfkc normalizer leaves as they are (llama.cpp applies none)
    for text in ("It was the best of times.", "I'll don't WE'RE you've", "HelloWorld camelCase x", "$100 + 20%", ""):
        assert PLUGIN.encode(table, text, False, None) == sp.encode(text), text
    assert not _codes(table) & GGUF_CODES
    control = conv["types"].index(3)
    types = list(conv["types"])
    types[control] = 1
    bad = write_spm_gguf(tmp_path / "bad.gguf", {**conv, "types": types})
    found = [f for f in table_findings(PLUGIN.read(str(bad)), PLUGIN, str(folder)) if f.code == "gguf-token-type"]
    assert [f.id for f in found] == [control]


def test_diff_llama_gguf_against_its_tokenizer_model(tmp_path):
    from tests.gguf_fixtures import spm_conversion, write_spm_gguf

    conv = spm_conversion(SPM_MODEL)
    path = write_spm_gguf(tmp_path / "model.gguf", conv)
    r = _cli("diff", "--format", "json", str(path), str(SPM_MODEL))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert not d["vocab"]["added"] and not d["vocab"]["removed"] and not d["model"]
    renamed = list(conv["tokens"])
    k = conv["types"].index(1)
    renamed[k] += "x"
    d = json.loads(
        _cli(
            "diff",
            "--format",
            "json",
            str(write_spm_gguf(tmp_path / "b.gguf", {**conv, "tokens": renamed})),
            str(SPM_MODEL),
        ).stdout
    )
    assert [v["token"] for v in d["vocab"]["added"]] == [conv["tokens"][k]]
