#!/usr/bin/env python3
"""Group tests/test_*.py by behaviour (docs/contributing/tests.md) and gather the LSP session
helpers the test modules import from each other into tests/lsp/harness.py.

    python scripts/regroup_tests.py            # from the repository root, on a clean tree
    python scripts/regroup_tests.py --dry-run  # print the mapping, change nothing

What it does, each step skipped when already done (a second run changes nothing, a run after
more tests/test_*.py files land moves only those):
1. every tests/test_*.py goes to tests/<group>/ with `git mv` (explicit names first, then the
   name rules below) and each group gets an __init__.py; tests/conftest.py and tests/data stay;
2. `Path(__file__)` chains in a moved file get one level more, `from .conftest import` becomes
   `from tests.conftest import`, and an import from another test module names its new place;
3. the helpers of HARNESS_NAMES leave their test module for tests/lsp/harness.py (the module
   imports them back), and every import of them elsewhere points at the harness;
4. tests/vscode becomes tests/editors/vscode (its ROOT one level further up);
5. paths such as tests/test_cli.py in tracked text files (docs, scripts, comments) follow,
   except in CHANGELOG.md, which records history.

The mapping is printed. Rewrites are textual on purpose: it runs once, on files whose import
lines it checks with ast, and the moved tree is checked with `pytest --collect-only`.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
GROUPS = ("unit", "property", "corpus", "lsp", "cli", "editors")

# today's files, by what they hold (a name rule would misplace some of them)
EXPLICIT = {
    "unit": [
        "test_checks",
        "test_code_docs",
        "test_disk_cache",
        "test_engine_pause",
        "test_incremental",
        "test_index_lookups",
        "test_navigation_lookups",
        "test_reachability_cache",
        "test_runtime_fallbacks",
        "test_salvage",
        "test_settings",
        "test_staged_build",
        "test_unreachable",
    ],
    "property": [
        "test_compact_vocab",
        "test_decoding",
        "test_json_layout",
        "test_lines",
        "test_merge_structure",
        "test_position_map",
        "test_positions_property",
    ],
    "corpus": [
        "test_corpus",
        "test_corpus_facts",
        "test_edge_cases_of_real_formats",
        "test_fidelity_found",
        "test_format_sentencepiece",
        "test_format_wordpiece",
        "test_line_formats_fidelity",
        "test_schema_refusals",
    ],
    "lsp": [
        "test_idle_signal",
        "test_server",
        "test_server_editing",
        "test_server_formats",
        "test_navigation",
        "test_navigation_build",
        "test_references_fast",
        "test_references_layouts",
        "test_progress",
        "test_code_actions",
        "test_model_folder",
        "test_transport",
    ],
    "cli": ["test_cli", "test_cli_rules", "test_cli_tables", "test_encode", "test_stats_diff"],
    "editors": ["test_detect_parity", "test_bundle_excludes"],
}
# files not listed above: the first rule whose pattern matches the stem, else "unit"
RULES = [
    ("corpus", ["test_format_*", "test_gguf_*", "*_corpus*", "*fidelity*"]),
    ("lsp", ["test_lsp_*", "test_server*", "*latest_wins*", "*navigation*", "*references*"]),
    ("cli", ["test_cli*", "test_encode*", "test_stats*"]),
    ("property", ["*property*"]),
    ("editors", ["*detect_parity*", "*vsix*", "*editor*"]),
]

HARNESS = TESTS / "lsp" / "harness.py"
HARNESS_MODULE = "tests.lsp.harness"
# (test module, name there) -> name in the harness, in the harness's order (each after what it uses)
HARNESS_NAMES = {
    ("test_server", "capabilities"): "capabilities",
    ("test_server_editing", "make_fixture"): "make_fixture",
    ("test_server_editing", "ident"): "ident",
    ("test_server_editing", "diagnostics_for_version"): "diagnostics_for_version",
    ("test_server_editing", "open_doc"): "open_doc",
    ("test_server_editing", "hover"): "hover",
    ("test_server_editing", "change"): "change",
    ("test_server_editing", "find"): "find",
    ("test_server_editing", "client"): "client",
    ("test_navigation", "client"): "navigation_client",
}
HARNESS_DOC = '''"""The LSP test harness: the client capabilities, session fixtures and wait helpers the LSP
tests share (docs/contributing/tests.md). A fixture imported into a test module is a fixture
of that module: `from tests.lsp.harness import client`, or `navigation_client as client`;
`make_fixture(...)` makes a session with other capabilities or initialization options."""
'''


def group_of(stem: str) -> tuple[str, str]:
    for group, stems in EXPLICIT.items():
        if stem in stems:
            return group, "by name"
    for group, patterns in RULES:
        for pattern in patterns:
            if fnmatch.fnmatch(stem, pattern):
                return group, f"rule {pattern}"
    return "unit", "default"


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def module_places() -> dict[str, str]:
    """Each test module's stem -> its group ('' for tests/ itself)."""
    places = {p.stem: "" for p in TESTS.glob("test_*.py")}
    for group in GROUPS:
        places.update({p.stem: group for p in (TESTS / group).glob("test_*.py")})
    return places


def deeper_paths(text: str) -> str:
    """Path(__file__).parent[.parent...] and .parents[N]: one level more, for a file moved down."""

    def more(m: re.Match) -> str:
        if m.group("n") is not None:
            return f"{m.group('head')}.parents[{int(m.group('n')) + 1}]"
        return m.group("head") + m.group("chain") + ".parent"

    return re.sub(
        r"(?P<head>Path\(__file__\)(?:\.resolve\(\))?)(?:(?P<chain>(?:\.parent\b(?!s))+)|\.parents\[(?P<n>\d+)\])",
        more,
        text,
    )


def test_module_of(node: ast.ImportFrom) -> str | None:
    """The test module an import names (from .test_x, tests.test_x, tests.<group>.test_x), else None."""
    mod = node.module or ""
    if node.level == 1 and mod.startswith("test_"):
        return mod
    parts = mod.split(".")
    if node.level == 0 and parts[0] == "tests" and parts[-1].startswith("test_") and len(parts) in (2, 3):
        return parts[-1]
    return None


def import_line(indent: str, module: str, names: list[tuple[str, str]], comment: str) -> str:
    spelled = [name if name == alias else f"{name} as {alias}" for name, alias in names]
    line = f"{indent}from {module} import {', '.join(spelled)}"
    if len(line) <= 110:
        return line + comment
    inner = "".join(f"\n{indent}    {name}," for name in spelled)
    return f"{indent}from {module} import ({comment}{inner}\n{indent})"


def rewrite_imports(text: str, places: dict[str, str], self_stem: str) -> str:
    """Imports from other test modules name their place; harness names come from the harness."""
    text = re.sub(r"\bfrom \.conftest import", "from tests.conftest import", text)
    lines = text.split("\n")
    nodes = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom) and test_module_of(n)]
    for node in sorted(nodes, key=lambda n: n.lineno, reverse=True):
        src = test_module_of(node)
        first = lines[node.lineno - 1]
        indent = first[: len(first) - len(first.lstrip())]
        comment = first[first.index("#") :] if "#" in first else ""
        comment = "  " + comment if comment else ""
        to_harness, rest = [], []
        for alias in node.names:
            target = HARNESS_NAMES.get((src, alias.name))
            as_name = alias.asname or alias.name
            (to_harness if target else rest).append((target or alias.name, as_name))
        new = []
        if to_harness and self_stem != "harness":
            new.append(import_line(indent, HARNESS_MODULE, to_harness, comment))
        if rest:
            group = places.get(src, "")
            new.append(import_line(indent, ".".join(p for p in ("tests", group, src) if p), rest, comment))
        lines[node.lineno - 1 : node.end_lineno] = new
    return merge_harness_imports("\n".join(lines))


def merge_harness_imports(text: str) -> str:
    """One top-level `from tests.lsp.harness import ...` per module (the helpers imported back
    and the imports rewritten are otherwise two)."""
    tree = ast.parse(text)
    nodes = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == HARNESS_MODULE and n.level == 0]
    if len(nodes) < 2:
        return text
    lines = text.split("\n")
    names = sorted({(a.name, a.asname or a.name) for n in nodes for a in n.names}, key=lambda p: p[1].lower())
    comments = [lines[n.lineno - 1] for n in nodes]
    comment = "  # noqa: F401" if any("noqa" in c for c in comments) else ""
    for node in reversed(nodes[1:]):
        del lines[node.lineno - 1 : node.end_lineno]
    lines[nodes[0].lineno - 1 : nodes[0].end_lineno] = [import_line("", HARNESS_MODULE, names, comment)]
    return "\n".join(lines)


def top_level(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            return node
    return None


def names_used(tree: ast.Module) -> set[str]:
    body = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    return {n.id for node in body for n in ast.walk(node) if isinstance(n, ast.Name)}


def drop_unused_now(before: str, after: str) -> str:
    """`after` without the top-level imported names that `before` used and `after` does not
    (those only the helpers that left used); every other import stays as written."""
    gone = names_used(ast.parse(before)) - names_used(ast.parse(after))
    tree = ast.parse(after)
    lines = after.split("\n")
    for node in reversed([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]):
        keep = [a for a in node.names if (a.asname or a.name.split(".")[0]) not in gone]
        if len(keep) == len(node.names):
            continue
        if not keep:
            del lines[node.lineno - 1 : node.end_lineno]
            continue
        spelled = ", ".join(a.name if not a.asname else f"{a.name} as {a.asname}" for a in keep)
        head = f"from {'.' * node.level}{node.module or ''} import " if isinstance(node, ast.ImportFrom) else "import "
        lines[node.lineno - 1 : node.end_lineno] = [head + spelled]
    return "\n".join(lines)


def add_after_imports(text: str, statements: list[str]) -> str:
    """Statements inserted after the module's last top-level import, those already there left out."""
    tree = ast.parse(text)
    lines = text.split("\n")
    statements = [st for st in statements if f"\n{st}\n" not in f"\n{text}\n"]
    if not statements:
        return text
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    at = imports[-1].end_lineno if imports else (tree.body[0].end_lineno if ast.get_docstring(tree) else 0)
    lines[at:at] = [line for st in statements for line in st.split("\n")]
    return "\n".join(lines)


def plain_imports(path: Path) -> list[str]:
    """A module's top-level imports, except those of test modules (the harness's own header)."""
    text = path.read_text()
    lines = text.split("\n")
    out = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.ImportFrom) and test_module_of(node):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            segment = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            out.append(re.sub(r"\bfrom \.conftest import", "from tests.conftest import", segment))
    return out


def build_harness(places: dict[str, str], dry: bool) -> None:
    harness = HARNESS.read_text() if HARNESS.exists() else HARNESS_DOC
    have = {target for target in HARNESS_NAMES.values() if top_level(ast.parse(harness), target)}
    imported_back: dict[Path, list[str]] = {}
    for (stem, name), target in HARNESS_NAMES.items():
        if target in have or stem not in places:
            continue
        path = TESTS / places[stem] / f"{stem}.py"
        text = path.read_text()
        node = top_level(ast.parse(text), name)
        if node is None:
            print(f"  harness: {stem}.{name} not found, left out")
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        lines = text.split("\n")
        segment = "\n".join(lines[start - 1 : node.end_lineno])
        if target != name:
            segment = re.sub(rf"((?:async )?def ){re.escape(name)}\(", rf"\g<1>{target}(", segment, count=1)
            segment = re.sub(rf"^{re.escape(name)} =", f"{target} =", segment, count=1, flags=re.M)
        print(f"  harness: {stem}.{name} -> {HARNESS_MODULE}.{target}")
        if dry:
            continue
        del lines[start - 1 : node.end_lineno]
        path.write_text(drop_unused_now(text, re.sub(r"\n{4,}", "\n\n\n", "\n".join(lines))))
        imported_back.setdefault(path, []).append((target, name))
        harness = add_after_imports(harness, plain_imports(path))
        harness = harness.rstrip("\n") + "\n\n\n" + segment + "\n"
        have.add(target)
    # the module the helpers left imports them back (its own tests use them)
    for path, names in imported_back.items():
        line = import_line("", HARNESS_MODULE, sorted(names, key=lambda p: p[1].lower()), "  # noqa: F401")
        path.write_text(add_after_imports(path.read_text(), [line]))
    if not dry and harness != HARNESS_DOC:
        HARNESS.write_text(tidy_imports(rewrite_imports(harness, places, "harness")))
        git("add", str(HARNESS.relative_to(ROOT)))


def tidy_imports(text: str) -> str:
    """The harness's imports (taken from every source module) cut to those it uses, one block
    per kind: standard library, third party, ours."""
    tree = ast.parse(text)
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    rest = [n for n in tree.body if n not in imports]
    used = {n.id for node in rest for n in ast.walk(node) if isinstance(n, ast.Name)}
    blocks: dict[int, set[str]] = {0: set(), 1: set(), 2: set()}
    for node in imports:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            if bound not in used:
                continue
            spelled = alias.name if not alias.asname else f"{alias.name} as {alias.asname}"
            top = (
                (node.module or alias.name).split(".")[0]
                if isinstance(node, ast.ImportFrom)
                else alias.name.split(".")[0]
            )
            kind = 2 if top == "tests" else 0 if top in sys.stdlib_module_names else 1
            blocks[kind].add(
                f"from {node.module} import {spelled}" if isinstance(node, ast.ImportFrom) else f"import {spelled}"
            )
    merged = []
    for kind in (0, 1, 2):
        froms: dict[str, list[str]] = {}
        plain = []
        for line in sorted(blocks[kind]):
            if line.startswith("from "):
                module, name = line[5:].split(" import ")
                froms.setdefault(module, []).append(name)
            else:
                plain.append(line)
        lines = plain + [f"from {m} import {', '.join(sorted(n))}" for m, n in sorted(froms.items())]
        if lines:
            merged.append("\n".join(lines))
    lines = text.split("\n")
    first, last = imports[0].lineno, imports[-1].end_lineno
    head = lines[: first - 1]
    if head and head[-1].strip():
        head.append("")
    return "\n".join(head + ["\n\n".join(merged)] + lines[last:])


def text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    keep = []
    for rel in out:
        # CHANGELOG.md records history; this script names the old paths on purpose
        if (
            rel in ("CHANGELOG.md", "scripts/regroup_tests.py")
            or rel.startswith(("bench/results/", "node_modules/"))
            or rel.endswith("-lock.json")
        ):
            continue
        path = ROOT / rel
        if (
            path.suffix
            in {
                ".py",
                ".md",
                ".sh",
                ".mjs",
                ".ts",
                ".json",
                ".toml",
                ".yml",
                ".yaml",
                ".el",
                ".lua",
                ".vim",
                ".txt",
                "",
            }
            and path.is_file()
        ):
            keep.append(path)
    return keep


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print the mapping, change nothing")
    dry = parser.parse_args().dry_run

    moving = {}
    for path in sorted(TESTS.glob("test_*.py")):
        group, why = group_of(path.stem)
        moving[path.stem] = group
        print(f"tests/{path.name} -> tests/{group}/{path.name}  ({why})")
    if not moving:
        print("no tests/test_*.py left at the top: nothing to move")

    if not dry:
        for group in GROUPS:
            init = TESTS / group / "__init__.py"
            if not init.exists():
                init.parent.mkdir(exist_ok=True)
                init.write_text("")
                git("add", str(init.relative_to(ROOT)))
        for stem, group in moving.items():
            src = TESTS / f"{stem}.py"
            src.write_text(deeper_paths(src.read_text()))
            tracked = (
                subprocess.run(
                    ["git", "ls-files", "--error-unmatch", str(src.relative_to(ROOT))], cwd=ROOT, capture_output=True
                ).returncode
                == 0
            )
            if tracked:
                git("mv", str(src.relative_to(ROOT)), f"tests/{group}/{stem}.py")
            else:  # a file not committed yet moves all the same, and stays uncommitted
                src.rename(TESTS / group / f"{stem}.py")

    build_harness(module_places(), dry)  # in a dry run, read where the modules are now
    places = module_places() if not dry else {**module_places(), **moving}

    vscode = TESTS / "vscode"
    if vscode.is_dir():
        print("tests/vscode -> tests/editors/vscode")
        if not dry:
            git("mv", "tests/vscode", "tests/editors/vscode")
            for mjs in (TESTS / "editors" / "vscode").glob("*.mjs"):
                text = mjs.read_text()
                fixed = re.sub(
                    r"(fileURLToPath\(import\.meta\.url\)\),) '\.\.', '\.\.'\)", r"\1 '..', '..', '..')", text
                )
                if fixed != text:
                    mjs.write_text(fixed)
    if dry:
        return 0

    for path in sorted(TESTS.rglob("*.py")):
        if path.parent.name in GROUPS and path.name != "__init__.py":
            text = path.read_text()
            fixed = rewrite_imports(text, places, path.stem)
            if fixed != text:
                path.write_text(fixed)
                print(f"  imports: {path.relative_to(ROOT)}")

    renames = {f"tests/{stem}.py": f"tests/{group}/{stem}.py" for stem, group in places.items() if group}
    pattern = re.compile("|".join(re.escape(k) for k in sorted(renames, key=len, reverse=True)) or "(?!)")
    for path in text_files():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        fixed = pattern.sub(lambda m: renames[m.group(0)], text)
        fixed = re.sub(r"(?<![\w/])tests/vscode/", "tests/editors/vscode/", fixed)
        fixed = fixed.replace("tests/test_format_<name>.py", "tests/corpus/test_format_<name>.py")
        if fixed != text:
            path.write_text(fixed)
            print(f"  paths: {path.relative_to(ROOT)}")
    git("add", "-u")
    return 0


if __name__ == "__main__":
    sys.exit(main())
