"""Findings on a format plug-in's TokenTable (core/formats/table.py): the checks every
table format shares, then the plug-in's own module.

A plug-in names its checks module in `PLUGIN.checks` (a module of core/formats/, living
with its format, e.g. "sentencepiece.checks") exposing `findings(table) ->
list[TableFinding]`; one module per format so formats are added without touching each
other's code. The reader's own findings
(`table.read_findings`) come first. Unreachable tokens need the engine: `unreachable` in
the checks module, called only when asked (check computes them unless turned off).
"""

from __future__ import annotations

import importlib

from ..decoding.display import quoted as _q
from ..decoding.utf8 import Utf8Kind, classify, short_fragment_kind
from ..formats.table import TableFinding, TokenTable
from ..model import Finding


def table_findings(table: TokenTable, plugin=None, source: str | None = None) -> list[TableFinding]:
    """`source`: the folder the file was converted from (`check model.gguf HF_DIR`), for a
    checks module with `source_findings(table, folder)`; None: that module looks beside
    the file; False: no comparison (stats: it would load both engines for nothing)."""
    out = list(table.read_findings)
    out += duplicate_tokens(table)
    out += utf8_fragments(table)
    module = _checks_module(plugin)
    if module is not None:
        out += module.findings(table)
        if hasattr(module, "source_findings") and source is not False:
            out += module.source_findings(table, source)
    return in_order(out)


def document_findings(parsed) -> list[Finding]:
    """The findings of a table plug-in's text document (formats/table_doc.py), as `check`
    makes them, each placed in the text by the document (inside it, always)."""
    doc = parsed.doc
    out = [doc.locate(f) for f in table_findings(doc.table, doc.plugin)]
    out.sort(key=lambda f: f.start)
    return out


def table_unreachable(table: TokenTable, plugin=None) -> list[TableFinding] | None:
    """unreachable-token findings (loads the engine); None when the format's checks cannot
    tell (stats then says "not computed")."""
    module = _checks_module(plugin)
    find = getattr(module, "unreachable", None)
    return find(table) if find is not None else None


def unreachable_stats(
    table: TokenTable, plugin, findings: list, count: bool = True, skipped: str | None = "--no-unreachable"
) -> dict:
    """stats' `unreachable` keys, counted as `check` counts them: the checks module's
    `unreachable` (loads the engine; when `count`, else not computed because `skipped`),
    or the findings it reports under its UNREACHABLE_CODE (a rule read off the file:
    vocab.txt's wordpiece-unreachable, said in UNREACHABLE_WHAT); else None, with why
    (UNREACHABLE_NOT_TESTED). FormatError as the engine's loading."""
    module = _checks_module(plugin)
    code = getattr(module, "UNREACHABLE_CODE", None)
    if code is not None:  # no engine to load: counted whatever `count` says
        return {"unreachable": sum(1 for f in findings if f.code == code), "unreachable_what": module.UNREACHABLE_WHAT}
    if getattr(module, "unreachable", None) is None:
        why = (
            getattr(module, "UNREACHABLE_NOT_TESTED", None)
            or f"`check` has no unreachable-token test for {plugin.name} files"
        )
        return {"unreachable": None, "unreachable_not_computed": why}
    if not count:
        return {"unreachable": None, "unreachable_not_computed": skipped}
    return {"unreachable": len(table_unreachable(table, plugin) or [])}


def in_order(found: list[TableFinding]) -> list[TableFinding]:
    """File order: by document offset (text formats), else by id; file-level ones (a
    metadata key, no id) first."""

    def key(f: TableFinding):
        if f.start is not None:
            return (1, f.start, 0)
        return (1, f.id, 0) if f.id is not None else (0, 0, 0)

    return sorted(found, key=key)


def _checks_module(plugin):
    name = getattr(plugin, "checks", None)
    return importlib.import_module(f"..formats.{name}", __package__) if name else None


def duplicate_tokens(table: TokenTable) -> list[TableFinding]:
    """duplicate-token: a stored token at a second id (the format's loader refuses it or
    keeps one of the two)."""
    first: dict[str, int] = {}
    out = []
    spans = table.spans
    for k, row in enumerate(table.rows):
        seen = first.setdefault(row.token, row.id)
        if seen != row.id:
            start, end = spans[k] if spans is not None else (None, None)
            out.append(
                TableFinding(
                    "duplicate-token",
                    f"{_q(row.token)} at id {row.id} is already id {seen}",
                    id=row.id,
                    start=start,
                    end=end,
                )
            )
    return out


def utf8_fragments(table: TokenTable) -> list[TableFinding]:
    """utf8-fragment: a token whose bytes are not valid UTF-8 (SentencePiece's <0x80>..<0xFF>,
    byte-level pieces of a character)."""
    out = []
    spans = table.spans
    for k, row in enumerate(table.rows):
        data = row.data
        if data.isascii():
            continue
        if classify(data) is not Utf8Kind.VALID:
            start, end = spans[k] if spans is not None else (None, None)
            out.append(
                TableFinding(
                    "utf8-fragment",
                    f"{_q(row.token)} is not valid UTF-8 alone ({short_fragment_kind(data)})",
                    id=row.id,
                    start=start,
                    end=end,
                )
            )
    return out
