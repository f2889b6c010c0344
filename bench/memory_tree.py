"""Memory of the whole process tree (server + engine helper + forked children), cold cache.

    python bench/memory_tree.py                    # qwen3 and gemma3, old (main) and new side by side
    python bench/memory_tree.py --quick            # the small example file, 4 s a run (CI)
    python bench/memory_tree.py --files qwen3/tokenizer.json --seconds 40

For each file and each side (old: the code in --old, e.g. a `git worktree add ../old REV` checkout's server/; new: this
checkout's server/), a fresh server is started with an empty unreachable-set cache folder (a
user's first open), the file is opened through a real LSP client over stdio, and the PSS of
every process of the tree (/proc/PID/smaps_rollup of the server and all its descendants) is
sampled every --every seconds for --seconds. PSS, not RSS: a forked child shares its parent's
pages, and summing RSS would count them twice. Printed and written as JSON
(bench/results/memory.json; the docs' performance page is built from it):

- peak_mb: the tree's highest total;
- helpers_at_25s_mb: what the processes other than the server hold 25 s after didOpen (nothing
  asked meanwhile), and helpers_held_until_s: when they last held more than 20 MB;
- from_file_peak_mb: `tokenizers.Tokenizer.from_file`'s own peak RSS on the same file, in a
  subprocess of its own, measured in the same run; peak_over_from_file: the ratio.

Measured side by side in one run on a shared machine: compare the two columns, not runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sides import server_sides, started_server  # noqa: E402 (an older tree's server beside this one: bench/sides.py)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
DEFAULT_FILES = ["qwen3/tokenizer.json", "gemma3/tokenizer.json"]
OLD_SERVER = ""  # --old: the server/ of a checkout of an older revision (git worktree add)
HELD_AT_S = 25.0  # issue 24: what helpers hold this long after the open
HELD_LIMIT_MB = 20.0
MB = 1 << 20


def tree(root: int) -> list[int]:
    """root and all its descendants (Linux: /proc/PID/task/TID/children)."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                pass
    return out


def label(pid: int, root: int) -> str:
    """server, engine (the helper process), or either's forked child (same command line)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            engine = b"engine.worker" in f.read()
        with open(f"/proc/{pid}/stat") as f:
            parent = int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return "gone"
    if pid == root:
        return "server"
    if engine:
        return "engine" if parent == root else "engine-child"
    return "server-child"


def pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Sampler:
    """The tree's PSS every `every` seconds, in a thread of its own (the client's loop
    may be busy reading a large publication)."""

    def __init__(self, root: int, every: float) -> None:
        self.root, self.every = root, every
        self.samples: list[tuple[float, int, int, int]] = []  # (t, total, server, processes)
        self.shares: list[list[tuple[int, int]]] = []  # each sample's (pid, PSS), the server first
        self.t0 = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = tree(self.root)
            sizes = [pss(p) for p in pids]
            server = sizes[0] if sizes else 0
            self.samples.append((time.perf_counter() - self.t0, sum(sizes), server, len(pids)))
            self.shares.append([(label(p, self.root), size) for p, size in zip(pids, sizes)])
            self._stop.wait(self.every)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def from_file_peak(path: Path) -> int:
    """Peak RSS of a fresh interpreter that loads the file with Tokenizer.from_file (bytes)."""
    code = (
        "import resource, sys, tokenizers; tokenizers.Tokenizer.from_file(sys.argv[1]); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return int(done.stdout.strip()) * 1024


async def measure(path: Path, server_path: str, seconds: float, every: float, timeline: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="tokenizer-lsp-cold-") as cache:
        async with started_server("memory-bench", server_path, cache, lines=LOG) as client:
            server = client._server
            text = path.read_text(encoding="utf-8")
            sampler = Sampler(server.pid, every)
            opened = time.perf_counter() - sampler.t0
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    types.TextDocumentItem(uri=path.as_uri(), language_id="json", version=1, text=text)
                )
            )
            del text
            await asyncio.sleep(seconds)
            sampler.stop()
    out = summary(sampler.samples, opened)
    peak = max(range(len(sampler.samples)), key=lambda k: sampler.samples[k][1])
    # who held what at the peak: the server, then its helpers in the order they were found
    out["peak_by_process_mb"] = [[name, round(size / MB, 1)] for name, size in sampler.shares[peak]]
    if timeline:
        for k in range(0, len(sampler.samples), max(1, int(0.5 / every))):
            t, total = sampler.samples[k][:2]
            who = "  ".join(f"{name} {size / MB:.0f}" for name, size in sampler.shares[k])
            print(f"    {t - opened:6.2f} s  tree {total / MB:7.1f} MB  {who}", file=sys.stderr)
    return out


LOG: list[str] | None = None  # --log: the servers' logs kept here, printed at the end


def summary(samples: list[tuple[float, int, int, int]], opened: float) -> dict:
    peak = max(samples, key=lambda s: s[1])
    after = [(t - opened, total - server, n) for t, total, server, n in samples if t >= opened]
    at = min(after, key=lambda s: abs(s[0] - HELD_AT_S)) if after else (0.0, 0, 0)
    held = [t for t, helpers, _ in after if helpers > HELD_LIMIT_MB * MB]
    return {
        "peak_mb": round(peak[1] / MB, 1),
        "peak_at_s": round(peak[0] - opened, 2),
        "peak_processes": peak[3],
        "server_peak_mb": round(max(s[2] for s in samples) / MB, 1),
        "helpers_at_25s_mb": round(at[1] / MB, 1) if at[0] >= HELD_AT_S - 1 else None,
        "helpers_held_until_s": round(max(held), 1) if held else 0.0,
        "end_mb": round(samples[-1][1] / MB, 1),
        "samples": len(samples),
    }


async def main_async(args) -> int:
    if args.quick:
        files = [ROOT / "examples" / "tokenizer.json"]
    else:
        files = [CORPUS / f for f in args.files]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"files missing: {', '.join(missing)} (set TOKENIZER_CORPUS)", file=sys.stderr)
        return 2
    sides = server_sides(args.old)
    if sides is None:
        return 2
    rows = []
    for f in files:
        row: dict = {
            "file": str(f.relative_to(CORPUS) if f.is_relative_to(CORPUS) else f.name),
            "bytes": f.stat().st_size,
            "seconds": args.seconds,
        }
        for side, server_path in sides.items():
            if args.timeline:
                print(f"  {side} {row['file']}:", file=sys.stderr)
            row[side] = await measure(f, server_path, args.seconds, args.every, args.timeline)
        row["from_file_peak_mb"] = round(from_file_peak(f) / MB, 1)
        for side in sides:
            row[side]["peak_over_from_file"] = round(row[side]["peak_mb"] / row["from_file_peak_mb"], 2)
        rows.append(row)
        print(line(row, sides), flush=True)
    out = Path(args.out or ROOT / "bench" / "results" / "memory.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine_cores": os.cpu_count(),
                "sides": sides,
                "held_at_s": HELD_AT_S,
                "held_limit_mb": HELD_LIMIT_MB,
                "rows": rows,
            },
            indent=2,
        )
    )
    print(f"wrote {out}")
    return 0


def line(row: dict, sides: dict) -> str:
    parts = [f"{row['file']}: from_file peak {row['from_file_peak_mb']} MB"]
    for side in sides:
        r = row[side]
        held = r["helpers_at_25s_mb"]
        parts.append(
            f"{side}: peak {r['peak_mb']} MB ({r['peak_over_from_file']}x, at {r['peak_at_s']} s, "
            f"{r['peak_processes']} processes), helpers at 25 s "
            f"{'-' if held is None else held} MB, held >20 MB until {r['helpers_held_until_s']} s"
        )
    return "\n  ".join(parts)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", nargs="+", default=DEFAULT_FILES, help="paths relative to the corpus")
    p.add_argument("--seconds", type=float, default=60.0, help="how long the tree is sampled after didOpen")
    p.add_argument("--every", type=float, default=0.075, help="sampling period (s)")
    p.add_argument("--old", default=OLD_SERVER, help="the old side's server/ folder ('' to skip it)")
    p.add_argument("--log", action="store_true", help="print the servers' logs at the end (stderr)")
    p.add_argument("--timeline", action="store_true", help="print the tree's PSS every half second (stderr)")
    p.add_argument("--quick", action="store_true", help="the small example file, 4 s a run")
    p.add_argument("--out", default=None, help="JSON results (default bench/results/memory.json)")
    args = p.parse_args()
    if args.quick:
        args.seconds = min(args.seconds, 4.0)  # the example file is idle long before
        if args.out is None:
            args.out = str(Path(tempfile.gettempdir()) / "tokenizer-lsp-memory-quick.json")
    if not sys.platform.startswith("linux"):
        print("memory_tree.py reads /proc: Linux only", file=sys.stderr)
        return 0
    global LOG
    LOG = [] if args.log else None
    try:
        return asyncio.run(main_async(args))
    finally:
        for line in LOG or []:
            print("  server:", line, file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
