"""Typing bursts: how soon fresh answers come after the last keystroke, whatever the burst.

    python bench/typing_burst.py                      # every row of this checkout; --old TREE: old and new side by side
    python bench/typing_burst.py --rows burst         # only the fresh-hover-after-burst rows
    python bench/typing_burst.py --old ../old --new .   # which trees (their server/) to compare
    python bench/typing_burst.py --quick              # small counts (CI keeps it working)

Rows (issue 24), each measured on a fresh server per run, old and new alternated in one run
on this noisy machine (compare within a run, not across runs):
- burst: N one-character edits at 20/s on one vocabulary key (a letter typed at its end; every
  tenth keystroke a backspace), then the time from the last keystroke's bytes going out to the
  first hover on that key that shows the key as it now is (polled every 20 ms). For 10 and 600
  keystrokes, on qwen3/tokenizer.json and the one-line gpt2-openai/encoder.json. Target: the
  600-keystroke time at most 1.5x the 10-keystroke time + 0.3 s.
- during: the one-line encoder.json burst again, a hover on another token (outside the edit)
  after every tenth keystroke; answered = a hover came back whose text names that token's id.
  Target: all answered.
- soak: one-character edits on a copy of whisper-gpt2/vocab.json with its merges.txt and an
  added_tokens.json beside it (bench.bench.soak_typing: words typed and deleted at the end of
  random keys), the server's RSS sampled every `every` edits after a warm-up; growth = least
  squares slope per 1000 edits; then a hover on a key, timed, and whether it answered.
  Target: <= 0.5 MB per 1000 edits, the hover answered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench as bench_module  # noqa: E402
from bench import CORPUS, ROOT, Session, current_rss, slope, soak_keys, soak_typing, utf16_len  # noqa: E402

RATE_PER_S = 20.0
BURST_FILES = ["qwen3/tokenizer.json", "gpt2-openai/encoder.json"]
ENTRY = re.compile(r'"((?:[^"\\]|\\.)+)":\s*(-?\d+)')


def plain_keys(text: str, escaped: bool = False) -> list[tuple[int, int, int, str, int]]:
    """(line, utf-16 column of the key's first character, of its closing quote, key as
    written, id) of every vocabulary entry written without escapes (`escaped`: of every
    entry; columns counted on from the last one: a one-line file is one long line)."""
    out = []
    line, at, col = 0, 0, 0
    for m in ENTRY.finditer(text):
        start = m.start() + 1
        gap = text[at:start]
        nl = gap.count("\n")
        if nl:
            line += nl
            col = utf16_len(gap[gap.rfind("\n") + 1 :])
        else:
            col += utf16_len(gap)
        at = start
        if escaped or "\\" not in m.group(1):
            out.append((line, col, col + utf16_len(m.group(1)), m.group(1), int(m.group(2))))
    return out


def burst_keystrokes(n: int, rng: random.Random) -> tuple[list[tuple[int, str]], str]:
    """(offset from the key's end, text) per keystroke (text "" = backspace), and what the
    key ends with afterwards."""
    typed, out = "", []
    for k in range(n):
        if k % 10 == 9 and typed:
            out.append((len(typed) - 1, ""))
            typed = typed[:-1]
        else:
            ch = rng.choice("qxzjvkw")
            out.append((len(typed), ch))
            typed += ch
    return out, typed


async def open_and_ready(s: Session, uri: str, text: str, at: tuple[int, int]) -> None:
    c = s.client
    c.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await asyncio.wait_for(s.wait_for(uri, 1), 120)
    for _ in range(1500):
        if await c.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(*at))):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(2.0)  # navigation lookups and the unreachable set of the open are done


def hover_text(h) -> str:
    return h.contents.value if h is not None and hasattr(h.contents, "value") else ""


async def burst(server_path: str, path: Path, n: int, rng: random.Random, others: int = 0) -> dict:
    """One burst of n keystrokes; `others`: hovers on other tokens during it (one every tenth)."""
    text = path.read_text(encoding="utf-8")
    keys = plain_keys(text)
    line, col, end, key, _ = keys[len(keys) // 2]
    strokes, typed = burst_keystrokes(n, rng)
    s = Session(server_path, cache_dir="off")  # the server of that tree, no cache
    await s.start()
    uri = path.as_uri()
    doc = types.TextDocumentIdentifier(uri)
    c = s.client
    res: dict = {"file": f"{path.parent.name}/{path.name}", "keystrokes": n}
    try:
        await open_and_ready(s, uri, text, (line, col + 1))
        # other tokens: far from the edited one, before and after it, on the same line when
        # the file is one line
        candidates = [k for k in plain_keys(text, escaped=True) if abs(k[1] - col) > 200 or k[0] != line]
        targets = rng.sample(candidates, min(len(candidates), max(others, 1)))
        answered, correct, asked = 0, 0, 0
        version = 1
        t_next = time.perf_counter()
        for k, (pos, ch) in enumerate(strokes):
            version += 1
            at = types.Position(line, end + pos)
            stop = types.Position(line, end + pos + (1 if ch == "" else 0))
            c.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [types.TextDocumentContentChangePartial(range=types.Range(at, stop), text=ch)],
                )
            )
            if others and k % 10 == 5 and asked < others:
                tl, tc, _, tkey, tid = targets[asked]
                # the target's column moves when it is after the edit on the same line
                shift = sum(1 if s_ch else -1 for _, s_ch in strokes[: k + 1]) if (tl == line and tc > col) else 0
                h = await c.text_document_hover_async(types.HoverParams(doc, types.Position(tl, tc + shift + 1)))
                asked += 1
                if h is not None:
                    answered += 1
                    correct += f"id {tid}" in hover_text(h)
            t_next += 1 / RATE_PER_S
            await asyncio.sleep(max(0.0, t_next - time.perf_counter()))
        last = c.protocol.last_write
        fresh = None
        for _ in range(3000):  # up to a minute
            h = await c.text_document_hover_async(types.HoverParams(doc, types.Position(line, col + 1)))
            # the hover's range ends where the key now ends (its text may be cut short)
            if (
                h is not None
                and h.range is not None
                and h.range.end.character - (end + len(typed)) in (0, 1)
                and h.range.start.line == line
            ):
                fresh = time.perf_counter() - last
                break
            await asyncio.sleep(0.02)
        res["fresh_hover_after_last_keystroke_s"] = fresh
        if others:
            res.update(hovers_asked=asked, hovers_answered=answered, hovers_correct=correct)
        # the last version's diagnostics, and which versions were published after the burst
        try:
            await asyncio.wait_for(s.wait_for(uri, version), 60)
            res["last_version_published"] = True
        except asyncio.TimeoutError:
            res["last_version_published"] = False
        after = [v for (u, v), t in s.published.items() if u == uri and t >= last]
        res["versions_published_after_burst"] = sorted(v for v in after if v is not None)
    finally:
        await s.stop()
    return res


def soak_folder(tmp: Path) -> Path:
    src = CORPUS / "whisper-gpt2"
    folder = tmp / "soak"
    folder.mkdir()
    shutil.copy(src / "vocab.json", folder / "vocab.json")
    shutil.copy(src / "merges.txt", folder / "merges.txt")
    vocab = json.loads((src / "vocab.json").read_text(encoding="utf-8"))
    top = max(vocab.values())
    (folder / "added_tokens.json").write_text(json.dumps({"<|bench_a|>": top + 1, "<|bench_b|>": top + 2}))
    return folder / "vocab.json"


async def soak(server_path: str, path: Path, edits: int, warmup: int, every: int, rng: random.Random) -> dict:
    text = path.read_text(encoding="utf-8")
    keys, vocab = soak_keys(text, 200, rng)
    s = Session(server_path, cache_dir="off")  # the server of that tree, no cache
    await s.start()
    uri = path.as_uri()
    c = s.client
    doc = types.TextDocumentIdentifier(uri)
    samples: list[tuple[int, float]] = []
    res: dict = {"file": "whisper-gpt2/vocab.json + merges.txt + added_tokens.json", "edits": edits}
    try:
        line, col, _, _ = keys[0]
        await open_and_ready(s, uri, text, (line, col + 1))
        typing = soak_typing(keys, vocab, rng)
        version = 1
        for n in range(1, edits + 1):
            start, end, ch, (line, col) = next(typing)
            version += 1
            c.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [types.TextDocumentContentChangePartial(range=types.Range(start, end), text=ch)],
                )
            )
            if n % 50 == 0:  # a round trip: the server has read every edit before it
                await c.text_document_hover_async(types.HoverParams(doc, types.Position(line, col + 1)))
            else:
                await asyncio.sleep(0)
            if n % 250 == 0 and n != edits:
                await asyncio.wait_for(s.wait_for(uri, version), 120)
            if n >= warmup and (n - warmup) % every == 0:
                await asyncio.sleep(0.3)
                samples.append((n, current_rss(s.pid) / 2**20))
        # the hover right after the last edit (its build not waited for), on a key as the
        # file has it again (each word typed is deleted)
        # file has it again (each word typed is deleted): before the one being typed, so
        # its column is as in the file
        k_line, k_col, _, _ = min(k for k in keys if (k[0], k[1]) != (line, col))
        t0 = time.perf_counter()
        h = await c.text_document_hover_async(types.HoverParams(doc, types.Position(k_line, k_col + 1)))
        res["hover_after_soak_s"] = time.perf_counter() - t0
        res["hover_after_soak_answered"] = h is not None
        await asyncio.wait_for(s.wait_for(uri, version), 120)
    finally:
        await s.stop()
    res["rss_samples_mb"] = [(n, round(mb, 2)) for n, mb in samples]
    res["growth_mb_per_1000_edits"] = slope(samples) * 1000
    return res


def summary(results: dict) -> str:
    """The rows against their targets, old and new side by side."""
    lines = ["", "row                                   tree  value           target"]
    by = {(r["file"], r["keystrokes"], r["tree"]): r["fresh_hover_after_last_keystroke_s"] for r in results["burst"]}
    for (file, n, tree), t in sorted(by.items()):
        short = min(k for f, k, tr in by if f == file and tr == tree)
        if n == short:
            continue
        t10 = by[(file, short, tree)]
        limit = None if t10 is None else 1.5 * t10 + 0.3
        met = t is not None and limit is not None and t <= limit
        lines.append(
            f"fresh hover after {n} keys, {file:24} {tree:4}  {fmt(t)} s (10: {fmt(t10)} s)"
            f"  <= {fmt(limit)} s: {'met' if met else 'NOT met'}"
        )
    for r in results["during"]:
        met = r["hovers_answered"] == r["hovers_asked"] == r["hovers_correct"]
        lines.append(
            f"hovers answered during the one-line burst      {r['tree']:4}  "
            f"{r['hovers_answered']}/{r['hovers_asked']}        all: {'met' if met else 'NOT met'}"
        )
    for r in results["soak"]:
        met = r["growth_mb_per_1000_edits"] <= 0.5 and r["hover_after_soak_answered"]
        lines.append(
            f"soak growth per 1000 edits, hover after       {r['tree']:4}  "
            f"{r['growth_mb_per_1000_edits']:.2f} MB, {r['hover_after_soak_s']:.2f} s"
            f"  <= 0.5 MB, answered: {'met' if met else 'NOT met'}"
        )
    return "\n".join(lines)


def fmt(v) -> str:
    return "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))


async def main_async(args) -> int:
    trees = {"old": str(Path(args.old).resolve() / "server"), "new": str(Path(args.new).resolve() / "server")}
    trees = {k: v for k, v in trees.items() if k in args.trees.split(",") and (k != "old" or args.old)}
    bench_module.LOG = args.log
    results: dict = {"burst": [], "during": [], "soak": []}
    n_short, n_long = (10, 60) if args.quick else (10, 600)
    if "burst" in args.rows:
        for rel in args.files.split(","):
            for n in (n_short, n_long):
                for label, tree in trees.items():
                    r = await burst(tree, CORPUS / rel, n, random.Random(args.seed))
                    r["tree"] = label
                    results["burst"].append(r)
                    print(
                        f"burst {r['file']:28} {n:4} keys {label}: fresh hover {fmt(r['fresh_hover_after_last_keystroke_s'])} s"
                        f"; published after: {r['versions_published_after_burst'][-5:]}",
                        flush=True,
                    )
    if "during" in args.rows:
        for label, tree in trees.items():
            r = await burst(
                tree,
                CORPUS / args.during_file,
                60 if args.quick else 600,
                random.Random(args.seed),
                others=6 if args.quick else 60,
            )
            r["tree"] = label
            results["during"].append(r)
            print(
                f"during one-line burst {label}: hovers answered {r['hovers_answered']}/{r['hovers_asked']}, "
                f"naming the right id {r['hovers_correct']}",
                flush=True,
            )
    if "soak" in args.rows:
        edits, warmup, every = (1500, 500, 250) if args.quick else (6000, 1000, 1000)
        for label, tree in trees.items():
            with tempfile.TemporaryDirectory() as tmp:
                r = await soak(tree, soak_folder(Path(tmp)), edits, warmup, every, random.Random(args.seed))
            r["tree"] = label
            results["soak"].append(r)
            print(
                f"soak {label}: {r['growth_mb_per_1000_edits']:.2f} MB per 1000 edits, samples {r['rss_samples_mb']}; "
                f"hover after: {r['hover_after_soak_s']:.2f} s, answered {r['hover_after_soak_answered']}",
                flush=True,
            )
    print(summary(results), flush=True)
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "typing_burst.json").write_text(json.dumps(results, indent=1))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--old",
        default="",
        help="tree whose server/ is the old code (e.g. `git worktree add ../old REV`); none: new only",
    )
    ap.add_argument("--new", default=str(ROOT), help="tree whose server/ is the new code")
    ap.add_argument("--rows", default="burst,during,soak")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--trees", default="old,new", help="which of the two to run")
    ap.add_argument("--files", default=",".join(BURST_FILES))
    ap.add_argument("--during-file", default="gpt2-openai/encoder.json")
    ap.add_argument("--log", action="store_true", help="print the servers' logs")
    ap.add_argument("--seed", type=int, default=24)
    args = ap.parse_args()
    args.rows = set(args.rows.split(","))
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
