"""Benchmark: the model folder. Checking a folder (a tokenizer with its config files) next to
`tokenizers.Tokenizer.from_file` and next to checking the tokenizer file alone; and through
the server, open -> diagnostics of tokenizer.json with and without a config file beside it
(the config files are read after its diagnostics: it should not be slower), and of the
config file itself.

    python bench/folder_bench.py            # qwen3 (and gemma3's 1 MB tokenizer_config.json), 3 rounds
    python bench/folder_bench.py --quick    # llama2, one round (CI keeps it working)

Medians of the rounds, interleaved (one of each per round) on a noisy machine: read the
ratios, not the absolute numbers. Prints a table and returns the numbers from run(quick).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


FAST = ("--severity", "unreachable-token=off")


def _check(*paths) -> float:
    """Seconds for `tokenizer-lsp check PATH...` in this process (output discarded)."""
    from tokenizer_lsp.cli import main as cli

    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        start = time.perf_counter()
        cli(["check", *map(str, paths)])
        return time.perf_counter() - start


def _from_file(path: Path) -> float:
    from tokenizers import Tokenizer

    start = time.perf_counter()
    Tokenizer.from_file(str(path))
    return time.perf_counter() - start


async def _open_to_diagnostics(path: Path) -> float:
    """Seconds from didOpen to the file's first diagnostics, in a fresh server."""
    from lsprotocol import types

    from bench import Session

    s = Session()
    await s.start()
    try:
        uri = path.as_uri()
        s.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="json", version=1, text=path.read_text(encoding="utf-8"))
            )
        )
        opened = s.client.protocol.last_write
        return await asyncio.wait_for(s.wait_for(uri, 1), 300) - opened
    finally:
        await s.stop()


def run(quick: bool = False) -> dict:
    name = "llama2" if quick else "qwen3"
    folder = CORPUS / name
    if not (folder / "tokenizer_config.json").is_file():
        print(f"corpus folder {folder} is absent (set TOKENIZER_CORPUS): nothing measured")
        return {}
    rounds = 1 if quick else 3
    rows: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        rows.setdefault(key, []).append(value)

    with tempfile.TemporaryDirectory() as tmp:
        alone = Path(tmp) / "alone"
        alone.mkdir()
        shutil.copyfile(folder / "tokenizer.json", alone / "tokenizer.json")
        _from_file(folder / "tokenizer.json")  # warm up: imports and the page cache are not measured
        _check(folder / "tokenizer_config.json")
        _check(folder, *FAST)
        for _ in range(rounds):
            add(f"Tokenizer.from_file({name}/tokenizer.json)", _from_file(folder / "tokenizer.json"))
            # unreachable-token (encoding every token with tokenizers) off, so that the rows
            # differ by the config files only; then the folder with every check
            add("check tokenizer.json (no config beside)", _check(alone / "tokenizer.json", *FAST))
            add(f"check {name}/ (tokenizer.json + tokenizer_config.json)", _check(folder, *FAST))
            add(f"check {name}/tokenizer_config.json", _check(folder / "tokenizer_config.json"))
            add(f"check {name}/ with unreachable-token", _check(folder))
            if not quick and (CORPUS / "gemma3" / "tokenizer_config.json").is_file():
                add(
                    "check gemma3/tokenizer_config.json (1 MB, 6415 added tokens)",
                    _check(CORPUS / "gemma3" / "tokenizer_config.json"),
                )
            add(
                "server: open tokenizer.json -> diagnostics, no config beside",
                asyncio.run(_open_to_diagnostics(alone / "tokenizer.json")),
            )
            add(
                "server: open tokenizer.json -> diagnostics, tokenizer_config.json beside",
                asyncio.run(_open_to_diagnostics(folder / "tokenizer.json")),
            )
            add(
                "server: open tokenizer_config.json -> diagnostics (tokenizer.json on disk)",
                asyncio.run(_open_to_diagnostics(folder / "tokenizer_config.json")),
            )
    medians = {k: statistics.median(v) for k, v in rows.items()}
    base = medians[f"Tokenizer.from_file({name}/tokenizer.json)"]
    width = max(map(len, medians))
    print(f"{'':{width}}  median s  / from_file   ({rounds} round{'s' if rounds > 1 else ''}, {name})")
    for k, v in medians.items():
        print(f"{k:{width}}  {v:8.3f}  {v / base:8.2f}x")
    return medians


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="llama2, one round")
    run(p.parse_args().quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
