"""WordPiece `vocab.txt`: ids, encodings and checks equal what tokenizers makes of the same
file (WordPiece.read_file, BertWordPieceTokenizer), on the corpus's all-MiniLM vocab.txt and
on vocabularies trained here with tokenizers' own WordPiece trainer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizer_lsp.core.formats.registry import sniff_path
from tokenizer_lsp.core.formats.wordpiece import PLUGIN
from tokenizers import Tokenizer
from tokenizers.implementations import BertWordPieceTokenizer
from tokenizers.models import WordPiece

from tests.conftest import corpus_file

TEXTS = [
    "Hello, World!",
    "unaffable naïve CAFÉ",
    "東京 tower\t42",
    "",
    "[CLS] in the text [SEP]",
    "x" * 120 + " long word",
]


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_ids_are_lines_as_tokenizers_reads_them():
    path = corpus_file("all-minilm-l6-v2/vocab.txt")
    table = PLUGIN.read(str(path))
    theirs = WordPiece.read_file(str(path))
    assert {r.token: r.id for r in table.rows} == theirs
    # the same vocabulary as the tokenizer.json published beside it
    assert {r.token: r.id for r in table.rows} == Tokenizer.from_file(str(path.parent / "tokenizer.json")).get_vocab(
        with_added_tokens=False
    )


def test_encode_equals_bert_wordpiece_tokenizer_on_the_corpus_file():
    path = corpus_file("all-minilm-l6-v2/vocab.txt")
    theirs = BertWordPieceTokenizer(str(path), lowercase=True)
    table = PLUGIN.read(str(path))
    for text in TEXTS:
        for special in (False, True):
            assert PLUGIN.encode(table, text, special, None) == theirs.encode(text, add_special_tokens=special).ids
    p = cli("encode", "--format", "json", "--special", path, TEXTS[1])
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["ids"] == theirs.encode(TEXTS[1]).ids
    assert [t["token"] for t in got["tokens"]] == theirs.encode(TEXTS[1]).tokens


def test_real_file_decode_stats_and_no_findings():
    path = corpus_file("all-minilm-l6-v2/vocab.txt")
    lines = path.read_text(encoding="utf-8").split("\n")
    p = cli("decode", "--format", "jsonl", path)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.split("\n") if line]
    assert [r["token"] for r in rows] == [line.rstrip() for line in lines if line]
    assert [r["id"] for r in rows] == list(range(len(rows)))
    assert all("type" not in r for r in rows)
    p = cli("check", "--format", "json", path)
    assert (p.returncode, json.loads(p.stdout)) == (0, [])
    p = cli("stats", "--format", "json", path)
    s = json.loads(p.stdout)[0]
    assert s["vocab_size"] == len(WordPiece.read_file(str(path))) and s["format"] == "wordpiece"


def test_sniffed_by_content(tmp_path):
    path = corpus_file("all-minilm-l6-v2/vocab.txt")
    renamed = tmp_path / "bert.vocab"
    renamed.write_bytes(path.read_bytes())
    assert sniff_path(str(renamed)) is PLUGIN
    for other in ("whisper-gpt2/merges.txt", "openai-tiktoken/o200k_base.tiktoken", "all-minilm-l6-v2/tokenizer.json"):
        assert sniff_path(str(corpus_file(other))) is not PLUGIN


# ---- vocabularies trained here ----------------------------------------------------------

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Tokenizers split words into word pieces!",
    "Unbelievable, unaffable, unreadable.",
] * 30


@pytest.fixture()
def trained(tmp_path) -> Path:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES), encoding="utf-8")
    tok = BertWordPieceTokenizer(lowercase=False)
    tok.train([str(corpus)], vocab_size=200, min_frequency=1)
    folder = tmp_path / "model"
    folder.mkdir()
    tok.save_model(str(folder))
    return folder / "vocab.txt"


def findings(path: Path) -> list[dict]:
    p = cli("check", "--format", "json", path)
    assert "Traceback" not in p.stderr
    return json.loads(p.stdout)


def test_untouched_trained_vocab_has_no_findings(trained):
    assert findings(trained) == []


def test_do_lower_case_from_the_folder(trained):
    (trained.parent / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False}))
    table = PLUGIN.read(str(trained))
    cased = BertWordPieceTokenizer(str(trained), lowercase=False)
    for text in ("The Quick FOX", "unbelievable Tokenizers"):
        assert PLUGIN.encode(table, text, True, None) == cased.encode(text).ids
    assert cased.encode("The").ids != BertWordPieceTokenizer(str(trained), lowercase=True).encode("The").ids


def test_whitespace_and_empty_lines_are_unreachable(trained):
    lines = trained.read_text(encoding="utf-8").split("\n")[:-1]
    k = len(lines) // 2
    lines[k:k] = ["new york", ""]
    trained.write_text("\n".join(lines) + "\n", encoding="utf-8")
    theirs = BertWordPieceTokenizer(str(trained), lowercase=False)
    assert theirs.token_to_id("new york") == k and k not in theirs.encode("new york", add_special_tokens=False).ids
    found = [f for f in findings(trained) if f["code"] == "wordpiece-unreachable"]
    assert [(f["id"], f["range"]["start"]["line"], f["severity"]) for f in found] == [
        (k, k, "warning"),
        (k + 1, k + 1, "warning"),
    ]


def test_unk_missing_and_duplicate(trained):
    lines = trained.read_text(encoding="utf-8").split("\n")[:-1]
    unk = lines.index("[UNK]")
    lines[unk] = "[UNKNOWN]"
    lines.append(lines[len(lines) // 2])
    trained.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = {f["code"]: f for f in findings(trained)}
    assert found["wordpiece-unk-missing"]["severity"] == "error"
    assert found["duplicate-token"]["id"] == len(lines) - 1
    assert found["duplicate-token"]["range"]["start"]["line"] == len(lines) - 1
    # tokenizers keeps the later line's id for the duplicated token
    assert WordPiece.read_file(str(trained))[lines[-1]] == len(lines) - 1


def test_unk_named_by_the_folder_config(trained):
    (trained.parent / "tokenizer_config.json").write_text(json.dumps({"unk_token": "<unk>"}))
    found = [f for f in findings(trained) if f["code"] == "wordpiece-unk-missing"]
    assert len(found) == 1 and "<unk>" in found[0]["message"]
