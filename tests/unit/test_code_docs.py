"""Every diagnostic code has its documentation page (what, why, an example, the fix, how to
silence it), generated from core/codes/__init__.py beside DEFAULT_SEVERITY; every example that this
build can read really produces its code when `check` runs on it."""

from __future__ import annotations

import importlib.util
import re
import tempfile
from pathlib import Path

import pytest
from tokenizer_lsp.core.codes import DOCS, missing
from tokenizer_lsp.core.index.files import index_file
from tokenizer_lsp.core.model import DEFAULT_SEVERITY

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "scripts" / "docs_pages.py")
docs_pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_pages)


def test_every_code_has_its_documentation():
    assert missing() == []
    assert set(DOCS) == set(DEFAULT_SEVERITY)  # no page for a code that does not exist


def test_every_code_the_source_can_emit_is_registered():
    """A `Finding("code", ...)` anywhere in the server names a code of DEFAULT_SEVERITY (so it
    has a page): read from the source, not from the registry."""
    emitted = set()
    for path in (ROOT / "server" / "tokenizer_lsp").rglob("*.py"):
        emitted |= set(re.findall(r'Finding\(\s*"([a-z0-9-]+)"', path.read_text(encoding="utf-8")))
    assert emitted and emitted <= set(DEFAULT_SEVERITY), emitted - set(DEFAULT_SEVERITY)


def _recognised(files: dict[str, str]) -> bool:
    """Does this build read the example's files as tokenizer files (its format plug-in is in)?"""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        return any(index_file(str(Path(tmp) / name)).is_tokenizer for name in files)


@pytest.mark.parametrize("code", list(DEFAULT_SEVERITY))
def test_the_page_has_an_example_and_a_fix(code):
    doc = DOCS[code]
    output = docs_pages.run_example(code)
    if doc.example and _recognised(doc.example):
        assert output is not None, f"check on the example of {code} reports no {code}"
        assert all(f" {DEFAULT_SEVERITY[code]} {code} " in line or f" {code} " in line for line in output.splitlines())
    else:  # binary formats, or a format whose plug-in is not in this build: the output as printed
        assert re.match(rf"^\S+:\S+: (error|warning|information|hint) {re.escape(code)} \S", doc.shown), doc.shown
    page = docs_pages.code_page(code, output)
    for heading in ("## What it means", "## Why it matters", "## Example", "## How to fix", "## How to silence it"):
        body = page.split(heading, 1)[1].split("\n## ", 1)[0].strip()
        assert body, (code, heading)
    example = page.split("## Example", 1)[1].split("\n## ", 1)[0]
    assert "```console" in example and f" {code} " in example
    assert f"--severity {code}=off" in page


def test_codes_index_links_every_page():
    table = docs_pages.codes_index()
    assert [m for m in re.findall(r"\[`([a-z0-9-]+)`\]\(\1\.md\)", table)] == list(DEFAULT_SEVERITY)


def test_settings_table_lists_every_setting_of_the_manifest():
    import json

    props = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["contributes"]["configuration"][
        "properties"
    ]
    table = docs_pages.settings_table()
    assert [line.split("`")[1] for line in table.splitlines()[2:]] == list(props)


def test_bench_section_is_built_from_whatever_json_is_there(tmp_path):
    assert "No results" in docs_pages.bench_section(tmp_path)
    (tmp_path / "latest.json").write_text(
        '{"machine_cores": 2, "rows": [{"file": "/c/qwen3/tokenizer.json", "scale": "1x", "bytes": 11400000, '
        '"open_to_diagnostics_s": 0.3, "from_file_s": 0.4, "ratio": 0.75}], "typing_soak": {"growth_mb_per_1000": 0.01}}'
    )
    (tmp_path / "other.json").write_text('{"encode": {"p50_ms": 3.2}}')
    page = docs_pages.bench_section(tmp_path)
    assert "| qwen3/tokenizer.json | 11.4 | 0.30 s | 0.40 s | 0.75 |" in page
    assert "`typing_soak.growth_mb_per_1000` | 0.01 |" in page and "`encode.p50_ms` | 3.2 |" in page


def test_the_vsix_readme_lists_every_command_and_setting_of_the_manifest():
    """client-vscode/README.md is the Marketplace page: every command a user can run and
    every setting, read from package.json."""
    import json

    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["contributes"]
    readme = (ROOT / "client-vscode" / "README.md").read_text(encoding="utf-8")
    for c in manifest["commands"]:
        assert f"**{c['category']}: {c['title']}**" in readme, c
    for key in manifest["configuration"]["properties"]:
        assert f"`{key}`" in readme, key
    assert "pip install" not in readme  # the package carries the server
