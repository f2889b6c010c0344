"""The test run installs its own oracles and never skips for want of one.

A test module that skipped when a package was missing hid whole formats from a fresh clone's
run (mistral-common: two modules, 58 tests, skipped on a new machine). So: every module the
tests import is installed by `pip install -e '.[test]'` (the package's dependencies, the
test extra and what those pull in), and `pytest.importorskip` of a missing module fails the
run (tests/conftest.py)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

# modules of this repository, importable in the tests by their path
OWN = {"tests", "tokenizer_lsp", "build_vsix", "bench"}


def imported_modules() -> dict[str, set[str]]:
    """top-level module -> the test files importing it (import statements and importorskip)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "importorskip"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names = [node.args[0].value]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in OWN and top != "__future__":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def installed_by_the_test_extra() -> set[str]:
    """Distribution names `pip install -e '.[test]'` installs: pyproject's dependencies and
    test extra, and everything they require in turn (as installed here)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(req.name) or []
        except metadata.PackageNotFoundError:
            continue  # named but not installed here: the import below then finds no distribution
        for r in map(Requirement, requires):
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                todo.append(r)
    return seen


@pytest.mark.skipif(sys.version_info < (3, 11), reason="reads pyproject.toml with the stdlib's tomllib (3.11+)")
def test_every_module_the_tests_import_is_installed_by_the_test_extra():
    dists = metadata.packages_distributions()
    installed = installed_by_the_test_extra()
    missing = {}
    for module, files in sorted(imported_modules().items()):
        providers = {canonicalize_name(d) for d in dists.get(module, ())}
        if not providers & installed:
            missing[module] = (sorted(providers) or "not installed", sorted(files)[:3])
    assert not missing, f"imported by the tests but not installed by pip install -e '.[test]': {missing}"


def test_a_test_importing_a_missing_module_fails_instead_of_skipping(tmp_path):
    """Through tests/conftest.py: importorskip at module level and inside a test."""
    (tmp_path / "test_needs_a_missing_oracle.py").write_text(
        textwrap.dedent("""
        import pytest

        pytest.importorskip("no_such_oracle_module_at_module_level")

        def test_runs():
            pass
    """)
    )
    (tmp_path / "test_needs_it_inside.py").write_text(
        textwrap.dedent("""
        import pytest

        def test_runs():
            pytest.importorskip("no_such_oracle_module_in_a_test", reason="the reference")

        def test_an_installed_one_is_returned():
            assert pytest.importorskip("json").dumps(1) == "1"
    """)
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "server")])}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            "-rA",
            "--continue-on-collection-errors",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "no_such_oracle_module_at_module_level is not importable" in out
    assert "no_such_oracle_module_in_a_test is not importable (the reference)" in out
    assert "1 passed" in out and "skipped" not in out, out
