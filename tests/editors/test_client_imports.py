"""The TypeScript modules of the VS Code client (and of the playground page) import one another
without a cycle, and the client's extension.ts only wires the other modules to VS Code.

A cycle between two modules (python.ts <-> bundled.ts once) means neither can be read, tested
or bundled alone. The imports are read by TypeScript's own parser (`ts.preProcessFile`, which
also sees `export ... from` and `import type`: a cycle of types is still a cycle of modules) and
the top-level declarations by `ts.createSourceFile`; the cycle is found by graphlib.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from tests.conftest import ROOT

NODE = shutil.which("node")
TYPESCRIPT = ROOT / "node_modules" / "typescript"
CLIENT = ROOT / "client-vscode" / "src"
PLAYGROUND = ROOT / "client-playground" / "src"

# (node -e: process.argv[1] is the first argument.) For each .ts file of a folder: the relative modules it imports, its top-level declarations.
READ = r"""
const fs = require('fs');
const path = require('path');
const ts = require(process.argv[1]);
const dir = process.argv[2];
const out = {};
for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) {
  const text = fs.readFileSync(path.join(dir, name), 'utf8');
  const imports = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const declarations = source.statements
    .filter((s) => !ts.isImportDeclaration(s))
    .map((s) => ({
      // by predicate: SyntaxKind's names have aliases (VariableStatement is FirstStatement)
      kind: ts.isFunctionDeclaration(s) ? 'function' : ts.isVariableStatement(s) ? 'variable'
        : ts.isClassDeclaration(s) ? 'class' : ts.SyntaxKind[s.kind],
      name: s.name ? s.name.text : null,
    }));
  out[name] = { imports, declarations };
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module", autouse=True)
def node_and_npm_packages():
    """node and `npm ci` are install steps (.ci/run does them): without them this fails,
    it never skips"""
    if NODE is None or not TYPESCRIPT.is_dir():
        pytest.fail("needs node and the npm packages (npm ci): TypeScript reads the imports", pytrace=False)


@cache
def read_modules(folder: Path) -> dict[str, dict]:
    """{file name: {"imports": [specifier, ...], "declarations": [{kind, name}, ...]}}"""
    p = subprocess.run([NODE, "-e", READ, str(TYPESCRIPT), str(folder)], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Each module of the folder and the modules of the same folder it imports."""
    modules = read_modules(folder)
    graph: dict[str, set[str]] = {}
    for name, info in modules.items():
        local = set()
        for spec in info["imports"]:
            if spec.startswith("./"):
                target = spec[2:] if spec.endswith(".ts") else f"{spec[2:]}.ts"
                local.add(target)
        graph[name] = local
    return graph


def cycle_in(folder: Path) -> list[str] | None:
    """A cycle of imports among the folder's modules (first module repeated at the end), or None."""
    try:
        TopologicalSorter(import_graph(folder)).prepare()
    except CycleError as err:
        return err.args[1]
    return None


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    """A type-only import back is a cycle too (it was python.ts <-> bundled.ts's)."""
    (tmp_path / "a.ts").write_text("import { b } from './b';\nexport const a = 1;\n")
    (tmp_path / "b.ts").write_text("export type { A } from './c';\nexport const b = 2;\n")
    (tmp_path / "c.ts").write_text("import type { B } from './a';\nexport type A = B;\n")
    (tmp_path / "d.ts").write_text("import { a } from './a';\nimport * as fs from 'fs';\n")
    cycle = cycle_in(tmp_path)
    assert cycle is not None and set(cycle) == {"a.ts", "b.ts", "c.ts"}
    assert import_graph(tmp_path)["d.ts"] == {"a.ts"}


def test_every_import_names_a_module_of_the_folder():
    """A relative import that names no file would hide an edge of the graph."""
    for folder in (CLIENT, PLAYGROUND):
        for name, targets in import_graph(folder).items():
            missing = [t for t in targets if not (folder / t).is_file()]
            assert not missing, f"{folder.name}/{name} imports {missing}, which are not in {folder}"


@pytest.mark.parametrize("folder", [CLIENT, PLAYGROUND], ids=["client-vscode", "client-playground"])
def test_no_import_cycle(folder):
    cycle = cycle_in(folder)
    assert cycle is None, f"import cycle in {folder.relative_to(ROOT)}: {' -> '.join(cycle)}"


def test_extension_ts_is_only_wiring():
    """extension.ts makes the pieces and connects them to VS Code: it declares activate,
    deactivate and the one variable deactivate needs, nothing else, and no module imports it."""
    modules = read_modules(CLIENT)
    declared = modules["extension.ts"]["declarations"]
    functions = sorted(d["name"] for d in declared if d["kind"] == "function")
    assert functions == ["activate", "deactivate"]
    others = [d for d in declared if d["kind"] not in ("function", "variable")]
    assert not others, f"extension.ts declares {others}: that belongs in a module named for it"
    variables = [d for d in declared if d["kind"] == "variable"]
    assert len(variables) <= 1, f"extension.ts keeps state of its own: {len(variables)} top-level variables"
    importers = [name for name, targets in import_graph(CLIENT).items() if "extension.ts" in targets]
    assert not importers, f"{importers} import extension.ts, the entry point"
