"""Open -> complete diagnostics, on a cold and on a warm cache, against Tokenizer.from_file.

    python bench/open_bench.py                           # qwen3 and gemma3, 3 rounds
    python bench/open_bench.py --files qwen3/tokenizer.json --rounds 7
    python bench/open_bench.py --old ../old/server       # an older server beside this one, interleaved
    python bench/open_bench.py --quick                   # a small example vocab, one round (CI)

Each round, for each server side (--old, then this checkout) and each file: a cold open, a cold
from_file, a warm open, a warm from_file, one after the other, so that load from other work on
this shared machine falls on every column alike. The load average is recorded with each round.

- cold: the files of the opened file's folder are dropped from the page cache just before the
  open (posix_fadvise DONTNEED, file by file; /proc/sys/vm/drop_caches would empty the whole
  machine's cache, other people's work included), and the server's unreachable-set cache is a
  new empty folder (TOKENIZER_LSP_CACHE_DIR): a user's first open of a new model.
- warm: the files were just read (page cache), and the cache folder is one that an untimed
  open of the same file filled before the rounds.

A fresh server per open; the clock starts when didOpen's bytes go out, and every publication
that arrives until the server answers tokenizer-lsp/idle is kept with its arrival time:
- first: the opened file's first publication (its own findings);
- complete: the last publication, of the opened file or of a model config file beside it
  (tokenizer_config.json: its config and chat template findings, checked against the opened
  tokenizer), that does not carry the unreachable-token set: what a user sees settle. The
  headline: complete / from_file;
- unreachable: the publication that carries the unreachable-token set, which INTERFACE.md's
  "never delaying" rule lets come after every other finding, in a publication of its own.
from_file: `Tokenizer.from_file` (a vocab.json: with its merges) in a fresh interpreter, after
the same cache treatment, `tokenizers` imported before its clock starts, timed inside it.
Medians over the rounds with their spread (min-max); ratios are per round (each open over
the from_file right after it), their median. Written to bench/results/open.json (`summary`:
the medians by name; `open_rows`: every round; --quick: printed only, unless --out).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sides import grid, load_line, server_sides, show, spread, started_server, write_results  # noqa: E402 (old beside new: bench/sides.py)

from bench import Utf8ClientProtocol, until_idle  # noqa: E402 (the client that sends raw UTF-8, as VS Code)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
DEFAULT_FILES = ["qwen3/tokenizer.json", "gemma3/tokenizer.json"]
UNREACHABLE = "unreachable-token"
IDLE_WAIT_S = 300.0  # gemma3's unreachable set took 217 s on a 2-core machine at load 18


def drop_page_cache(paths: list[Path]) -> None:
    """The files' pages out of the page cache (what a first read after a reboot meets)."""
    for p in paths:
        try:
            fd = os.open(p, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def warm_page_cache(paths: list[Path]) -> None:
    for p in paths:
        try:
            p.read_bytes()
        except OSError:
            pass


def folder_files(path: Path) -> list[Path]:
    """What a run reads: the opened file and the files beside it (configs, merges, template)."""
    return [p for p in sorted(path.parent.iterdir()) if p.is_file()]


class _Recorder(Utf8ClientProtocol):
    """Every publication's arrival: (seconds, uri, version, count, unreachable-token findings)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.publications: list[tuple[float, str, int | None, int, int]] = []

    def structure_message(self, data):
        if data.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            params = data.get("params") or {}
            diags = params.get("diagnostics") or []
            reach = sum(1 for d in diags if d.get("code") == UNREACHABLE)
            self.publications.append((time.perf_counter(), params.get("uri"), params.get("version"), len(diags), reach))
        return super().structure_message(data)


async def open_once(
    path: Path, server_path: str, cache_dir: str, cold: bool, log: bool = False, wait: float = IDLE_WAIT_S
) -> dict:
    """One fresh server opens `path`; the times of its publications until it is idle."""
    lines: list[str] = []
    async with started_server("open-bench", server_path, cache_dir, _Recorder, lines) as client:
        text = path.read_text(encoding="utf-8")
        files = folder_files(path)
        drop_page_cache(files) if cold else warm_page_cache(files)
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
        )
        t0 = client.protocol.last_write
        del text
        # False: the set still computing after `wait` s (complete stands, unreachable "-")
        idle = await until_idle(client, wait)
        pubs = [(t - t0, u, v, n, r) for t, u, v, n, r in client.protocol.publications]
    if log:
        print("\n".join("    " + x for x in lines), file=sys.stderr)
    return timings(pubs, uri, idle)


def timings(pubs: list[tuple[float, str, int | None, int, int]], uri: str, idle: bool) -> dict:
    own = [p for p in pubs if p[1] == uri]
    first = own[0][0] if own else None
    with_set = next((p for p in own if p[4] > 0), None)
    # without the set: every publication before the set's (a config file's come on their own uris)
    before = [p[0] for p in pubs if p[4] == 0 and (with_set is None or p[0] <= with_set[0])]
    return {
        "first_s": first,
        "complete_s": max(before) if before else None,
        "unreachable_s": with_set[0] if with_set else None,
        "idle": idle,
        "publications": [
            {"s": round(t, 4), "file": u.rsplit("/", 1)[-1], "version": v, "diagnostics": n, "unreachable": r}
            for t, u, v, n, r in pubs
        ],
    }


FROM_FILE = r"""
import sys, time
sys.path.insert(0, sys.argv[2])
import tokenizers
from bench import hf_load
from pathlib import Path
t = time.perf_counter()
hf_load(Path(sys.argv[1]))
print(time.perf_counter() - t)
"""


def from_file_once(path: Path, cold: bool) -> float:
    """Tokenizer.from_file's seconds in a fresh interpreter (its imports before the clock)."""
    files = folder_files(path)
    drop_page_cache(files) if cold else warm_page_cache(files)
    done = subprocess.run(
        [sys.executable, "-c", FROM_FILE, str(path), str(Path(__file__).resolve().parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


async def measure(
    files: list[Path],
    sides: dict[str, str],
    rounds: int,
    log: bool,
    wait: float,
    modes: tuple[str, ...] = ("cold", "warm"),
    fill: bool = True,
) -> list[dict]:
    """fill False (--quick, one file): the warm rows use the folder the cold open before them
    filled, not one an untimed open filled first (a server start and a set computed fewer)."""
    runs: dict[tuple[str, str, str], list[dict]] = {}
    fill = fill or modes[0] != "cold" or len(files) > 1
    loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="open-bench-") as tmp:
        warm_dirs = {side: os.path.join(tmp, f"warm-{side}") for side in sides}
        for side, server_path in sides.items() if "warm" in modes and fill else ():  # the warm folders filled, untimed
            for f in files:
                await open_once(f, server_path, warm_dirs[side], cold=False, wait=IDLE_WAIT_S)
        for r in range(rounds):
            loads.append(os.getloadavg()[0])
            for f in files:
                for side, server_path in sides.items():
                    for mode in modes:
                        cache = tempfile.mkdtemp(dir=tmp, prefix="cold-") if mode == "cold" else warm_dirs[side]
                        got = await open_once(f, server_path, cache, cold=mode == "cold", log=log, wait=wait)
                        if mode == "cold" and not fill:
                            warm_dirs[side] = cache
                        got["from_file_s"] = from_file_once(f, cold=mode == "cold")
                        got["load_1min"] = os.getloadavg()[0]
                        runs.setdefault((str(f), side, mode), []).append(got)
                        print(f"  round {r + 1} {row_name(f)} {side} {mode}: {brief(got)}", flush=True)
    rows = []
    for (f, side, mode), got in runs.items():
        row = {"file": row_name(Path(f)), "side": side, "cache": mode, "rounds": len(got)}
        for k in ("first_s", "complete_s", "unreachable_s", "from_file_s"):
            row[k] = spread([g[k] for g in got])
        for k in ("first_s", "complete_s", "unreachable_s"):
            row[k.replace("_s", "_ratio")] = spread(
                [g[k] / g["from_file_s"] if g[k] is not None else None for g in got]
            )
        row["load_1min"] = spread([g["load_1min"] for g in got])
        row["all_idle"] = all(g["idle"] for g in got)
        row["last_publications"] = got[-1]["publications"]
        rows.append(row)
    return rows


def row_name(f: Path) -> str:
    return str(f.relative_to(CORPUS)) if f.is_relative_to(CORPUS) else f"{f.parent.name}/{f.name}"


def brief(g: dict) -> str:
    def s(v):
        return "-" if v is None else f"{v:.3f}"

    return (
        f"first {s(g['first_s'])} complete {s(g['complete_s'])} unreachable {s(g['unreachable_s'])} "
        f"from_file {s(g['from_file_s'])} (load {g['load_1min']:.1f})"
    )


def summary(rows: list[dict]) -> dict[str, float]:
    """The medians by name (what the docs' performance page lists; the rounds stay in open_rows)."""
    out = {}
    for r in rows:
        name = f"{r['file']} {r['side']} {r['cache']}"
        for k, label in (
            ("complete_ratio", "complete / from_file"),
            ("first_ratio", "first / from_file"),
            ("unreachable_ratio", "unreachable set / from_file"),
            ("complete_s", "complete s"),
            ("from_file_s", "from_file s"),
        ):
            if r.get(k) is not None:
                out[f"{name}: {label}"] = round(r[k]["median"], 3)
    return out


def table(rows: list[dict]) -> str:
    def m(d, ratio=False):
        return show(d, "{:.2f}x" if ratio else "{:.3f}")

    head = ["file", "side", "cache", "first s", "complete s", "from_file s", "complete/from_file", "first/from_file"]
    head += ["unreachable s", "unreachable/from_file", "load"]
    cells = [head]
    for r in rows:
        cells.append(
            [
                r["file"],
                r["side"],
                r["cache"],
                m(r["first_s"]),
                m(r["complete_s"]),
                m(r["from_file_s"]),
                m(r["complete_ratio"], True),
                m(r["first_ratio"], True),
                m(r["unreachable_s"]),
                m(r["unreachable_ratio"], True),
                f"{r['load_1min']['median']:.1f}",
            ]
        )
    return grid(cells)


async def main_async(args) -> int:
    if args.quick:  # the rows work (CI), not their figures: a small file with an unreachable token
        from reachability_bench import quick_vocab

        folder = tempfile.TemporaryDirectory(prefix="open-bench-quick-")  # removed as the process ends
        files = [quick_vocab(Path(folder.name))]
    else:
        files = [CORPUS / f for f in args.files]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"files missing: {', '.join(missing)} (set TOKENIZER_CORPUS)", file=sys.stderr)
        return 2
    sides = server_sides(args.old)
    if sides is None:
        return 2
    load_before = os.getloadavg()
    rows = await measure(
        files, sides, args.rounds, args.log, args.wait, tuple(args.caches.split(",")), fill=not args.quick
    )
    print()
    print(table(rows))
    load_after = os.getloadavg()
    print(load_line(load_before, load_after))
    if args.quick and not args.out:
        return 0
    results = {"sides": sides, "idle_wait_s": args.wait, "summary": summary(rows), "open_rows": rows}
    write_results(Path(args.out or ROOT / "bench" / "results" / "open.json"), results, load_before, load_after)
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", nargs="+", default=DEFAULT_FILES, help="paths relative to the corpus")
    p.add_argument("--rounds", type=int, default=3, help="rounds (each: cold and warm, every side)")
    p.add_argument("--old", default="", help="an older checkout's server/ folder, measured beside this one")
    p.add_argument("--quick", action="store_true", help="a small example vocab, one round")
    p.add_argument(
        "--wait",
        type=float,
        default=IDLE_WAIT_S,
        help="seconds a timed open waits for the server to go idle (the unreachable set: '-' when later)",
    )
    p.add_argument("--caches", default="cold,warm", help="which rows: cold, warm or both")
    p.add_argument("--log", action="store_true", help="print each server's log (stderr)")
    p.add_argument("--out", default=None, help="JSON results (default bench/results/open.json)")
    args = p.parse_args()
    if args.quick:
        args.rounds = 1
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
