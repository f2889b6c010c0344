"""The command line for every format plug-in (core/formats/registry.py): `.model`,
`vocab.txt`, and the formats added beside them (tekken, GGUF).

Each command's run() asks here first, in a few lines at its top or in its loop; a file no
plug-in claims goes on through the older path (tokenizer.json, vocab.json, merges,
.tiktoken). Nothing here knows a format: it reads the plug-in's TokenTable and calls the
plug-in's optional hooks:
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
from .common import err

FAILED = object()  # a plug-in claimed the file and could not read it (said on stderr)


def claim(path: str):
    """The plug-in that reads the file at `path`, or None (a folder, unreadable, or a file
    for the older formats: their own path reports it)."""
    if not os.path.isfile(path):
        return None
    try:
        return registry.sniff_path(path)
    except OSError:
        return None


def read(path: str):
    """(plug-in, table) of the file, FAILED after one line on stderr, or None."""
    got = _read(path)
    if isinstance(got, str):
        err(got)
        return FAILED
    return got


def _read(path: str):
    """(plug-in, table), None (no plug-in claims it), or the one-line reason it failed."""
    plugin = claim(path)
    if plugin is None:
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


def decode(args) -> int | None:
    got = read(args.path)
    if got is None:
        return None
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
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
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


def check_index(path: str, overrides: dict, source: str | None = None):
    """A TableIndex of a file a plug-in claims (unreachable tokens unless turned off),
    FAILED after saying why, or None: not a plug-in's file."""
    got = read(path)
    if got is None or got is FAILED:
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


def stats_of(path: str, unreachable: bool):
    """The stats of a file a plug-in claims (render with render_stats), FAILED, or None."""
    got = read(path)
    if got is None or got is FAILED:
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


# ---- encode ----------------------------------------------------------------------------


def encode(args, text: str) -> int | None:
    got = read(args.path)
    if got is None:
        return None
    if got is FAILED:
        return 2
    plugin, table = got
    try:
        result = encode_result(plugin, table, text, args.special, os.path.dirname(os.path.abspath(args.path)))
    except FormatError as e:
        err(f"{args.path}: cannot encode: {e}")
        from ..core.checks.tables import table_findings

        # a file with a finding at error level gives 1, as `check` gives for it
        return 1 if any(f.severity == "error" for f in table_findings(table, plugin, source=False)) else 2
    from ..core.behaviour.encode import render_text

    if args.format == "json":
        out = _json(result) + b"\n"
    else:
        out = (render_text(result, text) + "\n").encode("utf-8", "surrogateescape")
    try:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0


def encode_result(plugin, table: TokenTable, text: str, special: bool, folder: str | None) -> dict:
    """encode's JSON: {"ids", "tokens": [{"id", "token", "bytes", "text", "start", "end"}]}."""
    spans_of = getattr(plugin, "encode_spans", None)
    if spans_of is not None:
        spans = spans_of(table, text, special, folder)
    else:
        spans = _walk_spans(table, text, plugin.encode(table, text, special, folder))
    by_id = {r.id: r for r in table.rows} if any(r.id != k for k, r in enumerate(table.rows)) else None
    tokens = []
    for tid, start, end in spans:
        row = by_id.get(tid) if by_id is not None else (table.rows[tid] if 0 <= tid < len(table.rows) else None)
        data = row.data if row is not None else b""
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError:
            decoded = None
        tokens.append(
            {
                "id": tid,
                "token": row.token if row is not None else None,
                "bytes": data.hex(),
                "text": decoded,
                "start": start,
                "end": end,
            }
        )
    return {"ids": [t["id"] for t in tokens], "tokens": tokens}


def _walk_spans(table: TokenTable, text: str, ids: list[int]) -> list[tuple[int, int, int]]:
    """Offsets for a plug-in that gives ids only: each token's bytes matched along the
    input's UTF-8 (a token that does not match covers nothing)."""
    raw = text.encode("utf-8", "surrogatepass")
    data_of = {r.id: r.data for r in table.rows}
    out, pos = [], 0
    for tid in ids:
        data = data_of.get(tid, b"")
        start = pos
        if data and raw.startswith(data, pos):
            pos += len(data)
        out.append((tid, len(raw[:start].decode("utf-8", "ignore")), len(raw[:pos].decode("utf-8", "ignore"))))
    return out


# ---- diff ------------------------------------------------------------------------------


def diff_side(path: str):
    """The diff Side of a file a plug-in claims, or None; DiffError when it cannot be read."""
    from ..core.behaviour.diff.sides import DiffError

    got = _read(path)
    if got is None:
        return None
    if isinstance(got, str):
        raise DiffError(got)
    plugin, table = got
    make = getattr(plugin, "diff_side", None)
    side = make(table, path) if make is not None else table_side(plugin, table, path)
    adjust = getattr(plugin, "diff_adjust", None)  # a plug-in's changes to the generic side
    return adjust(table, side) if adjust is not None else side


def table_side(plugin, table: TokenTable, path: str):
    """A table as diff compares it: pieces by their stored form (a later duplicate loses),
    scores where the format has them (compared when the other file has scores too), special and user-defined pieces as the added tokens
    a converter to tokenizer.json makes of them (CONTROL and UNKNOWN special; USER_DEFINED
    not), each token's bytes for comparing with a file that spells tokens another way."""
    from ..core.behaviour.diff.sides import Side
    from ..core.decoding.tokens import Scheme

    vocab: dict[str, int] = {}
    data: dict[str, bytes] = {}
    for r in table.rows:
        vocab.setdefault(r.token, r.id)
        data.setdefault(r.token, r.data)
    scores = {r.token: r.score for r in table.rows if r.score is not None} or None
    added = [
        {"content": r.token, "id": r.id, "special": r.special or r.type == "CONTROL", "normalized": False}
        for r in table.rows
        if r.special or r.type in ("CONTROL", "USER_DEFINED")
    ]
    model_type = {"UNIGRAM": "Unigram", "BPE": "BPE", "WORD": "WordLevel"}.get(
        str(table.meta.get("model_type")), table.meta.get("model_type") or plugin.name
    )
    flags = dict(getattr(plugin, "diff_flags", lambda t: {})(table))
    style = getattr(plugin, "style", None)
    scheme = Scheme(style) if style in {s.value for s in Scheme} else Scheme.LITERAL
    prefix = str(table.meta.get("continuing_subword_prefix") or "")
    types = {r.token: r.type for r in table.rows if r.type is not None} or None
    return Side(
        path,
        plugin.name,
        scheme,
        model_type,
        vocab,
        None,
        added,
        None,
        flags,
        prefix,
        "",
        scores,
        token_bytes=data,
        types=types,
    )  # SentencePiece BPE ranks merges by score too


def encode_with(path: str, text: str):
    """diff --text: (ids, stored tokens) of `text` by a plug-in's engine (no special
    tokens), or None for a file no plug-in claims; DiffError when it cannot."""
    from ..core.behaviour.diff.sides import DiffError

    got = _read(path)
    if got is None:
        return None
    if isinstance(got, str):
        raise DiffError(f"--text: {got}")
    plugin, table = got
    try:
        result = encode_result(plugin, table, text, False, os.path.dirname(os.path.abspath(path)))
    except FormatError as e:
        raise DiffError(f"--text: {path}: {e}") from None
    return result["ids"], [t["token"] for t in result["tokens"]]
