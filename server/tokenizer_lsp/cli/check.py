"""`check PATH...`: the findings of each file, one line each (or JSON); exit 1 on an error."""

from __future__ import annotations

import os
import sys

import orjson

from ..core.behaviour.reachability_findings import (
    file_unreachable_findings,
    with_unreachable,
)
from ..core.files import load_vocab_file
from ..core.model import DEFAULT_SEVERITY, SEVERITIES
from ..core.model_folder.folder import config_files_checked, tokenizer_paths
from . import tables
from .common import err as _err, tokenizer_index


def add_arguments(c) -> None:
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument(
        "--severity", action="append", default=[], metavar="CODE=LEVEL",
        help="override a code's severity (error, warning, information, hint, or off); repeatable",
    )


def _severity_overrides(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        code, _, level = item.partition("=")
        if code not in DEFAULT_SEVERITY or level not in (*SEVERITIES, "off"):
            raise ValueError(f"bad --severity {item!r}: expected CODE=LEVEL with CODE one of "
                             f"{', '.join(DEFAULT_SEVERITY)} and LEVEL one of {', '.join(SEVERITIES)}, off")
        out[code] = level
    return out


def run(args) -> int:
    try:
        overrides = _severity_overrides(args.severity)
    except ValueError as e:
        _err(str(e))
        return 2
    paths, empty = tokenizer_paths(args.paths)  # `check DIR`: the tokenizer files in it
    for folder in empty:
        _err(f"{folder}: no tokenizer file in this folder")
    vocab_for = _vocab_pairing(paths)
    status = 2 if empty else 0
    results = []
    checked: set[str] = set()  # config files already reported with their tokenizer
    for path in paths:
        if os.path.abspath(path) in checked:
            continue
        idx = tables.check_index(path, overrides)  # .model, vocab.txt and the other plug-ins
        if idx is None:
            idx = tokenizer_index(path, vocab_for(path))
        if idx is None or idx is tables.FAILED:
            status = 2
            continue
        if overrides.get("unreachable-token") != "off":  # loads the engine: only when wanted
            idx.findings = with_unreachable(idx.findings, file_unreachable_findings(idx, path))
        # the model folder's config files beside it, each under its own path
        for shown, each in [(path, idx), *config_files_checked(idx, path, checked)]:
            for f in each.findings:
                level = overrides.get(f.code, f.severity)
                if level != "off":
                    results.append((shown, each, f, level))
    errors = any(level == "error" for *_, level in results)
    _print_findings(results, args.format)
    if status == 2:
        return 2
    return 1 if errors else 0


def _vocab_pairing(paths: list[str]):
    """Which vocabulary a merges file among `paths` is checked against: a vocabulary given
    in the same folder, else the nearest one given before it, else the only one given; with
    none given, index_file looks beside the merges file (vocab.json, encoder.json)."""
    vocabs = [i for i, p in enumerate(paths) if p.endswith(".json")]
    loaded: dict[str, object] = {}

    def load(p: str):
        if p not in loaded:
            try:
                loaded[p] = load_vocab_file(p)
            except OSError:
                loaded[p] = None
        return loaded[p]

    def vocab_for(path: str):
        if path.endswith(".json") or not vocabs:
            return None
        here = paths.index(path)
        folder = os.path.dirname(os.path.abspath(path))
        same = [i for i in vocabs if os.path.dirname(os.path.abspath(paths[i])) == folder]
        before = [i for i in vocabs if i < here]
        if same:
            pick = min(same, key=lambda i: abs(i - here))
        elif before:
            pick = before[-1]
        elif len(vocabs) == 1:
            pick = vocabs[0]
        else:
            return None
        return load(paths[pick])

    return vocab_for


def _print_findings(results, fmt: str) -> None:
    out = sys.stdout
    by_idx: dict[int, list] = {}
    for r in results:
        by_idx.setdefault(id(r[1]), []).append(r)
    if fmt == "json":
        rows = []
        for group in by_idx.values():
            idx = group[0][1]
            if tables.is_table(idx):  # "range" null in a binary file, "id"/"key"
                rows.extend(tables.json_rows(group))
                continue
            offs = [o for _, _, f, _ in group for o in (f.start, f.end)]
            pos = idx.lines.positions(offs, "utf-16")
            for k, (path, _, f, level) in enumerate(group):
                (sl, sc), (el, ec) = pos[2 * k], pos[2 * k + 1]
                rows.append({
                    "path": path,
                    "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
                    "severity": level, "code": f.code, "message": f.message,
                })
        out.write(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    for group in by_idx.values():
        idx = group[0][1]
        if tables.is_table(idx):  # `path:#N:` or `path:KEY:` in a binary file
            out.write(tables.text_lines(group))
            continue
        pos = idx.lines.positions([f.start for _, _, f, _ in group], "utf-32")
        out.write("".join(
            f"{path}:{line + 1}:{col + 1}: {level} {f.code} {f.message}\n"
            for (path, _, f, level), (line, col) in zip(group, pos)
        ))


