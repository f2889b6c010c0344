"""Benchmark: `tokenizer-lsp.encode` through the real server, next to Tokenizer.from_file.

    python bench/encode_bench.py            # qwen3 and gemma3, 50 calls each
    python bench/encode_bench.py --quick    # llama2, 10 calls (CI keeps it working)

For each file, a fresh server over stdio (the `tokenizer-lsp` a user runs): open the file,
wait for its diagnostics, then encode a 1 KB multilingual text: the first call (it starts the
engine helper process and loads the file there), then p50/p99 of the next calls, each
request written -> response read. `unreachable-token` is turned off so the helper process
does only this. `Tokenizer.from_file` of the same file is timed in this process. Target:
p50 < 20 ms after the first call.
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

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))

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


async def measure(path: Path, calls: int) -> dict:
    client = LanguageClient("encode-bench", "1")
    published = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params):
        published.set()

    await client.start_io(sys.executable, "-m", "tokenizer_lsp")
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
        "file": str(path.relative_to(CORPUS)),
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


def run(quick: bool = False) -> dict:
    files = ["llama2/tokenizer.json"] if quick else ["qwen3/tokenizer.json", "gemma3/tokenizer.json"]
    calls = 10 if quick else 50
    rows = []
    for rel in files:
        path = CORPUS / rel
        if not path.is_file():
            print(f"skipped {rel}: the corpus is absent ({CORPUS})")
            continue
        rows.append(asyncio.run(measure(path, calls)))
    return {"encode": rows}


def report(result: dict) -> str:
    head = f"{'file':<24} {'tokens':>6} {'first call':>11} {'p50':>9} {'p99':>9} {'from_file':>10}"
    lines = [head, "-" * len(head)]
    for r in result["encode"]:
        lines.append(
            f"{r['file']:<24} {r['tokens']:>6} {r['first_call_s']:>10.2f}s {r['p50_ms']:>7.1f}ms "
            f"{r['p99_ms']:>7.1f}ms {r['from_file_s']:>9.2f}s"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(report(run(args.quick)))


if __name__ == "__main__":
    main()
