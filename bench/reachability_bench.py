"""Benchmark: unreachable-token, side by side with HF tokenizers' own loading.

    python bench/reachability_bench.py            # qwen3 and gemma3 in-process, qwen3 through the server
    python bench/reachability_bench.py --quick    # the small examples, one round (CI keeps it working)

Measures, in one run so the machine's speed drifts alike for all figures:
- in-process: `Tokenizer.from_file`, our load (load_tokenizer_file) and unreachable_tokens
  (the engine's BPE on every token) on the same file, and the set read off the merges'
  structure (reachability_fast; "-" where the file's shape is left to the engine), interleaved
  per round (medians);
- through the real server (stdio, a fresh server per round): from the didOpen's bytes going
  out to the first publication (the other findings), and to the publication that holds the
  unreachable findings; hover p50/p99 in between (a hover every 5 ms once hovers answer),
  while the engine helper process loads the file and computes, and over the same window
  with the code off; from_file right after; each cold (a new empty cache folder: the set
  is computed), then the same file opened again in a new server (the set kept on disk);
- open -> navigation lookups ready with the computation on and off (both run beside the
  server after the first publication).
Prints a table; `run(quick)` returns the figures as a dict (bench/results/reachability.json).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import (
    CORPUS,
    ROOT,
    NavFile,
    Session,
    hf_load,
    key_positions,
    navigation_ready,
    pct,
)

FILES = ["qwen3/tokenizer.json", "llama3/tokenizer.json", "gemma3/tokenizer.json"]
SERVER_FILES = ["qwen3/tokenizer.json"]
QUICK_NAV_FILE = ROOT / "examples" / "tokenizer.json"
HOVER_EVERY_S = 0.005
CODE = "unreachable-token"
CACHE_ENV = "TOKENIZER_LSP_CACHE_DIR"


def in_process(path: Path, rounds: int) -> dict:
    from tokenizer_lsp import runtime
    from tokenizer_lsp.core.behaviour.load import load_tokenizer_file
    from tokenizer_lsp.core.behaviour.reachability.compute import unreachable_tokens
    from tokenizer_lsp.core.behaviour.reachability.fast import unreachable_by_structure

    runtime.install()  # as the engine worker runs it: a forked child shares the work
    data = path.read_bytes()
    from_file, load, compute, structure, found = [], [], [], [], None
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        by_structure = unreachable_by_structure(data, str(path))
        if by_structure is not None:
            structure.append(time.perf_counter() - t0)
        gc.collect()
        t0 = time.perf_counter()
        hf_load(path)
        from_file.append(time.perf_counter() - t0)
        gc.collect()
        t0 = time.perf_counter()
        loaded = load_tokenizer_file(str(path))
        t1 = time.perf_counter()
        found = unreachable_tokens(loaded)
        t2 = time.perf_counter()
        load.append(t1 - t0)
        compute.append(t2 - t1)
        del loaded
        if by_structure is not None and by_structure != found:
            raise SystemExit(f"{path}: the set read off the merges differs from the engine's")
    ff = statistics.median(from_file)
    by_merges = statistics.median(structure) if structure else None
    return {
        "file": str(path),
        "unreachable": len(found or []),
        "from_file_s": ff,
        "structure_s": by_merges,
        "structure_over_from_file": by_merges / ff if by_merges else None,
        "load_s": statistics.median(load),
        "compute_s": statistics.median(compute),
        "compute_over_from_file": statistics.median(compute) / ff,
        "load_and_compute_over_from_file": (statistics.median(load) + statistics.median(compute)) / ff,
        "from_file_runs_s": from_file,
        "compute_runs_s": compute,
    }


class ReachSession(Session):
    """bench.Session with every finding published (maxPerFile 0: the unreachable findings of
    qwen3 come after its 1448 fragments in file order) and the time of each publication
    that holds an unreachable finding."""

    def __init__(self, severity: dict | None = None) -> None:
        super().__init__()
        self.severity = severity or {}

    async def start(self) -> None:
        self.with_unreachable: dict[str, tuple[float, int]] = {}  # uri -> (arrival, how many)
        features = self.client.protocol.fm.features
        default = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
        arrived = self.client.protocol.arrived

        def on_diags(params: types.PublishDiagnosticsParams):
            at = arrived.get((params.uri, params.version), time.perf_counter())
            n = sum(d.code == CODE for d in params.diagnostics)
            if n and params.uri not in self.with_unreachable:
                self.with_unreachable[params.uri] = (at, n)
            return default(params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = on_diags
        await self.client.start_io(sys.executable, "-m", "tokenizer_lsp")
        self.log = []
        self._log_task = asyncio.create_task(self._read_log(self.client._server.stderr))
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
                inlay_hint=types.InlayHintClientCapabilities(),
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            ),
            workspace=types.WorkspaceClientCapabilities(
                inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True)
            ),
        )
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=caps, initialization_options={"diagnostics": {"maxPerFile": 0, "severity": self.severity}}
            )
        )
        self.client.initialized(types.InitializedParams())


async def through_server(path: Path, rounds: int, rng: random.Random, timeout: float = 300.0) -> dict:
    text = path.read_text(encoding="utf-8")
    positions = key_positions(text, 200, rng)
    first, full, counts, from_file, hovers, hovers_off = [], [], [], [], [], []
    first_hover = []
    warm, warm_first = [], []
    for _ in range(rounds):
        with cache_folder() as folder:  # cold: nothing computed before
            window = await _round(path, text, positions, timeout, first, full, counts, hovers, first_hover)
        with cache_folder(folder):  # warm: the same file opened again (the set kept on disk)
            await _round(path, text, positions, timeout, warm_first, warm, [], [], [])
        shutil.rmtree(folder, ignore_errors=True)
        # the same window with the code off: what hovers cost here without it
        await _round(path, text, positions, window, [], [], [], hovers_off, [], off=True)
        gc.collect()
        t1 = time.perf_counter()
        hf_load(path)
        from_file.append(time.perf_counter() - t1)
    ff = statistics.median(from_file)
    return {
        "file": str(path),
        "unreachable": counts[-1],
        "open_to_diagnostics_s": statistics.median(first),
        "open_to_unreachable_s": statistics.median(full),
        "from_file_s": ff,
        "unreachable_over_from_file": statistics.median(full) / ff,
        "open_to_first_hover_s": statistics.median(first_hover) if first_hover else None,
        "hovers": len(hovers),
        "hover_p50_ms": pct(hovers, 50),
        "hover_p99_ms": pct(hovers, 99),
        "hovers_off": len(hovers_off),
        "hover_off_p50_ms": pct(hovers_off, 50),
        "hover_off_p99_ms": pct(hovers_off, 99),
        "open_to_unreachable_runs_s": full,
        "from_file_runs_s": from_file,
        "reopened_to_unreachable_s": statistics.median(warm),
        "reopened_over_from_file": statistics.median(warm) / ff,
        "reopened_runs_s": warm,
    }


@contextlib.contextmanager
def cache_folder(folder: str | None = None):
    """Servers started inside use this unreachable-token cache folder (a new empty one when
    None): the cold and the warm open are measured apart."""
    folder = folder or tempfile.mkdtemp(prefix="reach-bench-cache-")
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = folder
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = before


async def _round(path, text, positions, timeout, first, full, counts, hovers, first_hover, off=False) -> float:
    """One fresh server: open, hovers every 5 ms from the first that answers until the set
    arrives (off: for `timeout` seconds after the open); the seconds to the set."""
    s = ReachSession({CODE: "off"} if off else None)
    await s.start()
    uri = path.as_uri()
    s.client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    t0 = s.client.protocol.last_write
    first.append(await s.wait_for(uri, 1) - t0)
    k, answered = 0, False
    deadline = t0 + timeout
    while uri not in s.with_unreachable and time.perf_counter() < deadline:
        line, col, _ = positions[k % len(positions)]
        k += 1
        h0 = time.perf_counter()
        h = await s.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, col))
        )
        took = time.perf_counter() - h0
        if h is not None and not answered:  # it waited for the lookups: not a latency
            answered = True
            first_hover.append(time.perf_counter() - t0)
        elif h is not None:
            hovers.append(took * 1e3)
        await asyncio.sleep(HOVER_EVERY_S)
    await s.stop()
    if off:
        return timeout
    if uri not in s.with_unreachable:
        raise SystemExit(f"no unreachable findings published within {timeout:.0f} s for {path}")
    at, n = s.with_unreachable[uri]
    full.append(at - t0)
    counts.append(n)
    return at - t0


async def navigation_interplay(path: Path, rounds: int) -> dict:
    """Open -> navigation lookups ready (a definition on a merge part answers), with the
    unreachable computation on and off, alternating: both run beside the server at once."""
    nf = NavFile(path)
    ready: dict[str, list[float]] = {"on": [], "off": []}
    for _ in range(rounds):
        for mode in ("on", "off"):
            s = ReachSession({CODE: "off"} if mode == "off" else None)
            with cache_folder() as folder:  # computed, not read from a cache
                await s.start()
            shutil.rmtree(folder, ignore_errors=True)
            s.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    types.TextDocumentItem(uri=nf.uri, language_id="json", version=1, text=nf.text)
                )
            )
            t0 = s.client.protocol.last_write
            await s.wait_for(nf.uri, 1)
            ready[mode].append(await navigation_ready(s, nf, nf.part_at[0]) - t0)
            await s.stop()
            gc.collect()
    return {
        "file": str(path),
        "navigation_ready_on_s": statistics.median(ready["on"]),
        "navigation_ready_off_s": statistics.median(ready["off"]),
        "runs": ready,
    }


def report(res: dict) -> str:
    rows = [
        [
            "file",
            "unreachable",
            "from_file s",
            "our load s",
            "compute s",
            "compute ÷ from_file",
            "load+compute ÷ from_file",
            "read off the merges s (÷ from_file)",
        ]
    ]
    for r in res["in_process"]:
        merges = (
            f"{r['structure_s']:.3f} ({r['structure_over_from_file']:.2f})" if r.get("structure_s") else "- (engine)"
        )
        rows.append(
            [
                _name(r),
                str(r["unreachable"]),
                f"{r['from_file_s']:.3f}",
                f"{r['load_s']:.3f}",
                f"{r['compute_s']:.3f}",
                f"{r['compute_over_from_file']:.2f}",
                f"{r['load_and_compute_over_from_file']:.2f}",
                merges,
            ]
        )
    out = [_table(rows), ""]
    rows = [
        [
            "file (server)",
            "open→diagnostics s",
            "open→unreachable s",
            "from_file s",
            "÷ from_file",
            "hover p50/p99 ms meanwhile (n)",
            "same window, code off",
            "first hover s",
            "reopened→unreachable s (÷ from_file)",
        ]
    ]
    for r in res["server"]:
        rows.append(
            [
                _name(r),
                f"{r['open_to_diagnostics_s']:.3f}",
                f"{r['open_to_unreachable_s']:.3f}",
                f"{r['from_file_s']:.3f}",
                f"{r['unreachable_over_from_file']:.2f}",
                f"{r['hover_p50_ms']:.1f}/{r['hover_p99_ms']:.1f} ({r['hovers']})",
                f"{r['hover_off_p50_ms']:.1f}/{r['hover_off_p99_ms']:.1f} ({r['hovers_off']})",
                f"{r['open_to_first_hover_s']:.2f}" if r["open_to_first_hover_s"] else "-",
                f"{r['reopened_to_unreachable_s']:.3f} ({r['reopened_over_from_file']:.2f})",
            ]
        )
    out.append(_table(rows))
    if res.get("navigation"):
        rows = [["file", "open→navigation ready s (unreachable on)", "(off)"]]
        for r in res["navigation"]:
            rows.append([_name(r), f"{r['navigation_ready_on_s']:.2f}", f"{r['navigation_ready_off_s']:.2f}"])
        out += ["", _table(rows)]
    return "\n".join(out)


def _name(r: dict) -> str:
    p = Path(r["file"])
    return f"{p.parent.name}/{p.name}"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows)


def quick_vocab(folder: Path) -> Path:
    """The example byte-level BPE (vocab.json + merges.txt) with `<|endoftext|>` in its vocab,
    as GPT-2's encoder.json has it: one unreachable token, found in a second, not in ten."""
    src, out = ROOT / "examples" / "gpt2-style", folder / "gpt2-style-endoftext"
    out.mkdir()
    vocab = json.loads((src / "vocab.json").read_text(encoding="utf-8"))
    vocab["<|endoftext|>"] = max(vocab.values()) + 1
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    shutil.copyfile(src / "merges.txt", out / "merges.txt")
    return out / "vocab.json"


def run(quick: bool = False, rounds: int | None = None) -> dict:
    rounds = rounds or (1 if quick else 3)
    missing = [] if quick else [f for f in {*FILES, *SERVER_FILES} if not (CORPUS / f).is_file()]
    if missing:
        raise SystemExit(f"corpus files missing: {', '.join(missing)} (set TOKENIZER_CORPUS)")
    with tempfile.TemporaryDirectory(prefix="reach-bench-quick-") as tmp:
        # quick: every row on small files (the rows work, not their figures)
        files = [quick_vocab(Path(tmp))] if quick else [CORPUS / f for f in FILES]
        server_files = files if quick else [CORPUS / f for f in SERVER_FILES]
        nav_files = [QUICK_NAV_FILE] if quick else server_files  # navigation: a tokenizer.json
        res: dict = {"rounds": rounds, "in_process": [], "server": []}
        for f in files:
            res["in_process"].append(in_process(f, rounds))
        rng = random.Random(1234)
        for f in server_files:
            res["server"].append(asyncio.run(through_server(f, rounds, rng)))
        res["navigation"] = [asyncio.run(navigation_interplay(f, rounds)) for f in nav_files]
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the small examples, one round")
    ap.add_argument("--rounds", type=int, default=None)
    args = ap.parse_args()
    res = run(args.quick, args.rounds)
    print(report(res))
    if args.quick:  # the small examples' figures: printed, never kept
        return 0
    out = ROOT / "bench" / "results" / "reachability.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
