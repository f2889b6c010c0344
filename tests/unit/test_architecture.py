"""Invariants of the code's shape that docs/architecture.md lists: modules stay small, the code
map names every module, and the code cites only documents a reader of the repository has.

Each is read from the files themselves (line counts, the generated map, the text of comments),
never from a list kept beside them.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server" / "tokenizer_lsp"
TS = [ROOT / "client-vscode" / "src", ROOT / "client-playground" / "src"]
MAX_LINES = 400


def _sources() -> list[Path]:
    py = [p for p in SERVER.rglob("*.py") if "__pycache__" not in p.parts]
    ts = [p for d in TS for p in d.glob("*.ts")]
    return sorted(py + ts)


def test_the_sources_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert "server/tokenizer_lsp/core/index/build.py" in names
    assert "client-vscode/src/extension.ts" in names
    assert len(names) > 150


def test_every_module_is_under_400_lines():
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in _sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) >= MAX_LINES
    }
    assert long == {}


def _code_map():
    spec = importlib.util.spec_from_file_location("code_map", ROOT / "scripts" / "code_map.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_code_map_names_every_module_with_what_it_is():
    code_map = _code_map()
    page = (ROOT / "docs" / "code-map.md").read_text(encoding="utf-8")
    assert page == code_map.render(), "docs/code-map.md is out of date: run python scripts/code_map.py"
    rows = re.findall(r"^\| `([^`]+)` \| (.*) \|$", page, re.M)
    assert len(rows) == len(_sources())
    assert [name for name, what in rows if not what.strip()] == []  # every module says what it is


# a path to a document: docs/x.md, client-vscode/README.md, a SOURCES.md beside data...
DOC_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
# documents kept outside the repository (the team's contract and design notes)
OUTSIDE = re.compile(r"\b(INTERFACE(\.md)?|DESIGN\.md)\b|\b[Ii]ssue \d+\b")


def test_code_cites_only_documents_in_the_repository():
    every_doc = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.md") if "node_modules" not in p.parts}
    basenames = {p.rsplit("/", 1)[-1] for p in every_doc}
    bad = []
    for path in _sources():
        text = re.sub(r"https?://\S+", "", path.read_text(encoding="utf-8"))  # a link says where it is
        rel = path.relative_to(ROOT).as_posix()
        bad += [f"{rel}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
        for m in DOC_PATH.finditer(text):
            cited = m.group(1)
            found = cited in every_doc if "/" in cited else cited in basenames
            if not found and not cited.endswith("/"):
                bad.append(f"{rel}: {cited}")
    assert bad == []


def _built_indexes():
    """Indexes of several formats, as build_index and an edit make them."""
    import orjson
    from tokenizer_lsp.core.index.build import build_index

    tokenizer = {
        "version": "1.0",
        "added_tokens": [],
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
    }
    data = orjson.dumps(tokenizer, option=orjson.OPT_INDENT_2)
    json_idx = build_index(data, "tokenizer.json")
    yield json_idx
    yield build_index(b"#version: 0.2\na b\n", "merges.txt")
    yield build_index(b"YQ== 0\nYg== 1\n", "x.tiktoken")
    yield build_index(b"[PAD]\n[UNK]\nhello\n", "vocab.txt")
    json_idx.prepare_lookups()
    at = data.index(b'"ab"') + 1
    edited = json_idx.edited([(at, at + 2, b"ba")], data[:at] + b"ba" + data[at + 2 :])
    assert edited is not None  # the typing fast path made it
    yield edited


def test_a_built_index_cannot_be_rewritten():
    kinds = []
    for idx in _built_indexes():
        kinds.append(idx.format)
        for name, value in (("findings", []), ("doc", None), ("format", "x"), ("parse_id", 0)):
            try:
                setattr(idx, name, value)
            except AttributeError as e:
                assert "never rewritten" in str(e)
            else:
                raise AssertionError(f"{idx.format} index let {name} be set")
    assert {"tokenizer.json", "merges.txt", "tiktoken"} <= set(kinds)


def test_work_leaves_the_event_loop_only_through_off_loop():
    """lsp/work.py's off_loop takes each piece of thread work with its mode and cancel token;
    a bare to_thread or run_in_executor elsewhere would run uncancellable work."""
    work = SERVER / "lsp" / "work.py"
    assert re.search(r"to_thread|run_in_executor", work.read_text(encoding="utf-8"))
    bare = [
        p.relative_to(ROOT).as_posix()
        for p in SERVER.rglob("*.py")
        if p != work and re.search(r"\b(to_thread|run_in_executor)\(", p.read_text(encoding="utf-8"))
    ]
    assert bare == []


def test_every_import_resolves_even_inside_functions():
    """A function-level import (kept lazy for start-up time) names a module and a name that
    exist: moving a function must not leave one behind that fails only when it runs."""
    import ast
    import importlib

    bad = []
    for path in SERVER.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(SERVER.parent).with_suffix("").parts)
        package = ".".join(parts[:-1])  # a module's package; an __init__'s own
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                target = ".".join(base[: len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            elif (node.module or "").startswith("tokenizer_lsp"):
                target = node.module
            else:
                continue
            module = importlib.import_module(target)
            for alias in node.names:
                if not hasattr(module, alias.name):
                    try:
                        importlib.import_module(f"{target}.{alias.name}")
                    except ImportError:
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {target}.{alias.name}")
    assert bad == []
