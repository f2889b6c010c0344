"""The generated parts of the docs site (mkdocs_hooks.py wires them into `mkdocs build`):

- a page per diagnostic code, from core/codes/__init__.py (the docs) and core/model.py
  DEFAULT_SEVERITY (the codes and severities), with `check`'s real output on each example;
- the settings table, from the VS Code manifest (package.json), the one list of settings;
- the performance figures, from whatever JSON the benchmarks left in bench/results/.

Plain functions, no mkdocs import: tests/unit/test_code_docs.py calls them too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from tokenizer_lsp.core.codes import DOCS, silence  # noqa: E402
from tokenizer_lsp.core.model import DEFAULT_SEVERITY  # noqa: E402

# ---- diagnostic codes ---------------------------------------------------------------------------


def run_example(code: str) -> str | None:
    """`check --show-hints` on the code's example files (a folder when several), the lines of
    that code only, with the temporary folder's path removed. None when there is no example
    or this build cannot read its format (a plug-in not installed)."""
    doc = DOCS[code]
    if not doc.example:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "model"
        folder.mkdir()
        for name, text in doc.example.items():
            (folder / name).write_text(text, encoding="utf-8")
        target = folder if len(doc.example) > 1 else folder / next(iter(doc.example))
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "TOKENIZER_LSP_CACHE_DIR": "off"}
        p = subprocess.run(
            [sys.executable, "-m", "tokenizer_lsp", "check", "--show-hints", str(target)],
            capture_output=True,
            text=True,
            cwd=folder,
            env=env,
            timeout=300,
        )
    lines = [line.replace(str(folder) + os.sep, "") for line in p.stdout.splitlines() if f" {code} " in line]
    return "\n".join(lines[:3]) if lines else None


def run_examples() -> dict[str, str | None]:
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(DEFAULT_SEVERITY, pool.map(run_example, DEFAULT_SEVERITY)))


def code_page(code: str, output: str | None) -> str:
    doc = DOCS[code]
    shown = output or doc.shown
    if not shown:
        raise ValueError(f"{code}: its example gives no {code} finding and there is no `shown` output")
    parts = [
        f"# `{code}`\n",
        f"**Default severity:** {DEFAULT_SEVERITY[code]}\n",
        "## What it means\n",
        doc.summary + "\n",
        "## Why it matters\n",
        doc.why + "\n",
        "## Example\n",
    ]
    for name, text in doc.example.items():
        lang = "json" if name.endswith(".json") else "text"
        block = f"```{lang}\n{text.rstrip()}\n```"
        if text.count("\n") > 25:  # a whole small tokenizer.json: folded, the finding says where to look
            parts.append(f'??? example "`{name}` ({text.count(chr(10))} lines)"\n\n' + _indent(block) + "\n")
        else:
            parts.append(f"`{name}`:\n\n{block}\n")
    cmd = (
        "tokenizer-lsp check " + (" ".join(doc.example) if len(doc.example) == 1 else ".")
        if doc.example
        else "tokenizer-lsp check " + shown.split(":", 1)[0]
    )
    parts.append(f"```console\n$ {cmd}\n{shown}\n```\n")
    parts += ["## How to fix\n", doc.fix + "\n", "## How to silence it\n", silence(code) + "\n"]
    return "\n".join(parts)


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else line for line in text.split("\n"))


def codes_index() -> str:
    rows = ["| code | default | when |", "|---|---|---|"]
    for code, level in DEFAULT_SEVERITY.items():
        rows.append(f"| [`{code}`]({code}.md) | {level} | {DOCS[code].summary.replace('|', '&#124;')} |")
    return "\n".join(rows) + "\n"


# ---- settings -----------------------------------------------------------------------------------


def settings_table() -> str:
    props = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["contributes"]["configuration"]
    props = (
        props["properties"] if isinstance(props, dict) else {k: v for c in props for k, v in c["properties"].items()}
    )
    rows = ["| setting | default | what it does |", "|---|---|---|"]
    for key, spec in props.items():
        text = spec.get("markdownDescription") or spec.get("description") or ""
        if spec.get("enum"):
            text += " One of " + ", ".join(f"`{v}`" for v in spec["enum"]) + "."
        rows.append(
            f"| `{key}` | `{json.dumps(spec.get('default'))}` | {' '.join(text.split()).replace('|', '&#124;')} |"
        )
    return "\n".join(rows) + "\n"


# ---- performance --------------------------------------------------------------------------------

_MAIN_COLUMNS = [
    ("open → diagnostics", "open_to_diagnostics_s", "{:.2f} s"),
    ("`Tokenizer.from_file`", "from_file_s", "{:.2f} s"),
    ("ratio", "ratio", "{:.2f}"),
    ("hover p50 / p99", ("hover_p50_ms", "hover_p99_ms"), "{:.1f} / {:.1f} ms"),
    ("inlay hints p50 / p99", ("hints_p50_ms", "hints_p99_ms"), "{:.1f} / {:.1f} ms"),
    ("1-char edit → diagnostics", "edit_to_diagnostics_ms", "{:.0f} ms"),
    ("peak RSS / file size", "rss_over_size", "{:.1f}x"),
]


def _cell(row: dict, key, fmt: str) -> str:
    keys = key if isinstance(key, tuple) else (key,)
    values = [row.get(k) for k in keys]
    if any(not isinstance(v, (int, float)) for v in values):
        return "–"
    return fmt.format(*values)


def _file_label(row: dict) -> str:
    f = Path(str(row.get("file", "?")))
    scale = row.get("scale") or ""
    return f"{f.parent.name}/{f.name}" + (f" {scale}" if scale and scale != "1x" else "")


def _numbers(obj, prefix: str = "") -> list[tuple[str, float]]:
    """Every numeric leaf of a JSON value, with its path (for results of any shape)."""
    if isinstance(obj, bool):
        return []
    if isinstance(obj, (int, float)):
        return [(prefix, obj)]
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _numbers(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            name = v.get("file") or v.get("name") if isinstance(v, dict) else None
            out += _numbers(v, f"{prefix}[{Path(str(name)).parent.name + '/' + Path(str(name)).name if name else i}]")
    return out


def bench_section(results: Path | None = None, limit: int = 60) -> str:
    """Markdown for every JSON file in bench/results/, newest first."""
    results = results or ROOT / "bench" / "results"
    files = sorted(results.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) if results.is_dir() else []
    if not files:
        return (
            "!!! note \"No results in this build\"\n    `bench/results/` holds no JSON. Run "
            "`python bench/bench.py` (the corpus files it opens are named in its `--help`) and build again.\n"
        )
    parts = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            parts.append(f"## `{path.name}`\n\nnot readable: {e}\n")
            continue
        parts.append(f"## `{path.name}`\n")
        if isinstance(data, dict) and data.get("machine_cores"):
            parts.append(f"Measured on a machine with {data['machine_cores']} cores.\n")
        rows = data.get("rows") if isinstance(data, dict) else None
        if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
            head = "| file | MB | " + " | ".join(n for n, _, _ in _MAIN_COLUMNS) + " |"
            lines = [head, "|" + "---|" * (len(_MAIN_COLUMNS) + 2)]
            for r in rows:
                mb = f"{r['bytes'] / 1e6:.1f}" if isinstance(r.get("bytes"), (int, float)) else "–"
                lines.append(
                    f"| {_file_label(r)} | {mb} | " + " | ".join(_cell(r, k, f) for _, k, f in _MAIN_COLUMNS) + " |"
                )
            parts.append("\n".join(lines) + "\n")
            data = {k: v for k, v in data.items() if k not in ("rows", "machine_cores")}
        # named figures only: the per-run samples behind a median ([0], [1]...) stay in the JSON
        leaves = [(k, v) for k, v in _numbers(data) if k != "machine_cores" and not re.search(r"\[\d+\]", k)]
        if leaves:
            lines = ["| measure | value |", "|---|---|"]
            lines += [f"| `{k}` | {v:.4g} |" for k, v in leaves[:limit]]
            if len(leaves) > limit:
                lines.append(f"| … | {len(leaves) - limit} more in `bench/results/{path.name}` |")
            parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
