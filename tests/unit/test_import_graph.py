"""core/ is a layer: its modules import each other without a circle (function-level imports
included, since a lazy import only hides a circle) and never import lsp/; and they follow
the stages of the flow (docs/architecture.md): text < decoding < detect < formats < checks
< index < navigation < behaviour (< fixes), the shared modules below all of them. A module
imports only modules of its own stage or earlier ones.

The graph is read from the source with ast, independently of importing anything.
"""

from __future__ import annotations

import ast
from functools import cache
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


@cache
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


# ---- the stages of the flow -------------------------------------------------------------

STAGES = ("shared", "text", "decoding", "detect", "formats", "checks", "index", "navigation", "behaviour", "fixes")

# a package's stage, by the longest prefix that names it (core.codes.* and the other shared
# top-level modules are below everything)
PACKAGE_STAGE = {
    "core": "shared",
    "core.model": "shared",
    "core.compact_vocab": "shared",
    "core.seams": "shared",
    "core.disk_cache": "shared",
    "core.codes": "shared",
    "core.text": "text",
    "core.decoding": "decoding",
    "core.detect": "detect",
    "core.formats": "formats",
    "core.checks": "checks",
    "core.index": "index",
    "core.navigation": "navigation",
    "core.behaviour": "behaviour",
    "core.fixes": "fixes",
    # the mixed packages, module by module: a chat template and a model folder's config
    # files are read (formats), checked (checks), indexed (index) and navigated
    "core.chat": "formats",  # __init__, sandbox, places, source, apply, chats, control, errors, context
    "core.chat.checks": "checks",
    "core.chat.folder_checks": "checks",
    "core.chat.gguf_checks": "checks",
    "core.chat.portability": "checks",
    "core.chat.portability_tables": "checks",
    "core.chat.portability_hfjs_tables": "checks",
    "core.chat.portability_minijinja": "checks",
    "core.chat.template_index": "index",
    "core.model_folder": "formats",  # __init__, config_doc, spans
    "core.model_folder.checks": "checks",
    "core.model_folder.facts": "checks",
    "core.model_folder.table_facts": "checks",
    "core.model_folder.folder": "index",
    "core.model_folder.chat_template_file": "index",
    "core.model_folder.config_queries": "navigation",
    "core.model_folder.chat_template_hover": "navigation",
    "core.model_folder.chat_template_moves": "navigation",
    # an edit inside one token literal re-checks the tokens it renames (the index's typing
    # fast path, core.index.document.edited)
    "core.formats.json.incremental": "checks",
}

# imports against the order that stay, each with why (none may be added without one)
ALLOWED: set[tuple[str, str]] = {
    # a Vocabulary decodes its tokens (Vocabulary.decode): the model is below every stage
    # but this one function of decoding, which needs nothing of the model; splitting the
    # model's decode out would touch every caller of v.decode for no change in the flow
    ("core.model", "core.decoding.tokens"),
}


def stage_of(module: str) -> str:
    """The stage of a core module: a format's checks module (core/formats/<fmt>/checks.py,
    *_checks.py) is a check living with its format; otherwise the longest prefix in
    PACKAGE_STAGE."""
    name = module.removeprefix("tokenizer_lsp.")
    parts = name.split(".")
    if (
        parts[:2] == ["core", "formats"]
        and len(parts) >= 4
        and (parts[-1] == "checks" or parts[-1].endswith("_checks"))
    ):
        return "checks"
    for k in range(len(parts), 0, -1):
        stage = PACKAGE_STAGE.get(".".join(parts[:k]))
        if stage is not None:
            return stage
    raise KeyError(f"{name}: no stage (add it to PACKAGE_STAGE)")


def _against_the_order() -> list[tuple[str, str, str, str]]:
    out = []
    for a, deps in sorted(_graph().items()):
        for b in sorted(deps):
            sa, sb = stage_of(a), stage_of(b)
            if STAGES.index(sb) > STAGES.index(sa):
                out.append((a.removeprefix("tokenizer_lsp."), sa, b.removeprefix("tokenizer_lsp."), sb))
    return out


def test_every_core_module_has_a_stage():
    for name in _graph():
        assert stage_of(name) in STAGES


def test_the_stage_reader_sees_an_import_against_the_order():
    # facts the check must see for it to mean anything: a format's checks module is a
    # check, and the index's build imports the formats' registry (an import along the order)
    assert stage_of("tokenizer_lsp.core.formats.gguf.checks") == "checks"
    assert stage_of("tokenizer_lsp.core.formats.gguf.reader") == "formats"
    assert "tokenizer_lsp.core.formats.registry" in _graph()["tokenizer_lsp.core.index.build"]
    assert ("core.model", "shared", "core.decoding.tokens", "decoding") in _against_the_order()


def test_core_modules_follow_the_stages():
    bad = [(a, sa, b, sb) for a, sa, b, sb in _against_the_order() if (a, b) not in ALLOWED]
    assert bad == [], "\n".join(f"{a} ({sa}) imports {b} ({sb})" for a, sa, b, sb in bad)


def test_the_allowed_imports_are_still_there():
    against = {(a, b) for a, _, b, _ in _against_the_order()}
    assert against >= ALLOWED, ALLOWED - against  # a stale entry hides the next one


def test_core_imports_no_lsp_code():
    bad = sorted(
        (_module_name(p), m)
        for p in CORE.rglob("*.py")
        for m in _imported(p, _module_name(p))
        if m.startswith("tokenizer_lsp.lsp")
    )
    assert bad == []
