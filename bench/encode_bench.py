"""Benchmark: `tokenizer-lsp.encode` through the real server, next to Tokenizer.from_file.

    python bench/encode_bench.py            # qwen3 and gemma3, 50 calls each
    python bench/encode_bench.py --quick    # the small example file, 10 calls (CI keeps it working)
    python bench/encode_bench.py --old ../old/server --rounds 5   # an older tree's server beside this one

For each file, a fresh server over stdio (the `tokenizer-lsp` a user runs): open the file,
wait for its diagnostics, then encode a 1 KB multilingual text: the first call (it starts the
engine helper process and loads the file there), then p50/p99 of the next calls, each
request written -> response read. `unreachable-token` is turned off so the helper process
does only this. `Tokenizer.from_file` of the same file is timed in this process. Target:
p50 < 20 ms after the first call.

--old (bench/sides.py): per round, for each file, the old side's server then this checkout's,
each with its tree's server/ first on PYTHONPATH; a row per file and side, each figure the
median over the rounds (min-max with more than one round).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sides import grid, server_sides, show, spread  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
EXAMPLE = ROOT / "examples" / "tokenizer.json"

# about 1 KB of UTF-8: Latin, Cyrillic, CJK, Arabic, Devanagari, emoji, code, whitespace
SAMPLE = (
    "The quick brown fox jumps over the lazy dog. Der Bär läuft über die Straße. "
    "Привет, как дела? 我们今天去北京看长城。 こんにちは、世界。 مرحبا بالعالم. नमस्ते दुनिया। "
    "👋🏽 👨‍👩‍👧 🇫🇷 ✔️\n\tdef f(x):\n\t\treturn {\"a\": [1, 2.5e-3]}  # comment\r\n"
)
while len(SAMPLE.encode()) < 1024:
    SAMPLE += SAMPLE
SAMPLE = SAMPLE.encode()[:1024].decode("utf-8", "ignore")


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


async def measure(path: Path, calls: int, server_path: str | None = None) -> dict:
    client = LanguageClient("encode-bench", "1")
    published = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params):
        published.set()

    env = {**os.environ, "PYTHONPATH": server_path} if server_path else None
    await client.start_io(sys.executable, "-m", "tokenizer_lsp", env=env)
    drain = asyncio.create_task(_drain(client._server.stderr))
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                initialization_options={"diagnostics": {"severity": {"unreachable-token": "off"}}},
            )
        )
        client.initialized(types.InitializedParams())
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="json", version=1, text=path.read_text(encoding="utf-8"))
            )
        )
        await published.wait()
        params = types.ExecuteCommandParams(command="tokenizer-lsp.encode", arguments=[uri, SAMPLE])
        t0 = time.perf_counter()
        first = await client.workspace_execute_command_async(params)
        first_s = time.perf_counter() - t0
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            await client.workspace_execute_command_async(params)
            times.append(time.perf_counter() - t0)
    finally:
        try:
            await asyncio.wait_for(client.shutdown_async(None), 10)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 10)
        except Exception:  # noqa: BLE001 (a benchmark's teardown: kill what is left)
            client._server.kill()
        drain.cancel()
    t0 = time.perf_counter()
    import tokenizers

    tokenizers.Tokenizer.from_file(str(path))
    from_file_s = time.perf_counter() - t0
    return {
        "file": str(path),
        "tokens": len(first["ids"]),
        "text_bytes": len(SAMPLE.encode()),
        "first_call_s": first_s,
        "p50_ms": statistics.median(times) * 1e3,
        "p99_ms": pct(times, 99) * 1e3,
        "calls": calls,
        "from_file_s": from_file_s,
    }


async def _drain(stream) -> None:
    while await stream.readline():
        pass


def run(quick: bool = False, sides: dict[str, str | None] | None = None, rounds: int = 1) -> dict:
    """A row per file and side (plain: one side, the installed server): each figure over the rounds."""
    # quick: the rows work (CI), not their figures
    files = [EXAMPLE] if quick else [CORPUS / "qwen3/tokenizer.json", CORPUS / "gemma3/tokenizer.json"]
    calls = 10 if quick else 50
    sides = sides or {"new": None}
    rows = []
    for path in files:
        rel = str(path.relative_to(CORPUS) if path.is_relative_to(CORPUS) else path.relative_to(ROOT))
        if not path.is_file():
            print(f"skipped {rel}: the corpus is absent ({CORPUS})")
            continue
        got: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(rounds):
            for side, server_path in sides.items():
                got[side].append(asyncio.run(measure(path, calls, server_path)))
        for side, runs in got.items():
            row = {"file": rel, "side": side, "tokens": runs[0]["tokens"], "text_bytes": runs[0]["text_bytes"]}
            row["calls"], row["rounds"] = calls, rounds
            for k in ("first_call_s", "p50_ms", "p99_ms", "from_file_s"):
                row[k] = spread([r[k] for r in runs])
            rows.append(row)
    return {"encode": rows}


def report(result: dict) -> str:
    cells = [["file", "side", "tokens", "first call s", "p50 ms", "p99 ms", "from_file s"]]
    for r in result["encode"]:
        cells.append(
            [r["file"], r["side"], str(r["tokens"]), show(r["first_call_s"], "{:.2f}"), show(r["p50_ms"], "{:.1f}")]
            + [show(r["p99_ms"], "{:.1f}"), show(r["from_file_s"], "{:.2f}")]
        )
    return grid(cells)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--old", default="", help="an older checkout's server/ folder, measured beside this one")
    ap.add_argument("--rounds", type=int, default=1, help="rounds (each: every file, every side)")
    args = ap.parse_args()
    sides = server_sides(args.old) if args.old else None
    if args.old and sides is None:
        return 2
    print(report(run(args.quick, sides, args.rounds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
