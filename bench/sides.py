"""An older tree's server measured beside this checkout's: the sides, medians and the table.

`--old PATH` (bench.py, open_bench.py, memory_tree.py, encode_bench.py) names an older
checkout's server/ folder, or the checkout itself (its server/ is taken), made for example
with `git worktree add ../old 8768bca`. Each side's servers are started with its folder first
on PYTHONPATH; rounds are interleaved (old, new, old, new, ...) so that load from other work
on a shared machine falls on both sides alike, and each row is each side's median with its
spread (min-max) over the rounds.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def server_sides(old: str | None) -> dict[str, str] | None:
    """{"old": its server folder, "new": this checkout's} ({"new": ...} without --old);
    None, said why, when `old` holds no tokenizer_lsp package."""
    new = {"new": str(ROOT / "server")}
    if not old:
        return new
    for folder in (Path(old), Path(old) / "server"):
        if (folder / "tokenizer_lsp").is_dir():
            return {"old": str(folder.resolve()), **new}
    print(f"--old: no tokenizer_lsp package in {old} nor in {old}/server", file=sys.stderr)
    return None


def spread(values: list[float | None]) -> dict | None:
    """Median, min, max and every value of the rounds (None: a round without this figure)."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "runs": vals}


def show(d: dict | None, fmt: str = "{:.3f}") -> str:
    """'median (min-max)'; '-' when no round had the figure."""
    if d is None:
        return "-"
    if d["min"] == d["max"]:
        return fmt.format(d["median"])
    return f"{fmt.format(d['median'])} ({fmt.format(d['min'])}-{fmt.format(d['max'])})"


def side_by_side(
    rounds: dict[str, list[dict]], figures: list[tuple[str, str, Callable[[dict], float | None]]]
) -> list[dict]:
    """One row per figure: (name, format, the figure read from one round's results) over
    every side's rounds, with the new median over the old one."""
    rows = []
    for name, fmt, read in figures:
        row: dict = {"row": name, "format": fmt}
        for side, got in rounds.items():
            row[side] = spread([_read(read, g) for g in got])
        if row.get("old") and row.get("new") and row["old"]["median"]:
            row["new_over_old"] = row["new"]["median"] / row["old"]["median"]
        rows.append(row)
    return rows


def _read(read: Callable[[dict], float | None], got: dict) -> float | None:
    try:
        return read(got)
    except (KeyError, IndexError, TypeError):  # a part this round (or this side) did not give
        return None


def table(rows: list[dict], sides: list[str]) -> str:
    head = ["row", *(f"{side} median (min-max)" for side in sides)]
    head += ["new/old"] if "old" in sides else []
    cells = [head]
    for r in rows:
        line = [r["row"], *(show(r.get(side), r["format"]) for side in sides)]
        if "old" in sides:
            line.append(f"{r['new_over_old']:.2f}x" if "new_over_old" in r else "-")
        cells.append(line)
    return grid(cells)


def grid(cells: list[list[str]]) -> str:
    """Rows of cells in columns as wide as their widest cell."""
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def load_line(before: tuple, after: tuple) -> str:
    """The machine's load averages (1, 5, 15 min) before and after a run: how far to trust it."""
    return (
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, after "
        f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} ({os.cpu_count()} cores)"
    )


def write_results(out: Path, results: dict, load_before: tuple, load_after: tuple) -> None:
    """The results as JSON, with the machine's cores and load averages before them."""
    head = {"machine_cores": os.cpu_count(), "load_average_before": load_before, "load_average_after": load_after}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**head, **results}, indent=2, ensure_ascii=False))
    print(f"wrote {out}")


@asynccontextmanager
async def started_server(
    name: str, server_path: str, cache_dir: str, protocol_cls=None, lines: list[str] | None = None
) -> AsyncIterator:
    """A fresh server (`server_path` first on its PYTHONPATH, its unreachable-set cache in
    `cache_dir`) initialized by a client that takes versioned diagnostics, as editors do; its
    log lines go to `lines` (None: read and dropped: an unread log pipe would fill and block
    the server). Shut down on leaving, killed if it does not stop."""
    import asyncio

    from lsprotocol import types
    from pygls.lsp.client import LanguageClient
    from pygls.protocol import default_converter

    env = {**os.environ, "PYTHONPATH": server_path, "TOKENIZER_LSP_CACHE_DIR": cache_dir}
    extra = {"protocol_cls": protocol_cls} if protocol_cls is not None else {}
    client = LanguageClient(name, "1", converter_factory=default_converter, **extra)
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: None)
    client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)(lambda params: None)
    await client.start_io(sys.executable, "-m", "tokenizer_lsp", env=env)
    server = client._server

    async def drain() -> None:
        while line := await server.stderr.readline():
            if lines is not None:
                lines.append(line.decode(errors="replace").rstrip())

    draining = asyncio.ensure_future(drain())
    try:
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
            )
        )
        await client.initialize_async(types.InitializeParams(capabilities=caps, process_id=os.getpid()))
        client.initialized(types.InitializedParams())
        yield client
    finally:
        try:
            await asyncio.wait_for(client.shutdown_async(None), 10)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 10)
        except Exception:  # noqa: BLE001 (a server that does not stop is killed)
            server.kill()
        draining.cancel()
