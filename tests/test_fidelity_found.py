"""Fidelity found with real files the other tests did not cover (issue 25).

Each expectation comes from the format's own library run on the same bytes (tiktoken's
loader, HF tokenizers, transformers' AutoTokenizer on a folder built here), never from
our code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tokenizer_lsp.core.files import decoded_rows, index_file

tiktoken_load = pytest.importorskip("tiktoken.load", reason="tiktoken is needed to know what tiktoken reads")


def run_cli(*args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# ---- decode of a .tiktoken: the token as stored --------------------------------------------


def test_tiktoken_decode_shows_the_field_as_stored(tmp_path, monkeypatch):
    """`= 2` is the empty token: its row's `token` is the stored `=`, not the canonical ""
    of its (no) bytes; a non-canonical field (`QR==`) is shown as written too."""
    data = b"IQ== 0\nIg== 1\n= 2\nQR== 3\n"
    path = tmp_path / "x.tiktoken"
    path.write_bytes(data)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken caches by path otherwise
    ranks = tiktoken_load.load_tiktoken_bpe(str(path), expected_hash=None)
    # the fields as tiktoken's loader splits them, rank -> field
    fields = {int(r): t.decode() for t, r in (line.split() for line in data.splitlines() if line)}
    rows = {r["id"]: r for r in decoded_rows(index_file(str(path)))}
    assert {i: r["token"] for i, r in rows.items()} == fields
    assert {i: bytes.fromhex(r["bytes"]) for i, r in rows.items()} == {r: b for b, r in ranks.items()}
    code, out, _ = run_cli("decode", "--format", "jsonl", str(path))
    assert code == 0
    assert {json.loads(l)["id"]: json.loads(l)["token"] for l in out.splitlines()} == fields
