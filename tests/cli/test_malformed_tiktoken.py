"""A `.tiktoken` file with a line that is not `base64 rank` (issue 32): tiktoken's own loader
refuses the file, so every command exits 1 on it, and `decode`/`stats` say which line they
leave out instead of dropping it silently."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest
from tiktoken.load import load_tiktoken_bpe

PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def run_cli(*args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def files(tmp_path):
    tokens = [bytes([i]) for i in range(256)] + [b"he", b"ll", b"hell", b"hello", b" w", b"orld", b" world"]
    good = b"".join(b"%s %d\n" % (base64.b64encode(t), r) for r, t in enumerate(tokens))
    lines = good.splitlines(keepends=True)
    bad = b"".join(lines[:100]) + b"not base64 at all x y\n" + b"".join(lines[100:])
    ok, broken = tmp_path / "ok.tiktoken", tmp_path / "broken.tiktoken"
    ok.write_bytes(good)
    broken.write_bytes(bad)
    return ok, broken


def test_every_command_exits_1_and_names_the_line(files):
    ok, broken = files
    with pytest.raises(ValueError):  # the oracle: tiktoken refuses the file
        load_tiktoken_bpe(str(broken))
    want = load_tiktoken_bpe(str(ok))  # what is left without the malformed line
    codes = {}
    for cmd in (
        ["check"],
        ["encode", "hello", "--pattern", PATTERN],
        ["decode", "--format", "jsonl"],
        ["stats", "--format", "json", "--pattern", PATTERN],
    ):
        code, out, err = run_cli(cmd[0], str(broken), *cmd[1:])
        codes[cmd[0]] = code
        if cmd[0] in ("decode", "stats"):
            assert f"{broken}:101:1: tiktoken-malformed" in err, err  # the line left out, named
            assert "leaves out 1 malformed line" in err
        if cmd[0] == "decode":
            rows = [json.loads(line) for line in out.splitlines()]
            assert {base64.b64decode(r["token"]): r["id"] for r in rows} == want
        if cmd[0] == "stats":
            assert json.loads(out)[0]["vocab_size"] == len(want)
    assert codes == {"check": 1, "encode": 1, "decode": 1, "stats": 1}
    for cmd in (["check"], ["encode", "hello", "--pattern", PATTERN], ["decode"], ["stats", "--pattern", PATTERN]):
        # the file without that line: all fine
        assert run_cli(cmd[0], str(ok), *cmd[1:])[0] == 0
