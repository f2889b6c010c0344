"""Benchmark: a GGUF's tokenizer read from a 3 GB model file against the same vocabulary in a
small vocab-only file.

    python bench/gguf_bench.py             # 3 rounds; --old SERVER_DIR: that code on the big file once
    python bench/gguf_bench.py --quick     # 1 round, no old rows

Files: the corpus's ggml-vocab-gpt-2.gguf (vocab only, 1.7 MB), and a GGUF written with
gguf.GGUFWriter holding the same tokenizer metadata plus one 3 GB tensor whose data is a hole
(a sparse file: nothing on disk, but every byte readable as zeros, so a reader that reads the
file whole pays for 3 GB).

Rows, each in a fresh process (time = wall clock, peak = the process's maximum RSS):
- `tokenizer-lsp stats --no-unreachable` and `check` as a user runs them, this tree's code
  ("new") and, with --old, the code at OLD (e.g. a checkout from before the GGUF plug-in,
  which reads the whole file before saying it is not a tokenizer);
- the readers alone: ours (core/formats/gguf/reader.py + rows) against gguf.GGUFReader
  (constructed, then the token strings taken out of it).
Writes bench/results/gguf.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))

# runs a command as a child and prints its wall time and the child's peak RSS
_RUNNER = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t
print(json.dumps({"s": wall, "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "rc": r.returncode, "stderr": r.stderr.decode(errors="replace")[-300:]}))
"""

_OURS = r"""
import sys
from tokenizer_lsp.core.formats.gguf import PLUGIN
t = PLUGIN.read(sys.argv[1]); assert len(t.rows) > 0
"""

_GGUF_READER = r"""
import sys, gguf
r = gguf.GGUFReader(sys.argv[1])
f = r.fields["tokenizer.ggml.tokens"]
tokens = [bytes(f.parts[i]).decode("utf-8") for i in f.data]; assert tokens
"""


def measure(cmd: list[str], pythonpath: str) -> dict:
    env = {**os.environ, "PYTHONPATH": pythonpath, "TOKENIZER_LSP_CACHE_DIR": "off"}
    out = subprocess.run([sys.executable, "-c", _RUNNER, *cmd], capture_output=True, text=True, env=env)
    return json.loads(out.stdout)


def big_gguf(small: Path, dest: Path, size: int) -> Path:
    from tokenizer_lsp.core.formats.gguf import PLUGIN

    from tests.gguf_fixtures import write_gguf

    t = PLUGIN.read(str(small))
    names = {None: 1, "NORMAL": 1, "UNKNOWN": 2, "CONTROL": 3, "USER_DEFINED": 4, "UNUSED": 5, "BYTE": 6}
    conv = {
        "tokens": [r.token for r in t.rows],
        "types": [names[r.type] for r in t.rows],
        "merges": list(t.meta["_merges"]),
        "pre": t.meta["pre"],
        "bos": t.meta["bos_token_id"],
        "eos": t.meta["eos_token_id"],
        "template": None,
    }
    return write_gguf(dest, conv, tensor_bytes=size)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument(
        "--old",
        default="",
        help="server/ of the code to compare with (a checkout of an older revision; none by default)",
    )
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "gguf.json"))
    args = p.parse_args()
    rounds = 1 if args.quick else 3
    small = CORPUS / "gguf" / "ggml-vocab-gpt-2.gguf"
    new = str(ROOT / "server")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        big = big_gguf(small, Path(tmp) / "model-3gb.gguf", 3 << 30)
        files = {"vocab-only 1.7 MB": small, f"model {big.stat().st_size / 2**30:.1f} GB (sparse)": big}
        # Llama 3's vocabulary (128k tokens, 280k merges) from llama-cpp-python's sdist where the
        # tests cached it: what a real 4 GB model carries
        cache = Path(os.environ.get("TOKENIZER_LSP_TEST_CACHE", Path.home() / ".cache" / "tokenizer-lsp-tests"))
        llama3 = cache / "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-llama-bpe.gguf"
        if llama3.is_file():
            files[f"llama3 vocab-only {llama3.stat().st_size / 2**20:.1f} MB"] = llama3
            files["llama3 model 4.0 GB (sparse)"] = big_gguf(llama3, Path(tmp) / "llama3-4gb.gguf", 4 << 30)
        cli = [sys.executable, "-m", "tokenizer_lsp"]
        cases = []
        for label, path in files.items():
            huge = path.stat().st_size > 1 << 30
            for what, cmd in (("stats", ["stats", "--no-unreachable"]), ("check", ["check"])):
                cases.append((f"{what} new", label, cli + cmd + [str(path)], new, rounds))
                if args.old and not args.quick and not label.startswith("llama3"):
                    cases.append((f"{what} old", label, cli + cmd + [str(path)], args.old, 1 if huge else rounds))
            cases.append(("reader ours", label, [sys.executable, "-c", _OURS, str(path)], new, rounds))
            if not label.startswith("llama3"):  # GGUFReader: tens of seconds on 400k strings
                cases.append(
                    ("reader gguf.GGUFReader", label, [sys.executable, "-c", _GGUF_READER, str(path)], new, rounds)
                )
        for name, label, cmd, pypath, n in cases:
            runs = [measure(cmd, pypath) for _ in range(n)]
            row = {
                "what": name,
                "file": label,
                "rounds": n,
                "s": round(statistics.median(r["s"] for r in runs), 3),
                "peak_mb": round(statistics.median(r["peak_mb"] for r in runs), 1),
                "exit": runs[-1]["rc"],
                "stderr": runs[-1]["stderr"].strip()[-160:],
            }
            rows.append(row)
            print(
                f"{name:24} {label:26} {row['s']:7.2f} s {row['peak_mb']:8.1f} MB  exit {row['exit']}"
                + (f"  ({row['stderr']})" if row["exit"] == 2 else ""),
                flush=True,
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine_cores": os.cpu_count(),
                "rows": rows,
                "note": "new and old measured in the same run on a shared, loaded machine",
            },
            indent=2,
        )
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
