"""The playground's figures (issue 34): API round trip, keystroke to painted page, memory.

    python bench/playground_bench.py                     # qwen3 + llama3 side by side
    python bench/playground_bench.py --paths qwen3 --rounds 100

- 1 KB of text on qwen3 over the API (POST /api/encode on one keep-alive connection, the
  answer's JSON read and parsed): p50 / p99 of --rounds requests, each text a little different;
- 100 KB on qwen3: p50 / max of 10;
- in Debian's Chromium (playwright, /usr/bin/chromium): a keystroke in 1 KB of text to every
  column painted (the input event to the frame after the last column shows the new text),
  p50 / p99; and 100 KB pasted to painted;
- memory: RSS and PSS of the playground's process tree after all of that, against a Python
  process that only loads the same engines (tokenizers.Tokenizer.from_file per tokenizer.json).
Printed as JSON (not written: numbers of a shared machine, for the issue's report).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))

from tests.playground.harness import start, stop  # noqa: E402


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def kb_text(n: int) -> str:
    base = (
        "Tokenizers split text into tokens. 你好，世界。 Emoji 👩‍👩‍👧 e\u0301 \tdef f(x):    return x\n"
        "The quick brown fox jumps over the lazy dog; numbers 12345 and code {a: [1, 2]}.\n"
    )
    return (base * (n // len(base.encode()) + 2)).encode()[:n].decode("utf-8", "ignore")


def api_round_trips(pg, text: str, rounds: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", pg.port)
    out = []
    for k in range(rounds):
        body = json.dumps({"tokenizer": 0, "text": f"{k} {text}"[: len(text)]}).encode()
        t0 = time.perf_counter()
        conn.request(
            "POST",
            f"/api/encode?token={pg.token}",
            body,
            {"Host": f"127.0.0.1:{pg.port}", "Content-Type": "application/json"},
        )
        res = conn.getresponse()
        json.loads(res.read())
        out.append((time.perf_counter() - t0) * 1000)
        assert res.status == 200
    conn.close()
    return out


PAINT = """async ([text, n]) => {
  const ta = document.querySelector('#text-input');
  const cols = () => [...document.querySelectorAll('#text-view .column')];
  const t0 = performance.now();
  ta.value = text;
  ta.dispatchEvent(new Event('input', {bubbles: true}));
  await new Promise((resolve) => {
    const check = () => (cols().length === n && cols().every(c => c.dataset.current === 'true')) ? resolve() : requestAnimationFrame(check);
    check();
  });
  await new Promise((r) => requestAnimationFrame(() => r()));
  return performance.now() - t0;
}"""


def browser_figures(pg, n_cols: int, rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium")
        page = b.new_page(viewport={"width": 1280, "height": 800})
        page.goto(pg.url)
        page.wait_for_selector('#text-view .column[data-current="true"]')
        base = kb_text(1000)
        page.evaluate(PAINT, [base, n_cols])
        keys = [page.evaluate(PAINT, [base[:500] + chr(97 + k % 26) + base[501:], n_cols]) for k in range(rounds)]
        big = kb_text(100_000)
        pasted = [page.evaluate(PAINT, [f"{k}{big}"[:100_000], n_cols]) for k in range(3)]
        b.close()
    return {
        "keystroke_1kb_to_painted_ms": {"p50": round(pct(keys, 50), 1), "p99": round(pct(keys, 99), 1)},
        "paste_100kb_to_painted_ms": {"p50": round(pct(pasted, 50), 1), "max": round(max(pasted), 1)},
    }


def tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for t in os.listdir(f"/proc/{p}/task"):
            with open(f"/proc/{p}/task/{t}/children") as f:
                todo += [int(c) for c in f.read().split()]
    return out


def mem_mb(pids: list[int]) -> dict:
    rss = pss = 0
    for p in pids:
        with open(f"/proc/{p}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
    return {"rss_mb": round(rss / 1024, 1), "pss_mb": round(pss / 1024, 1)}


def engines_only(files: list[str]) -> dict:
    code = (
        "import sys, tokenizers\n"
        "e = [tokenizers.Tokenizer.from_file(f) for f in sys.argv[1:]]\n"
        "e[0].encode('warm up ' * 100)\n"
        "rss = pss = 0\n"
        "for line in open('/proc/self/smaps_rollup'):\n"
        "    if line.startswith('Rss:'): rss = int(line.split()[1])\n"
        "    if line.startswith('Pss:'): pss = int(line.split()[1])\n"
        "print(rss, pss)\n"
    )
    rss, pss = map(
        int,
        subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True, check=True).stdout.split(),
    )
    return {"rss_mb": round(rss / 1024, 1), "pss_mb": round(pss / 1024, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paths", nargs="+", default=["qwen3", "llama3"])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    paths = [str(CORPUS / p) for p in args.paths]
    t0 = time.perf_counter()
    pg = start(paths)
    started = time.perf_counter() - t0
    try:
        one = api_round_trips(pg, kb_text(1000), args.rounds)
        big = api_round_trips(pg, kb_text(100_000), 10)
        out = {
            "tokenizers": args.paths,
            "start_to_url_s": round(started, 2),
            "api_1kb_qwen3_ms": {"p50": round(pct(one, 50), 2), "p99": round(pct(one, 99), 2), "n": len(one)},
            "api_100kb_qwen3_ms": {"p50": round(pct(big, 50), 1), "max": round(max(big), 1), "n": len(big)},
        }
        if not args.no_browser:
            out.update(browser_figures(pg, len(paths), 50))
        out["playground_tree"] = mem_mb(tree(pg.proc.pid))
        files = [str(Path(p) / "tokenizer.json") if os.path.isdir(p) else p for p in paths]
        out["engines_only"] = engines_only(files)
        out["rss_ratio"] = round(out["playground_tree"]["rss_mb"] / out["engines_only"]["rss_mb"], 2)
    finally:
        stop(pg)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
