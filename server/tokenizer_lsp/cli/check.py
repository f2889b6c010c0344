"""`check PATH...`: the findings of each file, one line each (or JSON); exit 1 on an error."""

from __future__ import annotations

import os

from ..core.behaviour.reachability.findings import (
    file_unreachable_findings,
    with_unreachable,
)
from ..core.formats.merges.doc import NO_VOCABULARY
from ..core.index.files import load_vocab_file
from ..core.model import DEFAULT_SEVERITY, SEVERITIES
from ..core.model_folder.folder import config_files_checked, tokenizer_paths
from . import tables
from .common import err as _err
from .common import tokenizer_index
from .progress import progress
from .report import Row, exit_status, report


def add_arguments(c) -> None:
    c.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="tokenizer files, or folders (each of their tokenizer files with its config files)",
    )
    c.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="json: every finding (hints too) as an array with 0-based LSP ranges",
    )
    c.add_argument(
        "--show-hints", action="store_true", help="print hint-level findings too (counted in the summary either way)"
    )
    c.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="override a code's severity (error, warning, information, hint, or off); repeatable",
    )


def _severity_overrides(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        code, _, level = item.partition("=")
        if code not in DEFAULT_SEVERITY or level not in (*SEVERITIES, "off"):
            raise ValueError(
                f"bad --severity {item!r}: expected CODE=LEVEL with CODE one of "
                f"{', '.join(DEFAULT_SEVERITY)} and LEVEL one of {', '.join(SEVERITIES)}, off"
            )
        out[code] = level
    return out


def run(args) -> int:
    try:
        overrides = _severity_overrides(args.severity)
    except ValueError as e:
        _err(str(e))
        return 2
    given, sources = tables.source_pairs(args.paths)  # `check model.gguf HF_DIR`
    paths, empty = tokenizer_paths(given)  # `check DIR`: the tokenizer files in it
    paths += _templates_of_folders(given)  # and its chat_template.jinja, additional_chat_templates/
    for folder in empty:
        _err(f"{folder}: no tokenizer file in this folder")
    vocab_for = _vocab_pairing(paths)
    failed = len(empty)
    results = []
    files = 0
    checked: set[str] = set()  # config files already reported with their tokenizer
    for path in paths:
        if os.path.abspath(path) in checked:
            continue
        with progress(f"checking {path}"):
            if path.endswith(".jinja"):
                idx = _template_index(path)
            elif tables.reads_table(plugin := tables.claim(path)):  # the one dispatch
                idx = tables.check_index(path, plugin, overrides, sources.get(path))
            else:  # a document plug-in's file, or none: the index says which
                idx = tokenizer_index(path, vocab_for(path))
            if idx is None or idx is tables.FAILED:
                failed += 1
                continue
            if getattr(getattr(idx, "doc", None), "without_vocabulary", False):  # nothing to say it by a finding
                _err(f"{path}: note: {NO_VOCABULARY}")
            found = idx.findings  # an index is never rewritten: the unreachable ones join here
            if overrides.get("unreachable-token") != "off":  # loads the engine: only when wanted
                found = with_unreachable(found, file_unreachable_findings(idx, path))
            # the model folder's config files beside it, each under its own path
            beside = [(p, each, each.findings) for p, each in config_files_checked(idx, path, checked)]
            for shown, each, each_found in [(path, idx, found), *beside]:
                files += 1
                for f in each_found:
                    level = overrides.get(f.code, f.severity)
                    if level != "off":
                        results.append((shown, each, f, level))
    rows = _rows(results, args.format)
    report(rows, args.format, args.show_hints, files, failed)
    return exit_status(bool(failed), rows)


def _templates_of_folders(given: list[str]) -> list[str]:
    from ..core.chat.places import template_files_in

    return [p for folder in given if os.path.isdir(folder) for p in template_files_in(folder)]


def _template_index(path: str):
    """A .jinja chat template: checked against the model folder it stands in, as the editor
    checks it (core/model_folder/chat_template_file.py)."""
    from ..core.index.files import index_file

    try:
        idx = index_file(path)
    except OSError as e:
        _err(f"{path}: cannot read: {e.strerror or e}")
        return tables.FAILED
    if not idx.is_tokenizer:
        _err(f"{path}: {idx.not_tokenizer_reason}")
        return tables.FAILED
    return idx


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


def _rows(results, fmt: str) -> list[Row]:
    """The findings as report rows, positions computed once per file: 0-based UTF-16 for
    JSON (LSP), 1-based characters for text."""
    by_idx: dict[int, list] = {}
    for r in results:
        by_idx.setdefault(id(r[1]), []).append(r)
    rows = []
    for group in by_idx.values():
        idx = group[0][1]
        if tables.is_table(idx):  # `path:#N:` / `path:KEY:` and "range": null in a binary file
            rows.extend(tables.report_rows(group))
        elif fmt == "json":
            offs = [o for _, _, f, _ in group for o in (f.start, f.end)]
            pos = idx.lines.positions(offs, "utf-16")
            for k, (path, _, f, level) in enumerate(group):
                (sl, sc), (el, ec) = pos[2 * k], pos[2 * k + 1]
                rows.append(
                    Row(
                        path,
                        level,
                        f.code,
                        f.message,
                        "",
                        {
                            "path": path,
                            "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
                            "severity": level,
                            "code": f.code,
                            "message": f.message,
                        },
                    )
                )
        else:
            pos = idx.lines.positions([f.start for _, _, f, _ in group], "utf-32")
            rows.extend(
                Row(path, level, f.code, f.message, f"{line + 1}:{col + 1}")
                for (path, _, f, level), (line, col) in zip(group, pos)
            )
    return rows
