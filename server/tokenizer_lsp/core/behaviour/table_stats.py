"""`stats` of a format plug-in's TokenTable: the keys of core/behaviour/stats.py (so its
render and the server's status bar read them alike), plus the piece types and the file's
settings."""

from __future__ import annotations

from collections import Counter

from ..formats.table import TableFinding, TokenTable


def summary(plugin, table: TokenTable, findings: list[TableFinding], unreachable: dict | int | None) -> dict:
    """stats' keys (core/behaviour/stats.py) for a table, plus its piece types and metadata;
    `unreachable`: the count, or core/checks/tables.unreachable_stats' keys (the count, what
    it counts, or why there is none)."""
    counted = unreachable if isinstance(unreachable, dict) else {"unreachable": unreachable}
    from ..decoding.display import visible_text
    from .stats import LONGEST, _gaps

    rows = table.rows
    lengths = [len(r.data) for r in rows]
    ids = {r.id for r in rows}
    top = sorted(range(len(rows)), key=lambda k: (-lengths[k], rows[k].id))[:LONGEST]
    types = Counter(r.type for r in rows if r.type is not None)
    # "_"-keys are a plug-in's own (kept for its engine and checks, not settings to show)
    meta = {
        k: v
        for k, v in table.meta.items()
        if not k.startswith("_") and (isinstance(v, (str, int, float, bool)) or v is None)
    }
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
        "longest_tokens": [
            {"id": rows[k].id, "token": rows[k].token, "text": visible_text(rows[k].data), "bytes": lengths[k]}
            for k in top
        ],
        "token_length_histogram": {str(n): c for n, c in sorted(Counter(lengths).items())},
        "piece_types": dict(types) if types else None,
        "scores": any(r.score is not None for r in rows),
        "meta": meta,
        **counted,
        # what the format's own library says its numbers are (tekken: control tokens, entries used)
        **(plugin.stats_extra(table) if hasattr(plugin, "stats_extra") else {}),
    }


def render_stats(s: dict, path: str | None) -> str:
    from .stats import render

    text = render(s, path)
    extra = []
    if s.get("piece_types"):
        extra.append("  piece types: " + ", ".join(f"{t} {n:,}" for t, n in s["piece_types"].items()))
    shown = {
        k: v
        for k, v in (s.get("meta") or {}).items()
        if k not in ("model_type", "pieces", "lines", "has_trainer_spec") and v is not None
    }
    if shown:
        extra.append("  settings: " + ", ".join(f"{k}={_short(v)}" for k, v in shown.items()))
    lines = text.split("\n")
    at = next((k for k, line in enumerate(lines) if line.startswith("  token length")), len(lines))
    return "\n".join(lines[:at] + extra + lines[at:])


def _short(v) -> str:
    """A setting on stats' one line: a long or multi-line string (a chat template) shortened."""
    if isinstance(v, str) and (len(v) > 60 or "\n" in v):
        return repr(v[:40]) + f"… ({len(v):,} chars)"
    return str(v)


def index_summary(idx, unreachable: int | None, why: str | None) -> dict:
    """A format plug-in's table open in the server: the keys `stats` gives for the file
    (table_stats.summary), so the editor and the command line say the same; a count the
    server does not hold is check's rule read off the findings, or not computed and why."""
    from ..checks.tables import unreachable_stats
    from .stats import _cache

    doc = idx.doc
    base = _cache.get(idx)
    if base is None:
        base = summary(doc.plugin, doc.table, idx.findings, None)
        _cache[idx] = base
    if unreachable is not None:
        counted = {"unreachable": unreachable}
    else:
        counted = unreachable_stats(doc.table, doc.plugin, idx.findings, count=False, skipped=why)
        if counted.get("unreachable_not_computed") is None:
            counted.pop("unreachable_not_computed", None)  # being computed: no reason yet
    return {**{k: v for k, v in base.items() if not k.startswith("unreachable")}, **counted}
