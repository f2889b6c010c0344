"""The layers of the server, read from the source with ast (nothing is imported):

- a request handler (lsp/handlers/) or command (lsp/commands/) sees snapshots through the
  session, never a document's state (lsp/documents.py) nor scheduling (lsp/scheduler.py,
  lsp/jobs/), and imports no other handler or command module (commands/__init__.py, the
  commands' shared helpers, is the one exception: the executeCommand handler dispatches
  through it);
- runtime/ never imports lsp/;
- the client's capabilities are read once at initialize (lsp/capabilities.py): no other
  module walks pygls' raw `client_capabilities`.
"""

from __future__ import annotations

from pathlib import Path

import tokenizer_lsp

from tests.unit.test_import_graph import _imported as imports_of

PACKAGE = Path(tokenizer_lsp.__file__).parent
LSP = PACKAGE / "lsp"
P = "tokenizer_lsp.lsp."


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path) -> set[str]:
    """Every tokenizer_lsp module (or name in one) this file imports, at any depth."""
    return imports_of(path, _module_name(path))


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


FORBIDDEN = (P + "documents", P + "scheduler", P + "jobs")


def _is_module(name: str) -> bool:
    """Whether a dotted name is a module or package of the tree (not a name inside one)."""
    base = PACKAGE.parent.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _violations(folder: str) -> list[tuple[str, str]]:
    here = P + folder
    other = P + ("commands" if folder == "handlers" else "handlers")
    bad = []
    for path in sorted((LSP / folder).glob("*.py")):
        me = _module_name(path)
        for m in sorted(m for m in _imported(path) if _is_module(m)):
            if any(_within(m, f) for f in FORBIDDEN):
                bad.append((me, m))
            elif _within(m, here) and m not in (here, me) and not m.startswith(me + "."):
                bad.append((me, m))  # another module of its own folder
            elif _within(m, other) and m != P + "commands":
                bad.append((me, m))
    return bad


def test_the_imports_are_read():
    # facts the reader must find for the checks to mean anything
    assert P + "documents.DocumentState" in _imported(LSP / "scheduler.py")
    assert P + "commands.CommandError" in _imported(LSP / "handlers" / "execute_command.py")
    assert P + "session.uri_to_path" in _imported(LSP / "commands" / "diff.py")


def test_handlers_see_no_document_state_nor_other_handlers():
    assert _violations("handlers") == []


def test_commands_see_no_document_state_nor_other_commands():
    assert _violations("commands") == []


def test_the_checks_catch_a_handler_importing_documents(tmp_path, monkeypatch):
    """The check itself: a handler that imports DocumentState, or another handler, is found."""
    fake = tmp_path / "tokenizer_lsp"
    for folder in ("handlers", "commands"):
        (fake / "lsp" / folder).mkdir(parents=True)
        (fake / "lsp" / folder / "__init__.py").write_text("")
    for name in ("documents.py", "handlers/hover.py", "commands/diff.py"):
        (fake / "lsp" / name).write_text("")
    (fake / "lsp" / "handlers" / "bad.py").write_text(
        "from ..documents import DocumentState\nfrom .hover import handle\nfrom ..commands.diff import run\n"
        "from ..commands import CommandError\n"
    )
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "PACKAGE", fake)
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "LSP", fake / "lsp")
    assert _violations("handlers") == [
        (P + "handlers.bad", P + "commands.diff"),
        (P + "handlers.bad", P + "documents"),
        (P + "handlers.bad", P + "handlers.hover"),
    ]


def test_runtime_imports_no_lsp_code():
    bad = sorted(
        (_module_name(p), m)
        for p in (PACKAGE / "runtime").rglob("*.py")
        for m in _imported(p)
        if _within(m, "tokenizer_lsp.lsp")
    )
    assert bad == []


def test_capabilities_are_read_in_one_place():
    walkers = sorted(
        str(p.relative_to(PACKAGE))
        for p in LSP.rglob("*.py")
        if p.name != "capabilities.py" and "client_capabilities" in p.read_text(encoding="utf-8")
    )
    assert walkers == []
