"""What a new user meets first in the README and the docs site works as it is written.

- The first install instruction installs from the clone (nothing is on PyPI, the Marketplace or
  Open VSX until the release workflow publishes it), and the README names exactly the places
  that workflow publishes to.
- Every `$ tokenizer-lsp ...` in a console block of the home page and Getting started shows
  its output, and that output is what the command prints now.
- The home page's before/after block fits the content column at 1280 px.
- The contributing page runs mkdocs from the venv its own line installs it into.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import unicodedata

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
FROM_AN_INDEX = re.compile(r"\b(pipx install|uv tool install|pip install)\s+tokenizer-lsp\b")
# mkdocs-material at a 1280 px window: a 736 px grid less both sidebars' margins and the code
# block's padding leaves 656 px; Roboto Mono at 13.6 px is 8.2 px a column: 80 columns
COLUMNS_AT_1280_PX = 80


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.M | re.S)


def section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


@pytest.mark.parametrize("page", [README, DOCS / "getting-started.md"], ids=lambda p: p.name)
def test_the_first_install_instruction_installs_from_the_clone(page):
    text = page.read_text(encoding="utf-8")
    installs = [b for b in blocks(text, "sh") if "install" in b]
    assert installs, f"{page.name} has no install instruction"
    first = installs[0]
    assert not FROM_AN_INDEX.search(first), (
        f"{page.name}'s first install instruction needs a published package: {first}"
    )
    assert re.search(r"pip install -e \.", first), first


def test_the_readme_names_where_the_release_workflow_publishes():
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    steps = {"PyPI": "pypa/gh-action-pypi-publish", "VS Code Marketplace": "vsce publish", "Open VSX": "ovsx@"}
    published = {place for place, step in steps.items() if step in workflow}
    assert published == set(steps)  # the workflow as it is: all three
    install = section(README.read_text(encoding="utf-8"), "## Install")
    said = " ".join(
        line for line in install.splitlines() if "release" in line or "publishes" in line or "Open VSX" in line
    )
    for place in published:
        assert place in said, f"README's Install does not say the release publishes to {place}"


def console_commands(page) -> list[tuple[str, list[str]]]:
    """($ command, the output lines the page shows under it) of each console block."""
    out = []
    for block in blocks(page.read_text(encoding="utf-8"), "console"):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *shown = part.rstrip("\n").split("\n")
            out.append((command, shown))
    return out


@pytest.mark.parametrize("page", [DOCS / "index.md", DOCS / "getting-started.md"], ids=lambda p: p.name)
def test_each_command_a_page_shows_has_its_real_output(page):
    commands = console_commands(page)
    assert commands
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "NO_COLOR": "1"}
    run_it = f"{shlex.quote(sys.executable)} -m tokenizer_lsp"
    for command, shown in commands:
        assert command.startswith("tokenizer-lsp "), command
        assert shown, f"{page.name} shows `{command}` without its output"
        r = subprocess.run(
            command.replace("tokenizer-lsp", run_it, 1),
            shell=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
            check=False,
        )
        assert r.stdout.rstrip("\n").split("\n") == shown, f"{page.name}: `{command}` prints\n{r.stdout}{r.stderr}"


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


@pytest.mark.parametrize("page", [README, DOCS / "index.md"], ids=lambda p: p.name)
def test_the_before_after_block_fits_at_1280_px(page):
    [block] = [b for b in blocks(page.read_text(encoding="utf-8"), "text") if "tokenizer-lsp shows" in b]
    wide = [line for line in block.splitlines() if columns(line) > COLUMNS_AT_1280_PX]
    assert not wide, wide


def test_the_contributing_page_runs_mkdocs_from_the_venv_it_installs_into():
    text = (DOCS / "contributing" / "index.md").read_text(encoding="utf-8")
    lines = [line.strip() for b in blocks(text, "sh") for line in b.splitlines()]
    installs = [line for line in lines if "install" in line and "docs" in line or "mkdocs-material" in line]
    assert installs and all(line.startswith(".venv/bin/pip") for line in installs), installs
    runs = [line for line in lines if re.match(r"(\S*/)?mkdocs ", line)]
    assert runs and all(line.startswith(".venv/bin/mkdocs ") for line in runs), runs
