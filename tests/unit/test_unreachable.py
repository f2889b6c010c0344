"""unreachable-token: the tokens a tokenizer can never produce, against the corpus facts
(shared/corpus/README.md) and sets computed here with the engines themselves; `check`
output. The server publishing them is in tests/lsp/test_unreachable_server.py.

The whole-vocabulary computations on qwen3 and gemma3 take seconds (the engine's BPE on
every token): they run once per module (fixtures), and gemma3, the slowest, only with
TOKENIZER_LSP_SLOW_TESTS=1.
"""

import base64
import json
import os
import subprocess
import sys

import pytest
from tokenizer_lsp.core.behaviour.load import load_tokenizer_file
from tokenizer_lsp.core.behaviour.reachability.compute import unreachable_tokens
from tokenizer_lsp.core.behaviour.reachability.fast import unreachable_by_structure

from tests.conftest import corpus_file, gpt2_byte_of

slow = pytest.mark.skipif(
    not os.environ.get("TOKENIZER_LSP_SLOW_TESTS"), reason="several seconds of CPU: set TOKENIZER_LSP_SLOW_TESTS=1"
)


def gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's bytes_to_unicode (openai/gpt-2 encoder.py), inverted: written here so the
    expected sets do not come from the code under test."""
    return gpt2_byte_of()


def byte_level_unreachable(vocab: dict[str, int], tok) -> set[int]:
    """The definition, token by token (encoded in one batch)."""
    table = gpt2_byte_decoder()
    texts, ids = [], []
    for token, tid in vocab.items():
        try:
            text = bytes(table[c] for c in token).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            continue
        if text:
            texts.append(text)
            ids.append(tid)
    encoded = tok.encode_batch(texts, add_special_tokens=False)
    return {tid for tid, e in zip(ids, encoded) if e.ids != [tid]}


def ids_of(entries: list[dict]) -> set[int]:
    return {e["id"] for e in entries}


# ---- the sets ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "vocab,merges",
    [
        ("gpt2-openai/encoder.json", "gpt2-openai/vocab.bpe"),
        ("whisper-gpt2/vocab.json", "whisper-gpt2/merges.txt"),
    ],
)
def test_vocab_json_and_merges_pair_has_only_endoftext(vocab, merges):
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers.models import BPE

    vpath, mpath = corpus_file(vocab), corpus_file(merges)
    tok = Tokenizer(BPE.from_file(str(vpath), str(mpath)))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    expected = byte_level_unreachable(json.loads(vpath.read_text(encoding="utf-8")), tok)
    assert expected == {50256}  # corpus README: `<|endoftext|>`, a special token kept in the vocab
    found = unreachable_tokens(load_tokenizer_file(str(vpath)))
    assert ids_of(found) == expected
    (e,) = found
    assert e["token"] == "<|endoftext|>" and e["text"] == "<|endoftext|>"
    assert [p["id"] for p in e["pieces"]] == tok.encode("<|endoftext|>").ids
    assert "pre-tokenizer splits it" in e["reason"]


def test_llama2_has_none():
    """SentencePiece-style with a prefix space (Prepend ▁): each token checked here by
    encoding `«` + its text and dropping what covers the `«`."""
    from tokenizers import Tokenizer

    path = corpus_file("llama2/tokenizer.json")
    tok = Tokenizer.from_file(str(path))
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    kept = [(t, i) for t, i in vocab.items() if not (len(t) == 6 and t.startswith("<0x"))]
    encoded = tok.encode_batch(["«" + t.replace("▁", " ") for t, _ in kept], add_special_tokens=False)
    missed = [
        tid for (_, tid), e in zip(kept, encoded) if [i for i, (_, end) in zip(e.ids, e.offsets) if end > 1] != [tid]
    ]
    # three special tokens live in llama2's vocab: `<unk>`, `<s>`, `</s>` are added tokens
    added = {a["id"] for a in json.loads(path.read_text(encoding="utf-8"))["added_tokens"]}
    assert set(missed) <= added
    assert unreachable_tokens(load_tokenizer_file(str(path))) == []


@pytest.fixture(scope="module")
def qwen3():
    path = corpus_file("qwen3/tokenizer.json")
    return path, unreachable_tokens(load_tokenizer_file(str(path)))


def test_qwen3_facts(qwen3):
    from tokenizers import Tokenizer

    path, found = qwen3
    assert len(found) == 1909  # corpus README
    ids = ids_of(found)
    assert {128244, 128245, 128247} <= ids  # <unk>, <s>, </s> inside model.vocab
    by_token = {e["token"]: e for e in found}
    nfc = by_token["ÃªÌģ"]  # ê + U+0301: NFC makes it ế, one token of its own
    assert nfc["text"] == "ê\u0301" and [p["id"] for p in nfc["pieces"]] == [26068]
    assert nfc["pieces"][0]["text"] == "ế" and "normalizer rewrites it" in nfc["reason"]
    # every reported token really encodes otherwise, to the pieces reported
    tok = Tokenizer.from_file(str(path))
    for e in found:
        assert tok.encode(e["text"], add_special_tokens=False).ids == [p["id"] for p in e["pieces"]] != [e["id"]]
    # and a sample of the others really encodes to itself (one in 20, all kinds of tokens)
    table = gpt2_byte_decoder()
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    for token, tid in list(vocab.items())[::20]:
        try:
            text = bytes(table[c] for c in token).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if tid not in ids:
            assert tok.encode(text, add_special_tokens=False).ids == [tid], token


def test_qwen3_read_off_the_merges_is_the_engines_set(qwen3):
    """core/behaviour/reachability/fast.py: the same entries (ids, reasons, pieces) without
    the model in the engine; the worker answers that way and never loads it."""
    from tokenizer_lsp.engine.worker import Worker

    path, found = qwen3
    data = path.read_bytes()
    assert unreachable_by_structure(data, str(path)) == found
    worker = Worker()
    assert worker.handle({"op": "unreachable", "key": ("doc", 1), "data": data, "path": str(path)}) == {"result": found}
    assert not worker.loaded


def test_llama3_has_none():
    """ignore_merges: a piece that is a vocab entry is taken whole (corpus README: 0)."""
    path = corpus_file("llama3/tokenizer.json")
    assert unreachable_tokens(load_tokenizer_file(str(path))) == []
    assert unreachable_by_structure(path.read_bytes(), str(path)) == []  # and read off its shape


def test_sentencepiece_conversions_and_prefix_spaces_are_left_to_the_engine():
    """llama2 lists several splits of a token in score order and adds a prefix space: the
    merges' structure says nothing there (the engine's set is tested above)."""
    path = corpus_file("llama2/tokenizer.json")
    assert unreachable_by_structure(path.read_bytes(), str(path)) is None


def test_an_added_token_inside_a_text_is_left_to_the_engine(tmp_path):
    """qwen3 with an added token `ing`: texts holding it are split by it, which the engine
    tells; made by hand so the shape is known."""
    obj = json.loads(corpus_file("qwen3/tokenizer.json").read_text(encoding="utf-8"))
    obj["added_tokens"].append(
        {
            "id": 151669,
            "content": "ing",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": False,
        }
    )
    data = json.dumps(obj).encode("utf-8")
    assert unreachable_by_structure(data, str(tmp_path / "tokenizer.json")) is None


@slow
def test_gemma3_exactly_four():
    from tokenizers import Tokenizer

    path = corpus_file("gemma3/tokenizer.json")
    found = unreachable_tokens(load_tokenizer_file(str(path)))
    assert ids_of(found) == {146179, 160098, 189366, 220206}
    tok = Tokenizer.from_file(str(path))
    for e in found:
        assert e["reason"] == "no merge builds it"
        assert tok.encode(e["text"], add_special_tokens=False).ids == [p["id"] for p in e["pieces"]]


def test_tiktoken_o200k_against_tiktoken_itself(monkeypatch):
    """o200k_base built by tiktoken's own registry code (its pattern), reading the corpus
    file instead of downloading; every rank checked with encode_ordinary."""
    import tiktoken
    import tiktoken_ext.openai_public as public
    from tiktoken.load import load_tiktoken_bpe

    path = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    monkeypatch.setattr(
        public, "load_tiktoken_bpe", lambda url, expected_hash=None: load_tiktoken_bpe(str(path), expected_hash)
    )
    enc = tiktoken.Encoding(**public.o200k_base())
    expected = set()
    for data, rank in load_tiktoken_bpe(str(path)).items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text and enc.encode_ordinary(text) != [rank]:
            expected.add(rank)
    found = unreachable_tokens(load_tokenizer_file(str(path)))
    assert ids_of(found) == expected and expected
    for e in found:
        assert base64.b64decode(e["token"]).decode("utf-8") == e["text"]
        assert [p["id"] for p in e["pieces"]] == enc.encode_ordinary(e["text"])


def test_wordpiece_is_outside_the_definition():
    assert unreachable_tokens(load_tokenizer_file(str(corpus_file("all-minilm-l6-v2/tokenizer.json")))) == []


# ---- check -----------------------------------------------------------------------------------


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True, check=False
    )


def test_check_reports_it_on_the_vocab_entry():
    path = corpus_file("gpt2-openai/encoder.json")
    text = path.read_text(encoding="utf-8")
    done = cli("check", path)
    assert done.returncode == 0, done.stderr  # information: not an error
    rows = [line for line in done.stdout.splitlines() if " unreachable-token " in line]
    col = text.index('"<|endoftext|>"') + 1  # 1-based, on the key literal of the one-line file
    assert len(rows) == 1 and rows[0].startswith(f"{path}:1:{col}: information unreachable-token ")
    assert "`<|endoftext|>` (id 50256)" in rows[0] and "→ `<` (27) + `|` (91) + `end` (437)" in rows[0]
    off = cli("check", "--severity", "unreachable-token=off", path)
    assert off.returncode == 0 and "unreachable-token" not in off.stdout
    # the merges file alone: its findings are on the vocab.json, not here
    assert "unreachable-token" not in cli("check", corpus_file("gpt2-openai/vocab.bpe")).stdout


def test_check_json_on_qwen3_lines(qwen3):
    path, found = qwen3
    done = cli("check", "--format", "json", path)
    rows = [r for r in json.loads(done.stdout) if r["code"] == "unreachable-token"]
    assert len(rows) == 1909 and all(r["severity"] == "information" for r in rows)
    lines = path.read_text(encoding="utf-8").split("\n")
    tokens = {e["token"] for e in found}
    for r in rows:  # each on its key literal (keys open their lines: UTF-16 columns = str ones)
        start = r["range"]["start"]
        literal = lines[start["line"]][start["character"] :]
        key = json.loads(literal[: literal.index('":') + 1])
        assert key in tokens
    nfc = next(r for r in rows if "`ÃªÌģ`" in r["message"])
    assert "(ê + U+0301, id" in nfc["message"] and "→ `ế` (26068)" in nfc["message"]
    assert "the normalizer rewrites it" in nfc["message"]


def test_check_tiktoken_on_the_rank_line():
    path = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    done = cli("check", path)
    rows = [line for line in done.stdout.splitlines() if " unreachable-token " in line]
    lines = path.read_bytes().split(b"\n")
    assert rows
    for row in rows:
        line = int(row[len(str(path)) + 1 :].split(":")[0])
        rank = int(row.split(", rank ")[1].split(")")[0])
        assert int(lines[line - 1].split()[1]) == rank


def test_the_engine_keeps_its_post_processor_for_later_encodes():
    """The batch runs without the post-processor (it adds nothing with add_special_tokens
    off); an `encode --special` of the same loaded engine afterwards still gets its BOS."""
    from tokenizer_lsp.core.behaviour.loaded import LoadedTokenizer
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {"<s>": 0, "a": 1, "b": 2, "ab": 3, "ba": 4, "c": 5}
    tok = Tokenizer(models.BPE(vocab, [("a", "b"), ("b", "a")]))
    tok.pre_tokenizer = pre_tokenizers.Split(pattern="b", behavior="isolated")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    tok.add_special_tokens(["<s>"])
    found = unreachable_tokens(LoadedTokenizer("tokenizers", tok))
    # "ab" and "ba" are split by the pre-tokenizer at every b: unreachable; a, b, c are not
    assert [e["id"] for e in found] == [3, 4]
    assert all("pre-tokenizer splits" in e["reason"] for e in found)
    assert tok.encode("ab", add_special_tokens=True).ids == [0, 1, 2]
    assert tok.encode("ab", add_special_tokens=False).ids == [1, 2]
