"""`stats` says each thing once and says what is true: the format named once, tekken's
special tokens as mistral-common numbers them, and an unreachable count wherever `check`
computes one (the same computation) or, where it does not, why.

Expected numbers come from each format's own library: mistral-common's Tekkenizer for
tekken, sentencepiece's ModelProto for a .model's model type, tokenizers'
WordPiece.read_file and BertWordPieceTokenizer for a vocab.txt.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from mistral_common.tokens.tokenizers.tekken import Tekkenizer
from sentencepiece import sentencepiece_model_pb2
from tokenizers.implementations import BertWordPieceTokenizer
from tokenizers.models import WordPiece

from tests.conftest import corpus_file
from tests.lsp.harness import (
    client,  # noqa: F401 (a fixture: it records each publication)
    diagnostics_for_version,
)


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def stats(*args) -> tuple[dict, dict[str, str]]:
    """(stats --format json of one file, its text rows by label)."""
    p = cli("stats", "--format", "json", *args)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    t = cli("stats", *args)
    assert t.returncode == 0, t.stderr
    rows = {}
    for line in t.stdout.splitlines()[1:]:
        label, sep, value = line.strip().partition("  ")
        if sep and not line.startswith("    "):
            rows[label] = value.strip()
    return json.loads(p.stdout)[0], rows


def check_codes(path) -> list[str]:
    p = cli("check", "--format", "json", path)
    assert "Traceback" not in p.stderr, p.stderr
    return [f["code"] for f in json.loads(p.stdout)]


# ---- the format, once ----------------------------------------------------------------


def test_a_sentencepiece_model_is_named_once():
    path = corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3")
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(path.read_bytes())
    model_type = sentencepiece_model_pb2.TrainerSpec.ModelType.Name(proto.trainer_spec.model_type)
    _, rows = stats("--no-unreachable", path)
    assert rows["format"] == f"sentencepiece, {model_type}"  # was "sentencepiece, BPE, sentencepiece"


def test_a_vocab_txt_is_named_once():
    _, rows = stats("--no-unreachable", corpus_file("all-minilm-l6-v2/vocab.txt"))
    assert rows["format"] == "wordpiece"  # was "wordpiece, WordPiece, wordpiece"


# ---- tekken: control tokens before the vocabulary --------------------------------------


def tekken_files() -> list[Path]:
    data = Path(importlib.util.find_spec("mistral_common").origin).parent / "data"
    return [corpus_file("mistral-tekken/tekken_240718.json"), *sorted(data.glob("tekken*.json"))]


def listed_tekken(tmp_path) -> Path:
    """A v7 file listing its specials, one of them not a control token."""
    vocab = [bytes([i]) for i in range(256)] + [b"he", b"hello", b" world"]
    specials = [
        {"rank": i, "token_str": s, "is_control": s != "[TOOL_RESULTS]"}
        for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[TOOL_RESULTS]"])
    ]
    import base64

    obj = {
        "config": {
            "pattern": r"\p{L}+|\s+|.",
            "num_vocab_tokens": len(vocab),
            "default_vocab_size": 266,
            "default_num_special_tokens": 10,
            "version": "v7",
        },
        "vocab": [
            {"rank": i, "token_bytes": base64.b64encode(b).decode(), "token_str": None} for i, b in enumerate(vocab)
        ],
        "special_tokens": specials,
    }
    path = tmp_path / "tekken_listed.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


@pytest.mark.parametrize("which", ["corpus", "mistral-common", "listed"])
def test_tekken_special_tokens_are_mistral_commons(which, tmp_path):
    path = {
        "corpus": lambda: tekken_files()[0],
        "mistral-common": lambda: tekken_files()[-1],
        "listed": lambda: listed_tekken(tmp_path),
    }[which]()
    tk = Tekkenizer.from_file(path)
    obj = json.loads(path.read_text(encoding="utf-8"))
    n = tk.num_special_tokens
    named = len(obj["special_tokens"]) if "special_tokens" in obj else len(Tekkenizer.DEPRECATED_SPECIAL_TOKENS)
    # what mistral-common made of the rest: its fillers
    assert [t["token_str"] for t in tk._all_special_tokens[named:]] == [
        Tekkenizer.SPECIAL_TOKEN_TEMPLATE.format(id=i) for i in range(named, n)
    ]
    control = sum(1 for t in tk._all_special_tokens if t["is_control"])
    assert all(tk.is_special(i) for i in range(n)) and not tk.is_special(n)
    s, rows = stats(path)
    assert (s["vocab_size"], s["special_tokens"], s["special_ids"]) == (tk.n_words, n, [0, n - 1])
    assert (s["control_tokens"], s["named_special_tokens"], s["filler_special_tokens"]) == (control, named, n - named)
    assert (s["vocab_entries_used"], s["vocab_entries_in_file"]) == (tk._model.n_vocab, len(obj["vocab"]))
    assert s["added_tokens"] == 0 and "added tokens" not in rows  # was "added tokens  0 (1,000 special, ...)"
    what = "control tokens" if control == n else f"{control:,} of them control tokens"
    assert rows["special tokens"] == (
        f"{n:,} ({what} at ids 0..{n - 1}, before the vocabulary: {named:,} named, {n - named:,} <SPECIAL_n> fillers)"
    )
    assert rows["vocab size"] == (
        f"{tk.n_words:,} ({n:,} special + {tk._model.n_vocab:,} of the file's {len(obj['vocab']):,} vocab entries)"
    )


# ---- unreachable: check's count, or why there is none ---------------------------------

SENTENCES = ["The quick brown fox jumps over the lazy dog in new york.", "Word pieces, unbelievably!"] * 30
PHRASES = ["new york", "los angeles", "e . g", "a\tb"]


def test_vocab_txt_unreachable_is_checks_wordpiece_count(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES), encoding="utf-8")
    tok = BertWordPieceTokenizer(lowercase=True)
    tok.train([str(corpus)], vocab_size=120, min_frequency=1)
    tok.save_model(str(tmp_path))
    path = tmp_path / "vocab.txt"
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    lines[6:6] = PHRASES
    lines.insert(40, "")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    theirs = WordPiece.read_file(str(path))
    bert = BertWordPieceTokenizer(str(path), lowercase=True)
    never = {i for t, i in theirs.items() if not t or any(c.isspace() for c in t)}
    # each one is a token tokenizers' own BertWordPieceTokenizer never gives for its text
    assert never and all(i not in bert.encode(t, add_special_tokens=False).ids for t, i in theirs.items() if i in never)
    assert check_codes(path).count("wordpiece-unreachable") == len(never)
    s, rows = stats(path)
    assert s["unreachable"] == len(never)  # was null: "not computed"
    assert rows["unreachable"].startswith(f"{len(never)} (wordpiece-unreachable: ")
    s, _ = stats("--no-unreachable", path)  # read off the file: nothing to load, counted anyway
    assert s["unreachable"] == len(never)


def test_the_corpus_vocab_txt_counts_what_check_finds():
    path = corpus_file("all-minilm-l6-v2/vocab.txt")
    s, rows = stats(path)
    assert s["unreachable"] == check_codes(path).count("wordpiece-unreachable")
    assert "other WordPiece tokens are not tested" in rows["unreachable"]


@pytest.mark.parametrize(
    "rel,why",
    [
        ("mistral-tekken/tekken_240718.json", "`check` has no unreachable-token test for tekken files"),
        ("gguf/ggml-vocab-gpt-2.gguf", "`check` has no unreachable-token test for GGUF files"),
        ("gguf/ggml-vocab-llama-spm.gguf", "`check` has no unreachable-token test for GGUF files"),
        ("all-minilm-l6-v2/tokenizer.json", "`check` tests BPE models only, and this one is WordPiece"),
    ],
)
def test_where_check_does_not_count_stats_says_why(rel, why):
    path = corpus_file(rel)
    assert "unreachable-token" not in check_codes(path)  # the reason is true: check gives none
    s, rows = stats(path)
    assert s["unreachable"] is None and s["unreachable_not_computed"] == why
    assert rows["unreachable"] == f"not computed: {why}"  # was a bare "not computed" (or "0")


def test_turned_off_says_so():
    _, rows = stats("--no-unreachable", corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3"))
    assert rows["unreachable"] == "not computed: --no-unreachable"
    _, rows = stats("--no-unreachable", corpus_file("llama2/tokenizer.json"))
    assert rows["unreachable"] == "not computed: --no-unreachable"


# ---- the server's stats command says the same -----------------------------------------


@pytest.mark.parametrize(
    "rel", ["mistral-tekken/tekken_240718.json", "all-minilm-l6-v2/vocab.txt", "all-minilm-l6-v2/tokenizer.json"]
)
async def test_the_servers_stats_are_the_command_lines(client, rel):  # noqa: F811
    """An open tekken file or vocab.txt: the editor's stats are `stats`' (the server said
    "added tokens 1,000 (1,000 special, 1,000 outside the vocab)" and 130,072 tokens for
    tekken), the unreachable count or why there is none included."""
    path = corpus_file(rel)
    want, rows = stats(path)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="plaintext", version=1, text=path.read_text(encoding="utf-8"))
        )
    )
    await diagnostics_for_version(client, uri, 1, timeout=180)  # indexed (a loaded machine takes its time)
    got = await client.workspace_execute_command_async(types.ExecuteCommandParams("tokenizer-lsp.stats", [uri]))
    keys = (
        "format",
        "vocab_size",
        "special_tokens",
        "added_tokens",
        "unreachable",
        "unreachable_not_computed",
        "control_tokens",
        "vocab_entries_used",
    )
    assert {k: got.get(k) for k in keys} == {k: want.get(k) for k in keys}
    assert rows["unreachable"] in got["text"]
