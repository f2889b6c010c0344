"""The VS Code client's detect.ts and the server's core/detect.py agree.

The client decides when a document is worth starting the server for; the server decides what
it is. Both read detect_rules.json, but each applies the rules in its own code, so they are run
side by side on the same inputs: detect.ts bundled by esbuild (the project's own bundler, with
`vscode` replaced by a stub: the functions compared do not use it) and run by node.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from tokenizer_lsp.core import detect
from tokenizer_lsp.core.index.build import build_index

from tests.conftest import CORPUS, ROOT

ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
NODE = shutil.which("node")


@pytest.fixture(scope="module", autouse=True)
def node_and_npm_packages():
    """node and `npm ci` are install steps (.ci/run does them): without them this fails,
    it never skips"""
    if NODE is None or not ESBUILD.exists():
        pytest.fail("needs node and the npm packages (npm ci): the client's code runs under node", pytrace=False)


ENTRY = """
import { readFileSync } from 'fs';
import { nameKind, contentKind, looksLikeTokenizerJson, isChatTemplateName, SNIFF_BYTES } from '%s';
const cases = JSON.parse(readFileSync(0, 'utf8'));
const out = cases.map((c) => ({
  name: nameKind(c.path) ?? null,
  template: isChatTemplateName(c.path),
  content: c.text === null ? null : contentKind(c.text, c.path) ?? null,
  json: c.text === null ? null : looksLikeTokenizerJson(c.text.slice(0, SNIFF_BYTES)),
}));
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def client_detect(tmp_path_factory):
    """A function running the client's detection on [{path, text}] cases."""
    work = tmp_path_factory.mktemp("detect-ts")
    (work / "entry.ts").write_text(ENTRY % (ROOT / "client-vscode" / "src" / "detect.ts").as_posix())
    (work / "vscode-stub.js").write_text("module.exports = {};\n")
    subprocess.run(
        [
            str(ESBUILD),
            str(work / "entry.ts"),
            "--bundle",
            "--platform=node",
            "--format=cjs",
            f"--alias:vscode={work / 'vscode-stub.js'}",
            f"--outfile={work / 'detect.js'}",
            "--log-level=error",
        ],
        check=True,
        cwd=ROOT,
    )

    def run(cases: list[dict]) -> list[dict]:
        p = subprocess.run(
            [NODE, str(work / "detect.js")], input=json.dumps(cases), capture_output=True, text=True, check=True
        )
        return json.loads(p.stdout)

    return run


NAMES = [
    "tokenizer.json",
    "/m/Tokenizer.JSON",
    "x/my.tokenizer.json",
    "vocab.json",
    "encoder.json",
    "merges.txt",
    "vocab.bpe",
    "a/MERGES.TXT",
    "clip-merges-v2.txt",
    "bpe_simple_vocab_16e6.txt",
    "o200k_base.tiktoken",
    "x.TIKTOKEN",
    "package.json",
    "tokenizer_config.json",
    "config.json",
    "added_tokens.json",
    "notes.txt",
    "vocab.txt",
    "tokenizer.model",
    "tekken.json",
    "",
    "/a/b/",
]

TEXTS = {
    "counts.txt": "the 1061396\nof 593677\nand 416629\nto 411239\n",
    "shader.txt": "#version 330 core\nlayout (location = 0) in vec3 aPos;\nvoid main() {}\n",
    "notes.md": "#version history\n\nWe shipped a new tokenizer.\n",
    "merges.txt": "#version: 0.2\nĠ t\nĠ a\nh e\n",
    "merges-crlf.txt": "#version: 0.2\r\nĠ t\r\nĠ a\r\n",
    "merges-no-header.txt": "Ġ t\nĠ a\nh e\nĠt he\n",
    "other-no-header.txt": "Ġ t\nĠ a\nh e\nĠt he\n",
    "header-only-merges.txt": "#version: 0.2\n",
    "clip.txt": '"bpe_simple_vocab_16e6.txt#version: 0.2\ni n\nt h\n',
    "bom.tiktoken": "\ufeffIQ== 0\nIg== 1\nIw== 2\n",
    "tabs.tiktoken": "IQ==\t0\nIg==  1\n",
    "falling.tiktoken": "IQ== 5\nIg== 1\n",
    "words.tiktoken": "hello 1\nworld 2\n",
    "empty.txt": "",
    "blank.txt": "\n\n  \n",
    "array.json": "[1, 2, 3]",
    "object.json": '  {"a": 1}',
    "package.json": '{"name": "x", "version": "1.0.0", "dependencies": {"a": "1"}}',
    "hf.json": '{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,'
    ' "pre_tokenizer": null, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}',
    "hf-model-first.json": '{"model": {"dropout": null, "type": "Unigram", "vocab": [["a", 0.0]]}}',
    "broken-hf.json": '{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "model": {"type"',
    "not-hf.json": '{"model": "gpt-4", "vocab": 5, "merges": [1, 2]}',
}


def _corpus_heads() -> dict[str, str]:
    """The start of every text file of the corpus and of examples/ (whole lines, under the
    4 KB content window, so that bytes and characters cut at the same place)."""
    out = {}
    files = [p for p in sorted(CORPUS.glob("*/*")) if p.is_file()] + [
        p for p in sorted((ROOT / "examples").rglob("*")) if p.is_file() and p.suffix != ".py"
    ]
    for p in files:
        data = p.read_bytes()[:3000]
        if detect.looks_binary(data):
            continue
        cut = data.rfind(b"\n") + 1 if b"\n" in data and len(p.read_bytes()) > 3000 else len(data)
        try:
            out[str(p)] = data[: cut or len(data)].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return out


def test_names_are_read_alike(client_detect):
    got = client_detect([{"path": n, "text": None} for n in NAMES])
    assert [g["name"] for g in got] == [detect.name_kind(n) for n in NAMES]


TEMPLATE_NAMES = [
    "/m/chat_template.jinja",
    "/m/Chat_Template.JINJA",
    "/m/additional_chat_templates/tool_use.jinja",
    "/m/additional_chat_templates/notes.txt",
    "/m/templates/index.jinja",
    "/m/chat_template.json",
    "/m/additional_chat_templates/sub/x.jinja",
    "chat_template.jinja",
]


def test_chat_template_names_are_read_alike(client_detect):
    got = client_detect([{"path": n, "text": None} for n in TEMPLATE_NAMES])
    assert [g["template"] for g in got] == [detect.is_chat_template_name(n) for n in TEMPLATE_NAMES]
    assert sum(g["template"] for g in got) == 4


def test_contents_are_read_alike(client_detect):
    texts = {**TEXTS, **_corpus_heads()}
    assert len(texts) > len(TEXTS) + 5 or not CORPUS.is_dir()
    cases = [{"path": name, "text": text} for name, text in texts.items()]
    got = client_detect(cases)
    want = [detect.content_kind(text.encode("utf-8"), name) for name, text in texts.items()]
    assert {n: g["content"] for n, g in zip(texts, got)} == dict(zip(texts, want))


def test_the_client_starts_the_server_for_every_json_the_server_claims(client_detect):
    """Under a name that says nothing (`x.json`), the client's look at the head must agree
    with the server's whole decision (build_index): a file it misses would never be served,
    a file it wrongly claims would start Python for nothing."""
    files = {name: text.encode("utf-8") for name, text in TEXTS.items() if name.endswith(".json")}
    for p in [*CORPUS.glob("*/*.json"), *(ROOT / "examples").rglob("*.json")]:
        if p.stat().st_size < 12_000_000:  # the 33 MB gemma3 adds time, not a case (llama2 is its kind)
            files[str(p)] = p.read_bytes()
    cases = [
        {"path": "/somewhere/x.json", "text": data[: detect.RULES["sniffBytes"]].decode("utf-8", "replace")}
        for data in files.values()
    ]
    got = client_detect(cases)
    for (name, data), g in zip(files.items(), got):
        server = build_index(data, "/somewhere/x.json").is_tokenizer
        assert g["json"] == server, f"{name}: client {g['json']}, server {server}"
