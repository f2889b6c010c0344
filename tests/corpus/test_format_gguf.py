"""The GGUF plug-in on real vocab-only GGUFs: the corpus's two, and the rest of
llama-cpp-python's sdist (vendor/llama.cpp/models/: ggml-vocab-*.gguf with llama.cpp's own
test texts and expected ids, *.gguf.inp / *.gguf.out: tests/llama_cpp_vocabs.py finds it in
a cache folder or downloads it); the tests that need it fail, saying why, when it cannot be
had.

Expected values come from `gguf.GGUFReader` (llama.cpp's Python reader), llama.cpp's .out
files and `tokenizers`' decoders, never from our code."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from tokenizer_lsp.core.formats import registry
from tokenizer_lsp.core.formats.gguf import PLUGIN
from tokenizer_lsp.core.formats.table import FormatError

from tests import llama_cpp_vocabs
from tests.conftest import ROOT, corpus_file

# never reads unreachable-token findings: each file's set computed once a run (conftest.py)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

# every vocabulary of the sdist with llama.cpp's expected ids beside it
TESTED = [
    "bert-bge",
    "command-r",
    "deepseek-coder",
    "deepseek-llm",
    "falcon",
    "gemma-4",
    "gpt-2",
    "llama-bpe",
    "llama-spm",
    "mpt",
    "phi-3",
    "qwen2",
    "qwen35",
    "refact",
    "starcoder",
]


@pytest.fixture(scope="session")
def sdist_models() -> Path:
    try:
        return llama_cpp_vocabs.models_folder()
    except llama_cpp_vocabs.Unavailable as e:
        # llama.cpp's expected ids are the oracle: without them the run fails, never skips
        pytest.fail(str(e), pytrace=False)


def _inp_out(models: Path, name: str) -> list[tuple[str, list[int]]]:
    base = models / f"ggml-vocab-{name}.gguf"
    if not (base.with_suffix(".gguf.inp")).is_file():
        pytest.fail(f"{base}.inp is absent: TESTED names a vocabulary without llama.cpp's expected ids", pytrace=False)
    # test-tokenizer-0.cpp's format: each text followed by "\n__ggml_vocab_test__\n"; one line of ids each
    texts = base.with_suffix(".gguf.inp").read_bytes().decode("utf-8").split("\n__ggml_vocab_test__\n")[:-1]
    outs = base.with_suffix(".gguf.out").read_bytes().decode("utf-8").split("\n")
    return [(t, [int(x) for x in o.split()]) for t, o in zip(texts, outs)]


@pytest.mark.parametrize("name", TESTED)
def test_encode_equals_llama_cpp_expected_ids(sdist_models, name):
    cases = _inp_out(sdist_models, name)
    table = PLUGIN.read(str(sdist_models / f"ggml-vocab-{name}.gguf"))
    assert cases
    for text, ids in cases:
        assert PLUGIN.encode(table, text, False, None) == ids, text


def _reader_arrays(path: Path) -> dict:
    """tokens, types, scores, merges and scalar keys as gguf.GGUFReader reads them (read
    once a file: gguf's reader takes seconds on a 50k-token vocabulary; callers only read)."""
    return _read_arrays(str(path))


@cache
def _read_arrays(path: str) -> dict:
    import gguf

    r = gguf.GGUFReader(path)
    out = {}
    for key, f in r.fields.items():
        if f.types and f.types[0] == gguf.GGUFValueType.ARRAY and f.types[-1] == gguf.GGUFValueType.STRING:
            out[key] = [bytes(f.parts[i]).decode("utf-8") for i in f.data]
        elif f.types and f.types[0] == gguf.GGUFValueType.ARRAY:
            out[key] = [f.parts[i][0].item() for i in f.data]
        elif f.types == [gguf.GGUFValueType.STRING]:
            out[key] = bytes(f.parts[-1]).decode("utf-8")
        else:
            out[key] = f.parts[-1][0].item()
    return out


@pytest.mark.parametrize("rel", ["gguf/ggml-vocab-llama-spm.gguf", "gguf/ggml-vocab-gpt-2.gguf"])
def test_rows_equal_gguf_reader(rel):
    path = corpus_file(rel)
    want = _reader_arrays(path)
    table = PLUGIN.read(str(path))
    assert [r.token for r in table.rows] == want["tokenizer.ggml.tokens"]
    assert [r.id for r in table.rows] == list(range(len(want["tokenizer.ggml.tokens"])))
    names = {1: "NORMAL", 2: "UNKNOWN", 3: "CONTROL", 4: "USER_DEFINED", 5: "UNUSED", 6: "BYTE"}
    assert [r.type for r in table.rows] == [names[t] for t in want["tokenizer.ggml.token_type"]]
    if "tokenizer.ggml.scores" in want:
        assert [r.score for r in table.rows] == want["tokenizer.ggml.scores"]
    assert list(table.meta["_merges"] or []) == want.get("tokenizer.ggml.merges", [])
    assert table.meta["model_type"] == want["tokenizer.ggml.model"]
    assert table.meta["pre"] == want.get("tokenizer.ggml.pre")
    for key in ("bos", "eos", "unknown"):
        assert table.meta.get(f"{key}_token_id") == want.get(f"tokenizer.ggml.{key}_token_id")
    assert table.meta.get("add_bos_token") == want.get("tokenizer.ggml.add_bos_token")


@pytest.mark.parametrize("rel", ["gguf/ggml-vocab-llama-spm.gguf", "gguf/ggml-vocab-gpt-2.gguf"])
def test_bytes_agree_with_tokenizers_decoders(rel):
    from tokenizers import decoders

    table = PLUGIN.read(str(corpus_file(rel)))
    if table.meta["model_type"] == "gpt2":
        dec = decoders.ByteLevel()
    else:
        dec = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse()])
    rows = [r for r in table.rows if r.type in ("NORMAL", "BYTE")]
    assert rows
    for r in rows[::37]:
        assert r.data.decode("utf-8", "replace") == dec.decode([r.token]), r


def test_sniff_and_registry(tmp_path):
    path = corpus_file("gguf/ggml-vocab-gpt-2.gguf")
    assert registry.sniff_path(str(path)) is PLUGIN
    other = tmp_path / "model.gguf"
    other.write_bytes(b'{"not": "gguf"}')
    assert registry.sniff_path(str(other)) is not PLUGIN


def test_read_bytes_equals_read():
    path = corpus_file("gguf/ggml-vocab-llama-spm.gguf")
    a, b = PLUGIN.read(str(path)), PLUGIN.read_bytes(path.read_bytes(), str(path))
    assert a.rows == b.rows


def test_sparse_model_reads_same_tokens_as_vocab_only(tmp_path):
    """A GGUF with a tensor (a 256 MB hole) gives the vocabulary of its metadata."""
    from tests.gguf_fixtures import write_gguf

    src = _reader_arrays(corpus_file("gguf/ggml-vocab-gpt-2.gguf"))
    conv = {
        "tokens": src["tokenizer.ggml.tokens"],
        "types": src["tokenizer.ggml.token_type"],
        "merges": src["tokenizer.ggml.merges"],
        "pre": "gpt-2",
        "bos": 50256,
        "eos": 50256,
        "template": None,
    }
    path = write_gguf(tmp_path / "big.gguf", conv, tensor_bytes=256 << 20)
    assert path.stat().st_size > 256 << 20
    table = PLUGIN.read(str(path))
    assert [r.token for r in table.rows] == src["tokenizer.ggml.tokens"]
    assert table.meta["tensors"] == 1


def _s(b: bytes) -> bytes:
    return struct.pack("<Q", len(b)) + b


def _head(n_tensors: int, n_kv: int) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv)


LIES = {
    "2^60 keys": _head(0, 2**60) + _s(b"tokenizer.ggml.model") + struct.pack("<I", 8) + _s(b"gpt2"),
    "2^40 tokens": _head(0, 1) + _s(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2**40) + _s(b"a"),
    "2^50-byte string": _head(0, 1) + _s(b"tokenizer.ggml.model") + struct.pack("<IQ", 8, 2**50) + b"gpt2",
    "2^62 scores": _head(0, 1) + _s(b"tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 2**62) + b"\0" * 16,
    "unknown type": _head(0, 1) + _s(b"tokenizer.ggml.model") + struct.pack("<I", 77) + b"\0" * 32,
    "no tokens": _head(0, 1) + _s(b"general.name") + struct.pack("<I", 8) + _s(b"x"),
    "header only": b"GGUF\x03\x00",
    "arrays nested 10,000 deep": _head(0, 1)
    + _s(b"tokenizer.ggml.x")
    + struct.pack("<I", 9)
    + struct.pack("<IQ", 9, 1) * 10000
    + struct.pack("<IQ", 0, 0),
}


@pytest.mark.parametrize("name", sorted(LIES))
def test_lying_header_is_one_format_error(name):
    import gc

    assert gc.isenabled()
    with pytest.raises(FormatError):
        PLUGIN.read_bytes(LIES[name], None)
    assert gc.isenabled()  # the reader pauses the collector and gives it back, also on error


def _cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize("name", sorted(LIES) + ["truncated"])
def test_lying_or_truncated_file_gets_one_line_and_exit_2(tmp_path, name):
    path = tmp_path / "model.gguf"
    if name == "truncated":
        data = corpus_file("gguf/ggml-vocab-gpt-2.gguf").read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        path.write_bytes(LIES[name])
    for cmd in ("check", "stats", "decode"):
        r = _cli(cmd, str(path))
        assert r.returncode == 2, (cmd, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
        assert "GGUF" in r.stderr


def test_decode_rows_carry_type_and_score():
    import json

    path = corpus_file("gguf/ggml-vocab-llama-spm.gguf")
    r = _cli("decode", "--format", "jsonl", str(path))
    assert r.returncode == 0
    rows = [json.loads(line) for line in r.stdout.split("\n") if line]  # not splitlines: U+2028 in a token
    want = _reader_arrays(path)
    assert [row["token"] for row in rows] == want["tokenizer.ggml.tokens"]
    assert [row["score"] for row in rows] == pytest.approx(want["tokenizer.ggml.scores"])
    assert {row["type"] for row in rows} == {"NORMAL", "UNKNOWN", "CONTROL", "BYTE"}


def test_encode_special_follows_add_bos(sdist_models):
    path = sdist_models / "ggml-vocab-llama-spm.gguf"
    want = _reader_arrays(path)
    table = PLUGIN.read(str(path))
    plain = PLUGIN.encode(table, "Hello world", False, None)
    special = PLUGIN.encode(table, "Hello world", True, None)
    bos = [want["tokenizer.ggml.bos_token_id"]] if want["tokenizer.ggml.add_bos_token"] else []
    eos = [want["tokenizer.ggml.eos_token_id"]] if want["tokenizer.ggml.add_eos_token"] else []
    assert special == bos + plain + eos


def test_check_alone_finds_old_gguf_without_pre(sdist_models):
    """aquila's vocabulary predates tokenizer.ggml.pre: gguf-pre-missing, and its bos is a
    NORMAL token (special-id)."""
    import json

    path = sdist_models / "ggml-vocab-aquila.gguf"
    want = _reader_arrays(path)
    assert "tokenizer.ggml.pre" not in want and want["tokenizer.ggml.model"] == "gpt2"
    r = _cli("check", "--format", "json", str(path))
    codes = {f["code"] for f in json.loads(r.stdout)}
    assert "gguf-pre-missing" in codes
    assert ("special-id" in codes) == (want["tokenizer.ggml.token_type"][want["tokenizer.ggml.bos_token_id"]] == 1)
