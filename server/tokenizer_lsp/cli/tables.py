"""The command line's one dispatch (core/formats/registry.py): which plug-in a file is, and
for a table plug-in (`.model`, `vocab.txt`, tekken, GGUF) its commands.

Each command's run() claims the file here once: a table plug-in's file is read here (its
TokenTable); a document plug-in's (tokenizer.json, vocab.json, merges, .tiktoken), or a
file no plug-in claims, goes to the index (core/index), which says why it is not a
tokenizer file when it is none. Nothing here knows a format: it reads the plug-in's
TokenTable and calls the plug-in's optional hooks:
    PLUGIN.encode_spans(table, text, special, folder) -> [(id, start, end)]  (else encode())
    PLUGIN.row_kind(table, row) -> "byte-level" | ...   (else: BYTE rows byte-fallback,
                                                         special rows special, the rest literal)
    PLUGIN.style                 -> stats' "byte_level_style" (a Scheme value)
    PLUGIN.diff_side(table, path) -> core.behaviour.diff.sides.Side  (else table_side())
    PLUGIN.diff_adjust(table, side) -> Side  (that Side as the plug-in's format changes it)
"""

from __future__ import annotations

import os
import sys

import orjson

from ..core.behaviour.table_stats import render_stats, summary  # noqa: F401 (stats.py renders with it)
from ..core.formats import registry
from ..core.formats.table import FormatError, TableFinding, TokenTable
from .common import err, stop_writing

FAILED = object()  # a plug-in claimed the file and could not read it (said on stderr)


def claim(path: str):
    """The plug-in whose file `path` is (any plug-in), or None: a folder, unreadable, or no
    plug-in's (the index reports it)."""
    if not os.path.isfile(path):
        return None
    try:
        return registry.claim_path(path)
    except OSError:
        return None


def reads_table(plugin) -> bool:
    """A table plug-in's file (read here), not a document plug-in's or none (the index's)."""
    return plugin is not None and registry.reads_table(plugin)


def read(path: str, plugin=None):
    """(plug-in, table) of a table plug-in's file, FAILED after one line on stderr, or None
    (not a table plug-in's)."""
    got = _read(path, plugin)
    if isinstance(got, str):
        err(got)
        return FAILED
    return got


def _read(path: str, plugin=None):
    """(plug-in, table), None (not a table plug-in's file), or the one-line reason it failed."""
    plugin = plugin or claim(path)
    if not reads_table(plugin):
        return None
    try:
        return plugin, plugin.read(path)
    except OSError as e:
        return f"{path}: cannot read: {e.strerror or e}"
    except FormatError as e:
        return f"{path}: not a readable {plugin.label}: {e}"
    except Exception as e:  # noqa: BLE001 (a reader's own bug: one line, never a traceback)
        return f"{path}: not a readable {plugin.label}: {type(e).__name__}: {e}"


# ---- decode ----------------------------------------------------------------------------


def decode(args, plugin) -> int:
    got = read(args.path, plugin)
    if got is FAILED:
        return 2
    plugin, table = got
    from ..core.decoding.listing import text_row

    out = sys.stdout.buffer
    try:
        batch = []
        for row in decoded_rows(plugin, table):
            if args.format == "jsonl":
                batch.append(_json(row))
            else:
                typed = (
                    f"  {row['type']}" + (f" {row['score']:g}" if row.get("score") is not None else "")
                    if row.get("type")
                    else ""
                )
                line = text_row(row, typed)
                batch.append(line.encode("utf-8", "backslashreplace"))  # a lone surrogate: escaped
            if len(batch) >= 4096:
                out.write(b"\n".join(batch) + b"\n")
                batch.clear()
        if batch:
            out.write(b"\n".join(batch) + b"\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `decode ... | head`
        stop_writing()
    return 0


def decoded_rows(plugin, table: TokenTable):
    """decode's rows: Part 1's fields, plus "type" and "score" where the format has them."""
    from ..core.decoding.utf8 import classify

    kind_of = getattr(plugin, "row_kind", None)
    for row in table.rows:
        utf8 = classify(row.data)
        out = {
            "id": row.id,
            "token": row.token,
            "bytes": row.data.hex(),
            "text": row.data.decode("utf-8") if utf8.value == "valid" else None,
            "utf8": utf8.value,
            "kind": kind_of(table, row) if kind_of else _kind(row),
        }
        if row.type is not None:
            out["type"] = row.type
        if row.score is not None:
            out["score"] = row.score
        yield out


def _kind(row) -> str:
    if row.type == "BYTE":
        return "byte-fallback"
    return "special" if row.special else "literal"


def _json(obj) -> bytes:
    try:
        return orjson.dumps(obj)
    except TypeError:  # a lone surrogate: json escapes it
        import json

        return json.dumps(obj).encode()


# ---- check -----------------------------------------------------------------------------


class TableIndex:
    """What check's loop needs of a file a plug-in read: its findings, and lines for a text
    format (None for a binary one: its findings name an id or a key)."""

    vocab = None
    syntax_error = None

    def __init__(self, path: str, plugin, table: TokenTable, findings: list[TableFinding]) -> None:
        self.path, self.plugin, self.table, self.findings = path, plugin, table, findings
        self.format = plugin.name
        self.lines = None
        if not plugin.binary:
            from ..core.text.lines import LineIndex

            with open(path, "rb") as f:
                self.lines = LineIndex(f.read())


def source_pairs(paths: list[str]) -> tuple[list[str], dict[str, str]]:
    """`check model.gguf HF_DIR`: a folder right after a file whose plug-in compares with a
    source folder is that file's source, not a folder to check. (paths left, {file: folder})"""
    out, sources = [], {}
    for p in paths:
        if out and os.path.isdir(p) and out[-1] not in sources:
            plugin = claim(out[-1])
            if plugin is not None and getattr(plugin, "compares_with_source", False):
                sources[out[-1]] = p
                continue
        out.append(p)
    return out, sources


def check_index(path: str, plugin, overrides: dict, source: str | None = None):
    """A TableIndex of a table plug-in's file (unreachable tokens unless turned off), or
    FAILED after saying why."""
    got = read(path, plugin)
    if got is FAILED:
        return got
    plugin, table = got
    from ..core.checks.tables import in_order, table_findings, table_unreachable

    found = table_findings(table, plugin, source)
    if overrides.get("unreachable-token") != "off":
        try:
            found = in_order(found + (table_unreachable(table, plugin) or []))
        except FormatError as e:
            err(f"{path}: unreachable tokens not checked: {e}")
    return TableIndex(path, plugin, table, found)


def is_table(idx) -> bool:
    return isinstance(idx, TableIndex)


def report_rows(group) -> list:
    """check's report rows of one TableIndex's findings: `LINE:COL` in a text file, else
    `#ID` or the metadata KEY; in JSON "range" null for a binary file, with the token's
    "id" or the metadata "key" the finding is about."""
    from .report import Row

    idx = group[0][1]
    offs = [o for _, _, f, _ in group for o in (f.start or 0, f.end or 0)]
    pos16 = idx.lines.positions(offs, "utf-16") if idx.lines is not None else None
    pos32 = idx.lines.positions(offs[::2], "utf-32") if idx.lines is not None else None
    rows = []
    for k, (path, _, f, level) in enumerate(group):
        rng = None
        if pos16 is not None and f.start is not None:
            (sl, sc), (el, ec) = pos16[2 * k], pos16[2 * k + 1]
            rng = {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}
            where = f"{pos32[k][0] + 1}:{pos32[k][1] + 1}"
        else:
            where = f"#{f.id}" if f.id is not None else (f.key or "-")
        js = {"path": path, "range": rng, "severity": level, "code": f.code, "message": f.message}
        if f.id is not None:
            js["id"] = f.id
        if f.key is not None:
            js["key"] = f.key
        rows.append(Row(path, level, f.code, f.message, where, js))
    return rows


# ---- stats -----------------------------------------------------------------------------


def stats_of(path: str, plugin, unreachable: bool):
    """The stats of a table plug-in's file (render with render_stats), or FAILED."""
    got = read(path, plugin)
    if got is FAILED:
        return got
    plugin, table = got
    from ..core.checks.tables import table_findings, unreachable_stats

    found = table_findings(table, plugin, source=False)
    try:
        counted = unreachable_stats(table, plugin, found, unreachable)
    except FormatError as e:
        err(f"{path}: unreachable tokens not counted: {e}")
        counted = {"unreachable": None, "unreachable_not_computed": f"the engine does not load this file ({e})"}
    return summary(plugin, table, found, counted)
