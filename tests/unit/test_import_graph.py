"""core/ is a layer: its modules import each other without a circle (function-level imports
included, since a lazy import only hides a circle) and never import lsp/.

The graph is read from the source with ast, independently of importing anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tokenizer_lsp

PACKAGE = Path(tokenizer_lsp.__file__).parent
CORE = PACKAGE / "core"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path, name: str) -> set[str]:
    """Every tokenizer_lsp module this file imports, at any depth of the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("tokenizer_lsp"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("tokenizer_lsp"):
                target = node.module
            else:
                continue
            out.add(target)
            # `from . import x` / `from .pkg import sub`: x may be a submodule
            out.update(f"{target}.{a.name}" for a in node.names)
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in CORE.rglob("*.py")}
    return {name: {m for m in _imported(path, name) if m in files and m != name} for name, path in files.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read():
    graph = _graph()
    # a fact the reader must find for the check to mean anything: index.py imports model.py
    assert "tokenizer_lsp.core.model" in graph["tokenizer_lsp.core.index.build"]
    assert len(graph) > 20


def test_core_has_no_import_circle():
    assert _cycles(_graph()) == []


def test_core_imports_no_lsp_code():
    bad = sorted(
        (_module_name(p), m)
        for p in CORE.rglob("*.py")
        for m in _imported(p, _module_name(p))
        if m.startswith("tokenizer_lsp.lsp")
    )
    assert bad == []
