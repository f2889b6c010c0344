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
    PLUGIN.diff_side(table, path) -> core.behaviour.diff_sides.Side  (else table_side())
"""

from __future__ import annotations

import os
import sys
from collections import Counter

import orjson

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
    except (MemoryError, RecursionError, ValueError) as e:  # a reader's own bug must not trace back
        return f"{path}: not a readable {plugin.label}: {type(e).__name__}: {e}"


# ---- decode ----------------------------------------------------------------------------

def decode(args) -> int | None:
    got = read(args.path)
    if got is None:
        return None
    if got is FAILED:
        return 2
    plugin, table = got
    from ..core.decoded_listing import text_row

    out = sys.stdout.buffer
    try:
        batch = []
        for row in decoded_rows(plugin, table):
            if args.format == "jsonl":
                batch.append(_json(row))
            else:
                line = text_row(row)
                if row.get("type"):
                    line += f"  {row['type']}" + (f" {row['score']:g}" if row.get("score") is not None else "")
                batch.append(line.encode("utf-8", "surrogateescape"))
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
        out = {"id": row.id, "token": row.token, "bytes": row.data.hex(),
               "text": row.data.decode("utf-8") if utf8.value == "valid" else None,
               "utf8": utf8.value, "kind": kind_of(table, row) if kind_of else _kind(row)}
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


def check_index(path: str, overrides: dict):
    """A TableIndex of a file a plug-in claims (unreachable tokens unless turned off),
    FAILED after saying why, or None: not a plug-in's file."""
    got = read(path)
    if got is None or got is FAILED:
        return got
    plugin, table = got
    from ..core.checks.tables import in_order, table_findings, table_unreachable

    found = table_findings(table, plugin)
    if overrides.get("unreachable-token") != "off":
        try:
            found = in_order(found + table_unreachable(table, plugin))
        except FormatError as e:
            err(f"{path}: unreachable tokens not checked: {e}")
    return TableIndex(path, plugin, table, found)


def is_table(idx) -> bool:
    return isinstance(idx, TableIndex)


def json_rows(group) -> list[dict]:
    """check --format json rows of one TableIndex's findings: "range" null for a binary
    file, and the token's "id" or the metadata "key" the finding is about."""
    idx = group[0][1]
    offs = [o for _, _, f, _ in group for o in (f.start or 0, f.end or 0)]
    pos = idx.lines.positions(offs, "utf-16") if idx.lines is not None else None
    rows = []
    for k, (path, _, f, level) in enumerate(group):
        rng = None
        if pos is not None and f.start is not None:
            (sl, sc), (el, ec) = pos[2 * k], pos[2 * k + 1]
            rng = {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}
        row = {"path": path, "range": rng, "severity": level, "code": f.code, "message": f.message}
        if f.id is not None:
            row["id"] = f.id
        if f.key is not None:
            row["key"] = f.key
        rows.append(row)
    return rows


def text_lines(group) -> str:
    """check's text lines: `path:LINE:COL:` in a text file, else `path:#ID:` or `path:KEY:`."""
    idx = group[0][1]
    starts = [f.start or 0 for _, _, f, _ in group]
    pos = idx.lines.positions(starts, "utf-32") if idx.lines is not None else None
    out = []
    for k, (path, _, f, level) in enumerate(group):
        if pos is not None and f.start is not None:
            where = f"{pos[k][0] + 1}:{pos[k][1] + 1}"
        else:
            where = f"#{f.id}" if f.id is not None else (f.key or "-")
        out.append(f"{path}:{where}: {level} {f.code} {f.message}\n")
    return "".join(out)


# ---- stats -----------------------------------------------------------------------------

def stats_of(path: str, unreachable: bool):
    """The stats of a file a plug-in claims (render with render_stats), FAILED, or None."""
    got = read(path)
    if got is None or got is FAILED:
        return got
    plugin, table = got
    from ..core.checks.tables import table_findings, table_unreachable

    count = None
    if unreachable:
        try:
            count = len(table_unreachable(table, plugin)) if getattr(plugin, "checks", None) else None
        except FormatError as e:
            err(f"{path}: unreachable tokens not counted: {e}")
    return summary(plugin, table, table_findings(table, plugin), count)


def summary(plugin, table: TokenTable, findings: list[TableFinding], unreachable: int | None) -> dict:
    """stats' keys (core/behaviour/stats.py) for a table, plus its piece types and metadata."""
    from ..core.behaviour.stats import LONGEST, _gaps
    from ..core.decoding.display import visible_text

    rows = table.rows
    lengths = [len(r.data) for r in rows]
    ids = {r.id for r in rows}
    top = sorted(range(len(rows)), key=lambda k: (-lengths[k], rows[k].id))[:LONGEST]
    types = Counter(r.type for r in rows if r.type is not None)
    meta = {k: v for k, v in table.meta.items() if isinstance(v, (str, int, float, bool)) or v is None}
    return {
        "format": plugin.name,
        "model_type": table.meta.get("model_type"),
        "byte_level_style": getattr(plugin, "style", None),
        "vocab_size": len(rows),
        "vocab_size_with_added": len(rows),
        "merges": table.meta.get("merges") if isinstance(table.meta.get("merges"), int) else None,
        "added_tokens": 0,
        "added_tokens_outside_vocab": 0,
        "special_tokens": sum(1 for r in rows if r.special),
        "id_range": [min(ids), max(ids)] if ids else None,
        "id_gaps": _gaps(ids),
        "fragments": sum(1 for f in findings if f.code == "utf8-fragment"),
        "longest_tokens": [{"id": rows[k].id, "token": rows[k].token, "text": visible_text(rows[k].data),
                            "bytes": lengths[k]} for k in top],
        "token_length_histogram": {str(n): c for n, c in sorted(Counter(lengths).items())},
        "piece_types": dict(types) if types else None,
        "scores": any(r.score is not None for r in rows),
        "meta": meta,
        "unreachable": unreachable,
    }


def render_stats(s: dict, path: str) -> str:
    from ..core.behaviour.stats import render

    text = render(s, path)
    extra = []
    if s.get("piece_types"):
        extra.append("  piece types: " + ", ".join(f"{t} {n:,}" for t, n in s["piece_types"].items()))
    shown = {k: v for k, v in (s.get("meta") or {}).items() if k not in ("model_type", "pieces", "lines")}
    if shown:
        extra.append("  settings: " + ", ".join(f"{k}={v}" for k, v in shown.items()))
    head, _, rest = text.partition("\n")
    return "\n".join([head, *extra, rest]) if extra else text


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
        return 2
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
        tokens.append({"id": tid, "token": row.token if row is not None else None, "bytes": data.hex(),
                       "text": decoded, "start": start, "end": end})
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
    from ..core.behaviour.diff_sides import DiffError

    got = _read(path)
    if got is None:
        return None
    if isinstance(got, str):
        raise DiffError(got)
    plugin, table = got
    make = getattr(plugin, "diff_side", None)
    return make(table, path) if make is not None else table_side(plugin, table, path)


def table_side(plugin, table: TokenTable, path: str):
    """A table as diff compares it: pieces by their stored form (a later duplicate loses),
    scores where the format has them, special and user-defined pieces as the added tokens
    a converter to tokenizer.json makes of them (CONTROL and UNKNOWN special; USER_DEFINED
    not), each token's bytes for comparing with a file that spells tokens another way."""
    from ..core.behaviour.diff_sides import Side
    from ..core.decoding.tokens import Scheme

    vocab: dict[str, int] = {}
    data: dict[str, bytes] = {}
    for r in table.rows:
        vocab.setdefault(r.token, r.id)
        data.setdefault(r.token, r.data)
    scores = {r.token: r.score for r in table.rows if r.score is not None} or None
    added = [{"content": r.token, "id": r.id, "special": r.special or r.type == "CONTROL", "normalized": False}
             for r in table.rows if r.special or r.type in ("CONTROL", "USER_DEFINED")]
    model_type = {"UNIGRAM": "Unigram", "BPE": "BPE", "WORD": "WordLevel"}.get(
        str(table.meta.get("model_type")), table.meta.get("model_type") or plugin.name)
    flags = dict(getattr(plugin, "diff_flags", lambda t: {})(table))
    style = getattr(plugin, "style", None)
    scheme = Scheme(style) if style in {s.value for s in Scheme} else Scheme.LITERAL
    prefix = str(table.meta.get("continuing_subword_prefix") or "")
    return Side(path, plugin.name, scheme, model_type, vocab, None, added, None, flags, prefix, "",
                scores if model_type == "Unigram" else None, token_bytes=data)


def encode_with(path: str, text: str):
    """diff --text: (ids, stored tokens) of `text` by a plug-in's engine (no special
    tokens), or None for a file no plug-in claims; DiffError when it cannot."""
    from ..core.behaviour.diff_sides import DiffError

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
