"""encode and diff of a table plug-in's file (core/formats/registry.py): its engine's ids
with their spans, and the Side diff compares (cli/tables.py claims the file and reads it)."""

from __future__ import annotations

import os

from ..core.formats.table import FormatError, TokenTable
from .common import err, write_out
from .tables import FAILED, _json, _read, read

# ---- encode ----------------------------------------------------------------------------


def encode(args, plugin, text: str) -> int:
    got = read(args.path, plugin)
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
    write_out(out)
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


def diff_side(path: str, plugin):
    """The diff Side of a table plug-in's file; DiffError when it cannot be read."""
    from ..core.behaviour.diff.sides import DiffError

    got = _read(path, plugin)
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


def encode_with(path: str, plugin, text: str):
    """diff --text: (ids, stored tokens) of `text` by a table plug-in's engine (no special
    tokens); DiffError when it cannot."""
    from ..core.behaviour.diff.sides import DiffError

    got = _read(path, plugin)
    if isinstance(got, str):
        raise DiffError(f"--text: {got}")
    plugin, table = got
    try:
        result = encode_result(plugin, table, text, False, os.path.dirname(os.path.abspath(path)))
    except FormatError as e:
        raise DiffError(f"--text: {path}: {e}") from None
    return result["ids"], [t["token"] for t in result["tokens"]]
