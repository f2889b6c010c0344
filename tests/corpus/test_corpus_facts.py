"""The facts of shared/corpus/README.md that tests/corpus/test_corpus.py does not cover, checked
through the product (indexes, decoded rows, the CLI); json only as an independent
cross-check. Skipped when the corpus is absent."""

import functools
import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
from tokenizer_lsp.core.decoding import Scheme
from tokenizer_lsp.core.decoding.listing import decoded_rows
from tokenizer_lsp.core.index.files import index_file

from tests.conftest import corpus_file

# never reads unreachable-token findings: each file's set computed once a run (conftest.py)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")


@functools.lru_cache(maxsize=1)
def indexed(rel: str) -> SimpleNamespace:
    """One file's index at a time (the large ones hold hundreds of MB), with its merges
    as parsed (building the lookup tables drops them from the vocabulary)."""
    idx = index_file(str(corpus_file(rel)))
    v = idx.vocab
    return SimpleNamespace(idx=idx, v=v, merges=idx.merges())


def rows_of(rel: str) -> list[dict]:
    return list(decoded_rows(indexed(rel).idx))


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True, check=False)


def assert_every_token_decodes_with_the_gpt2_table(rel: str, rows: list[dict]) -> None:
    """README: no token of the byte-level files has a character outside the byte alphabet:
    every vocab row decodes through the table (none falls back to its own UTF-8)."""
    f = indexed(rel)
    assert {r["kind"] for r in rows[: len(f.v.tokens)]} == {"byte-level"}
    assert not any(x.code == "not-byte-level" for x in f.idx.findings)


def named_token(message: str) -> str:
    return re.match(r"`([^`]*)`", message).group(1)


BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]
NOT_UTF8_ALONE = set(BYTE_TOKENS[0x80:])


# ---- qwen3: 151643 (+26 added), merges as pairs over 4 lines each --------------------------


def test_qwen3_added_tokens_sit_above_the_vocab():
    f = indexed("qwen3/tokenizer.json")
    assert len(f.v.tokens) == 151643 and len(f.v.added) == 26
    assert not any(t in f.v.tokens for t in f.v.added)  # "+26": none of them is a vocab entry
    assert min(f.v.added.values()) > max(f.v.tokens.values())
    rows = rows_of("qwen3/tokenizer.json")
    assert len(rows) == 151643 + 26 and {r["kind"] for r in rows[151643:]} <= {"special", "literal"}
    assert_every_token_decodes_with_the_gpt2_table("qwen3/tokenizer.json", rows)
    assert len(json.loads(f.idx.data)["added_tokens"]) == 26  # cross-check


def test_qwen3_merges_are_pairs_over_four_lines():
    f = indexed("qwen3/tokenizer.json")
    assert f.v.merges_as_pairs and len(f.merges) == 151387
    assert all(type(m) is list and len(m) == 2 for m in f.merges)
    idx = f.idx
    idx.prepare_lookups()
    start = idx.doc.merges_start
    refs = [r for r in idx.tokens_in(start, start + 4000) if r.role == "merge" and r.part == 0]
    lines = [idx.lines.position(r.start)[0] for r in refs]
    assert [r.rank for r in refs] == list(range(len(refs))) and len(refs) > 20
    assert {b - a for a, b in zip(lines, lines[1:])} == {4}


# ---- llama3: string merges, 256 added tokens all above the vocab -----------------------------


def test_llama3_vocab_and_string_merges():
    f = indexed("llama3/tokenizer.json")
    assert f.v.scheme is Scheme.BYTE_LEVEL and len(f.v.tokens) == 128000
    assert not f.v.merges_as_pairs and len(f.merges) == 280147
    assert all(type(m) is str and m.count(" ") == 1 for m in f.merges)
    assert len(f.v.added) == 256 and not any(t in f.v.tokens for t in f.v.added)
    assert min(f.v.added.values()) > max(f.v.tokens.values())
    assert_every_token_decodes_with_the_gpt2_table("llama3/tokenizer.json", rows_of("llama3/tokenizer.json"))


# ---- gemma3: 262144, 6415 added (6414 in the vocab), 514906 pair merges ------------------


def test_gemma3_added_tokens_mostly_in_the_vocab():
    f = indexed("gemma3/tokenizer.json")
    assert len(f.v.tokens) == 262144
    assert len(f.idx.doc.added_list) == 6415 and len(f.v.added) == 6415
    assert sum(t in f.v.tokens for t in f.v.added) == 6414
    # no added-token-mismatch: the ones in the vocab have their vocab id
    assert all(f.v.tokens[t] == i for t, i in f.v.added.items() if t in f.v.tokens)


def test_gemma3_merges_pairs_with_raw_newlines_and_tabs():
    f = indexed("gemma3/tokenizer.json")
    assert f.v.merges_as_pairs and len(f.merges) == 514906
    parts = [p for m in f.merges for p in m]
    # SentencePiece style: a newline is itself, not the byte-level Ċ
    assert any("\n" in p for p in parts) and any("\t" in p for p in parts)


def test_gemma3_byte_fallback_tokens_are_the_only_fragments():
    f = indexed("gemma3/tokenizer.json")
    assert f.v.scheme is Scheme.SENTENCEPIECE and all(t in f.v.tokens for t in BYTE_TOKENS)
    assert sum(t.startswith("▁") for t in f.v.tokens) > 100_000
    assert {named_token(x.message) for x in f.idx.findings} == NOT_UTF8_ALONE
    rows = rows_of("gemma3/tokenizer.json")
    assert len(rows) == 262144 + 1  # the one added token outside the vocab
    # no text token is a fragment: every row that is not valid UTF-8 is a byte token
    broken = [r for r in rows if r["utf8"] != "valid"]
    assert len(broken) == 128 and {r["kind"] for r in broken} == {"byte-fallback"}
    assert {r["token"] for r in broken} == NOT_UTF8_ALONE


# ---- llama2: 32000, 58980 string merges, byte fallback, through the CLI --------------------


def test_llama2_counts():
    f = indexed("llama2/tokenizer.json")
    assert f.v.scheme is Scheme.SENTENCEPIECE and len(f.v.tokens) == 32000
    assert not f.v.merges_as_pairs and len(f.merges) == 58980
    assert all(t in f.v.tokens for t in BYTE_TOKENS)


def test_llama2_check_json_names_the_128_byte_tokens():
    path = corpus_file("llama2/tokenizer.json")
    done = cli("check", "--format", "json", str(path))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 128 and {r["code"] for r in rows} == {"utf8-fragment"}
    assert {named_token(r["message"]) for r in rows} == NOT_UTF8_ALONE
    lines = path.read_text(encoding="utf-8").split("\n")  # cross-check: each on its key's line
    for r in rows:
        line, col = r["range"]["start"]["line"], r["range"]["start"]["character"]
        assert lines[line][col:].startswith(f'"{named_token(r["message"])}":')


# ---- GPT-2 encoder.json + vocab.bpe; whisper's vocab.json + merges.txt ----------------------


def test_gpt2_encoder_is_one_ascii_line_with_35908_escapes():
    f = indexed("gpt2-openai/encoder.json")
    idx = f.idx
    assert idx.format == "vocab.json" and idx.lines.line_count == 1 and idx.data.isascii()
    assert len(f.v.tokens) == 50257
    idx.prepare_lookups()
    literals = idx.tokens_in(0, len(idx.data))
    assert len(literals) == 50257
    assert sum(idx.data[r.start : r.end].count(b"\\u") for r in literals) == 35908
    assert idx.data.count(b"\\u") == 35908  # cross-check: no escape outside the keys
    assert_every_token_decodes_with_the_gpt2_table("gpt2-openai/encoder.json", rows_of("gpt2-openai/encoder.json"))


def test_gpt2_decode_jsonl_rows():
    done = cli("decode", "--format", "jsonl", str(corpus_file("gpt2-openai/encoder.json")))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 50257
    the = next(r for r in rows if r["token"] == "\u0120the")  # "\u0120the" in the file
    assert the == {
        "id": the["id"],
        "token": "Ġthe",
        "bytes": "20746865",
        "text": " the",
        "utf8": "valid",
        "kind": "byte-level",
    }
    assert sum(r["utf8"] != "valid" for r in rows) == 344


@pytest.mark.parametrize(
    "vocab,merges,header",
    [
        ("gpt2-openai/encoder.json", "gpt2-openai/vocab.bpe", "#version: 0.2"),
        ("whisper-gpt2/vocab.json", "whisper-gpt2/merges.txt", "#version: 0.2 - Trained by `huggingface/tokenizers`"),
    ],
)
def test_vocab_and_merges_pair_check_clean(vocab, merges, header):
    m = indexed(merges)
    assert m.idx.doc.has_header and m.idx.data.split(b"\n", 1)[0].decode().rstrip() == header
    assert len(m.merges) == 50000 and m.idx.findings == []
    done = cli("check", "--show-hints", str(corpus_file(vocab)), str(corpus_file(merges)))
    assert done.returncode == 0 and done.stdout.count("utf8-fragment") == 344  # hints: printed when asked


def test_whisper_vocab_is_one_raw_utf8_line():
    f = indexed("whisper-gpt2/vocab.json")
    idx = f.idx
    assert idx.lines.line_count == 1 and not idx.data.isascii() and len(f.v.tokens) == 50257
    idx.prepare_lookups()
    literals = idx.tokens_in(0, len(idx.data))
    assert len(literals) == 50257 and not any(b"\\u" in idx.data[r.start : r.end] for r in literals)
    assert_every_token_decodes_with_the_gpt2_table("whisper-gpt2/vocab.json", rows_of("whisper-gpt2/vocab.json"))


# ---- all-MiniLM: WordPiece on one line ----------------------------------------------------


def test_minilm_wordpiece_on_one_line():
    f = indexed("all-minilm-l6-v2/tokenizer.json")
    v = f.v
    assert f.idx.lines.line_count == 1
    assert v.model_type == "WordPiece" and v.scheme is Scheme.WORDPIECE and v.subword_prefix == "##"
    assert len(v.tokens) == 30522 and not f.merges
    assert sum(t.startswith("##") for t in v.tokens) > 1000
    rows = rows_of("all-minilm-l6-v2/tokenizer.json")
    assert len(rows) == 30522 and {r["kind"] for r in rows} == {"literal", "special"}
    assert all(r["utf8"] == "valid" for r in rows)


# ---- o200k: ranks -----------------------------------------------------------------------


def test_o200k_ranks_are_raw_bytes():
    f = indexed("openai-tiktoken/o200k_base.tiktoken")
    assert f.idx.format == "tiktoken" and f.v.scheme is Scheme.RAW_BYTES
    assert len(f.v.tokens) == 199998
