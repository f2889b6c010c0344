"""The .vsix leaves out the dependencies of our dependencies that the server never imports
(scripts/build_vsix.py NEVER_IMPORTED: huggingface-hub and what it pulls in, requests...).
Here every engine path runs with those modules unimportable, as in a bundled install:
`check` (unreachable-token included) on a tokenizer.json, a vocab.json + merges pair and a
.tiktoken file, `encode`, `stats`, `diff --text`, the server's and the engine worker's
imports. The expected values come from the engines in this test process (everything
installed)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT, corpus_file

if sys.version_info < (3, 11):  # a platform: build_vsix.py reads TOML with the stdlib's tomllib
    pytest.skip("scripts/build_vsix.py runs on Python 3.11+", allow_module_level=True)
sys.path.insert(0, str(ROOT / "scripts"))
from build_vsix import NEVER_IMPORTED

# distribution name -> the modules it installs
MODULES = {
    "huggingface-hub": ["huggingface_hub"],
    "hf-xet": ["hf_xet"],
    "httpx2": ["httpx", "httpx2"],
    "httpcore2": ["httpcore", "httpcore2"],
    "h11": ["h11"],
    "anyio": ["anyio"],
    "sniffio": ["sniffio"],
    "click": ["click"],
    "truststore": ["truststore"],
    "fsspec": ["fsspec"],
    "tqdm": ["tqdm"],
    "colorama": ["colorama"],
    "pyyaml": ["yaml", "_yaml"],
    "filelock": ["filelock"],
    "packaging": ["packaging"],
    "requests": ["requests"],
    "certifi": ["certifi"],
    "charset-normalizer": ["charset_normalizer"],
    "idna": ["idna"],
    "urllib3": ["urllib3"],
    "tomli": ["tomli"],
}

BLOCKER = textwrap.dedent("""
    import sys
    BLOCKED = set({blocked!r})

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{{name}} is not in the bundle")
            return None

    sys.meta_path.insert(0, Blocker())
""")


def run_blocked(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    blocked = sorted(m for dist in NEVER_IMPORTED for m in MODULES[dist])
    return subprocess.run(
        [sys.executable, "-c", BLOCKER.format(blocked=blocked) + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )


def test_every_left_out_distribution_names_its_modules():
    assert set(MODULES) >= NEVER_IMPORTED


def test_cli_paths_run_without_them(tmp_path):
    qwen3 = corpus_file("qwen3/tokenizer.json")
    vocab = corpus_file("gpt2-openai/encoder.json")
    corpus_file("gpt2-openai/vocab.bpe")
    o200k = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    edited = tmp_path / "tokenizer.json"
    obj = json.loads(qwen3.read_text(encoding="utf-8"))
    obj["model"]["ignore_merges"] = not obj["model"].get("ignore_merges", False)
    edited.write_text(json.dumps(obj), encoding="utf-8")
    files = [str(qwen3), str(vocab), str(o200k)]
    code = f"""
        import contextlib, io, json, sys
        from tokenizer_lsp.cli import main
        import tokenizer_lsp.lsp.server, tokenizer_lsp.engine.worker  # the server's and the worker's imports
        out = {{}}
        for name, argv in [
            ("check", ["check", "--format", "json", *{files!r}]),
            ("encode", ["encode", "--format", "json", {str(qwen3)!r}, "Hello, world! 你好"]),
            ("encode_pair", ["encode", "--format", "json", {str(vocab)!r}, "Hello, world!"]),
            ("stats", ["stats", "--format", "json", *{files!r}]),
            ("diff", ["diff", "--format", "json", "--text", "Hello, world!", {str(qwen3)!r}, {str(edited)!r}]),
        ]:
            buf = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
            with contextlib.redirect_stdout(buf):
                code = main(argv)
            buf.flush()
            out[name] = (code, buf.buffer.getvalue().decode("utf-8"))
        blocked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
        print(json.dumps({{"out": out, "imported": blocked}}))
    """
    # the unreachable-token cache on, as in a default install: check computes and stores each
    # set, stats reads it back (both paths run without the left-out distributions)
    p = run_blocked(code, env={**os.environ, "TOKENIZER_LSP_CACHE_DIR": str(tmp_path / "cache")})
    assert p.returncode == 0, p.stderr[-3000:]
    assert len(list((tmp_path / "cache").rglob("*"))) >= 3  # check stored what stats read
    res = json.loads(p.stdout.strip().splitlines()[-1])
    assert res["imported"] == []
    out = res["out"]

    from tokenizers import Tokenizer

    want = Tokenizer.from_file(str(qwen3)).encode("Hello, world! 你好", add_special_tokens=False).ids
    assert out["encode"][0] == 0 and json.loads(out["encode"][1])["ids"] == want
    assert out["encode_pair"][0] == 0 and json.loads(out["encode_pair"][1])["ids"]
    findings = json.loads(out["check"][1])
    unreachable = {(f["path"], f["code"]) for f in findings if f["code"] == "unreachable-token"}
    assert (str(qwen3), "unreachable-token") in unreachable and (str(vocab), "unreachable-token") in unreachable
    stats = json.loads(out["stats"][1])
    assert [s["unreachable"] for s in stats][:2] == [1909, 1]  # the corpus facts
    assert out["diff"][0] == 1 and "ignore_merges" in out["diff"][1]


def test_the_language_server_starts_without_them():
    p = run_blocked("""
        import sys
        sys.argv = ["tokenizer-lsp", "--help"]
        from tokenizer_lsp.cli import main
        try:
            main()
        except SystemExit:
            pass
        import tokenizer_lsp.lsp.server
        print("ok")
    """)
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-2000:]


if __name__ == "__main__":
    pytest.main([__file__])
