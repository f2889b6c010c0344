"""The command line as users run it: pairing of files, what is and is not a tokenizer file."""

import json
import shutil
import subprocess
import sys

import pytest
from tokenizer_lsp.core.detect import content_kind
from tokenizer_lsp.core.index.build import build_index

from tests.conftest import ROOT, corpus_file

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

GPT2_STYLE = ROOT / "examples" / "gpt2-style"


def check(*args, cwd=None):
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", "--format", "json", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else []), p.stderr


def test_each_merges_file_is_checked_against_its_own_vocabulary(tmp_path):
    """Two pairs in one call: the example's merges against the example's vocab, GPT-2's
    against GPT-2's (checking one against the other would give ~50000 false errors)."""
    encoder, bpe = corpus_file("gpt2-openai/encoder.json"), corpus_file("gpt2-openai/vocab.bpe")
    mine = tmp_path / "mine"
    shutil.copytree(GPT2_STYLE, mine)
    for order in (
        [mine / "vocab.json", mine / "merges.txt", encoder, bpe],
        [mine / "merges.txt", encoder, bpe, mine / "vocab.json"],
    ):
        code, rows, _ = check(*order)
        assert code == 0, [r for r in rows if r["severity"] == "error"][:3]
        assert not [r for r in rows if r["code"].startswith("merge-")]
    # a merges file with no vocabulary of its own in the call uses the one given before it
    lone = tmp_path / "lone" / "merges.txt"
    lone.parent.mkdir()
    lone.write_text("#version: 0.2\nĠ t\nĠ zzz\n", encoding="utf-8")
    code, rows, _ = check(encoder, lone)
    assert code == 1 and [(r["code"], r["range"]["start"]["line"]) for r in rows if r["path"] == str(lone)] == [
        ("merge-result-missing", 2),
        ("merge-unknown-token", 2),
    ]


@pytest.mark.parametrize(
    "name,text",
    [
        ("counts.txt", "the 1061396\nof 593677\nand 416629\nto 411239\n"),
        ("shader.txt", "#version 330 core\nlayout (location = 0) in vec3 aPos;\nvoid main() {}\n"),
        ("notes.md", "#version history\n\nWe shipped a new tokenizer.\n"),
        ("config.json", '{"model": "gpt-4", "vocab": 5, "merges": [1, 2}'),
        ("package.json", '{"name": "x", "added_tokens": 3, "dependencies": {'),
    ],
)
def test_other_files_are_not_claimed(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, rows, err = check(path)
    assert (code, rows) == (2, []) and "not a tokenizer file" in err


def test_detection_by_content():
    assert content_kind(b"IQ== 0\nIg== 1\nIw== 2\n") == "tiktoken"
    assert content_kind(b"IQ==\t0\nIg==  1\n") == "tiktoken"  # tiktoken splits on any whitespace
    assert content_kind(b"IQ== 5\nIg== 1\n") is None  # ranks must rise
    assert content_kind(b"#version: 0.2\n\xc4\xa0 t\n") == "merges"
    assert content_kind(b'{"a": 1}') == "json"
    # a broken tokenizer.json under another name is still recognised: it gets json-syntax
    broken = b'{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "model": {"type": "BPE", "vocab": {"a": 0,}}}'
    idx = build_index(broken, "/x/my-tokenizer-backup.json")
    assert idx.is_tokenizer and [f.code for f in idx.findings] == ["json-syntax"]


def test_binary_data_named_like_a_tokenizer_file_gets_one_finding(tmp_path):
    junk = bytes(range(256)) * 40 + b"\n" * 50
    for name, code_name in (("merges.txt", "merge-malformed"), ("x.tiktoken", "tiktoken-malformed")):
        path = tmp_path / name
        path.write_bytes(junk)
        code, rows, _ = check(path)
        assert code == 1 and [r["code"] for r in rows] == [code_name]
        assert "binary" in rows[0]["message"] and rows[0]["range"]["start"] == {"line": 0, "character": 0}


def test_decode_reports_a_break_in_merges_parsed_apart(tmp_path):
    data = corpus_file("llama2/tokenizer.json").read_bytes()
    cut = data.index(b'",', data.index(b'"merges"') + 50000)
    (tmp_path / "tokenizer.json").write_bytes(data[:cut] + b'"' + data[cut:])
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "decode", str(tmp_path / "tokenizer.json")],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 1 and "invalid JSON" in p.stderr and p.stdout == ""


def test_check_of_files_loads_no_jinja_and_asks_ldconfig_nothing(tmp_path):
    """What a `check` of tokenizer files imports: no Jinja (only a model folder's templates need
    it: 32 ms) and not ctypes.util, whose find_library runs `ldconfig -p` (a fork and an exec
    at every start of a command line and of the server)."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tokenizer_lsp", "check", str(ROOT / "examples" / "tokenizer.json")],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert "tokenizer_lsp.core.index.build" in imported  # the premise: the list is of this run's imports
    assert not {m for m in imported if m.split(".")[0] == "jinja2" or m == "ctypes.util"}
