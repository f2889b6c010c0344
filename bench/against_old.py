"""bench.py --old PATH: an older tree's server beside this checkout's, rounds interleaved.

    git worktree add ../old 8768bca        # an older checkout (not committed anywhere)
    python bench/bench.py --old ../old/server --files qwen3/tokenizer.json --rounds 5

The same parts as bench.py, on the same files: the lightness rows (bench.measure_file, one
open a round: open -> diagnostics and from_file, hover p50/p99, inlay hints, an edit inside a
token -> diagnostics, a re-parse edit -> diagnostics, RSS / file size; the 2x/4x copies of
--scale too), the navigation rows (open -> navigation ready, definitions, references,
workspace/symbol) and the typing soak (edits/s, hover while typing, RSS growth). Each round
runs every part once for each side, old then new, part by part, so that load from other work
on a shared machine falls on both alike; a round draws its hover targets and edits from the
same seeds for both sides (new seeds each round). Each side has its own unreachable-set cache
folder, filled by an untimed open of every file before the first round: warm caches, as the
plain bench.py meets them.

Prints one table, old and new side by side per figure (each side's median and spread over
the rounds, new/old), and writes bench/results/old_vs_new.json (--quick: printed only, unless
--out): the rows, and every round's results of each side.
"""

from __future__ import annotations

import functools
import os
import random
import sys
import tempfile
from pathlib import Path

from open_bench import open_once  # an untimed open, until the server is idle: fills a cache
from sides import load_line, server_sides, side_by_side, table, write_results

from bench import (
    CORPUS,
    ROOT,
    Session,
    measure_file,
    measure_navigation,
    read_nav_files,
    scaled_copy,
    typing_soak,
)


async def against_old(args, got: dict) -> int:
    sides = server_sides(args.old)
    if sides is None:
        return 2
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-old-") as tmp:
        lightness = [(f, "1x") for f in got["files"]]
        if args.scale and not args.quick and not args.soak_only and not args.navigation_only:
            lightness += [(scaled_copy(CORPUS / args.scale, k, Path(tmp)), f"{k}x") for k in (2, 4)]
        nav = read_nav_files(got["nav_paths"])
        soak = None if args.navigation_only else got["soak"]
        caches = {side: os.path.join(tmp, f"cache-{side}") for side in sides}
        opened = [f for f, _ in lightness] + [nf.path for nf in nav] + ([soak[0]] if soak else [])
        for side, server in sides.items():
            for f in dict.fromkeys(opened):
                await open_once(f, server, caches[side], cold=False)
        # each part: (its name, its measurement in round r with servers made by `session`)
        parts = [
            (
                f"{name(f)} {scale}",
                lambda session, r, f=f, scale=scale: measure_file(
                    f, 1, args.hovers, random.Random(1234 + r), scale, session
                ),
            )
            for f, scale in lightness
        ]
        if nav:
            counts = got["nav_counts"]
            parts.append(
                ("navigation", lambda session, r: measure_navigation(nav, *counts, random.Random(5678 + r), session))
            )
        if soak:
            parts.append(("soak", lambda session, r: typing_soak(*soak, random.Random(4321 + r), session)))
        rounds: dict[str, list[dict]] = {side: [] for side in sides}
        for r in range(args.rounds):
            for side in sides:
                rounds[side].append({"load_1min": os.getloadavg()[0]})
            for part, measure in parts:
                for side, server in sides.items():
                    print(f"  round {r + 1}/{args.rounds} {side}: {part}", flush=True)
                    session = functools.partial(Session, server, caches[side])  # a fresh server of this side
                    rounds[side][r][part] = await measure(session, r)
    rows = side_by_side(rounds, figures(rounds["new"][0], lightness, soak))
    load_after = os.getloadavg()
    print()
    print(table(rows, list(sides)))
    print(f"{args.rounds} round{'s' if args.rounds > 1 else ''}; {load_line(load_before, load_after)}")
    if args.quick and not args.out:
        return 0
    results = {"sides": sides, "rounds": args.rounds, "rows": rows, "rounds_by_side": rounds}
    write_results(Path(args.out or ROOT / "bench" / "results" / "old_vs_new.json"), results, load_before, load_after)
    return 0


# the lightness rows: bench.measure_file's key, its format, the row's label
LIGHTNESS = """
open_to_diagnostics_s            .3f  open → diagnostics s
from_file_s                      .3f  from_file s
ratio                            .2f  open → diagnostics / from_file
hover_p50_ms                     .1f  hover p50 ms
hover_p99_ms                     .1f  hover p99 ms
hints_p99_ms                     .1f  inlay hints p99 ms
edit_to_diagnostics_ms           .0f  edit in token → diagnostics ms
hover_during_reindex_p99_ms      .1f  hover in re-index p99 ms
reparse_edit_to_diagnostics_ms   .0f  re-parse edit → diagnostics ms
hover_during_reparse_p99_ms      .1f  hover in re-parse p99 ms
rss_over_size                    .1f  RSS / file size
rss_with_reparse_over_size       .1f  RSS with re-parse / file size
"""


def name(f: Path) -> str:
    return f"{f.parent.name}/{f.name}"


def p50_p99(label: str, latencies) -> list[tuple]:
    """The p50 and the p99 row of a kind of request (latencies: a round's results -> its figures)."""
    return [(f"{label} p{p} ms", "{:.1f}", lambda g, p=p: latencies(g)[f"p{p}_ms"]) for p in (50, 99)]


def figures(first: dict, lightness: list[tuple[Path, str]], soak) -> list[tuple]:
    """(row name, format, the figure read from one round's results): every figure the plain
    bench.py prints in its tables, for the parts this run has (a round of the new side names
    the reference kinds and queries)."""
    out: list[tuple] = []
    for f, scale in lightness:
        part = f"{name(f)} {scale}"

        for key, fmt, label in (line.split(maxsplit=2) for line in LIGHTNESS.strip().splitlines()):
            out.append((f"{part}: {label}", "{:" + fmt + "}", lambda g, part=part, key=key: g[part][key]))
    nav = first.get("navigation")
    for k, f in enumerate(nav["files"] if nav else []):
        part = name(Path(f["file"]))

        def navf(*keys, k=k):
            return lambda g: functools.reduce(lambda d, key: d[key], keys, g["navigation"]["files"][k])

        out.append((f"{part}: open → navigation ready s", "{:.3f}", navf("open_to_navigation_ready_s")))
        out += p50_p99(f"{part}: definition merge part", navf("definition_merge_part"))
        out += p50_p99(f"{part}: definition vocab key", navf("definition_vocab_key"))
        for token in f["references"]:
            what = "rare tokens" if token == "rare" else repr(token)
            out += p50_p99(f"{part}: references {what}", navf("references", token))
    if nav:
        ws = nav["workspace_symbol"]
        both = " + ".join(Path(f).parent.name for f in ws["files"])

        def wsf(*keys):
            return lambda g: functools.reduce(lambda d, key: d[key], keys, g["navigation"]["workspace_symbol"])

        out.append((f"{both}: all open → all navigation ready s", "{:.3f}", wsf("first_open_to_all_ready_s")))
        for query in ws["queries"]:
            out += p50_p99(f"{both}: workspace/symbol {query!r}", wsf("queries", query))
    if soak:
        part = f"typing soak {name(soak[0])}"
        out += [
            (f"{part}: edits/s", "{:.0f}", lambda g: g["soak"]["edits_per_s"]),
            (f"{part}: hover while typing p99 ms", "{:.1f}", lambda g: g["soak"]["hover_while_typing_p99_ms"]),
            (f"{part}: burst → diagnostics p50 ms", "{:.0f}", lambda g: g["soak"]["burst_to_diagnostics_p50_ms"]),
            (f"{part}: RSS growth MB / 1000 edits", "{:.2f}", lambda g: g["soak"]["growth_mb_per_1000_edits"]),
        ]
    out.append(("load average (1 min) as the round began", "{:.1f}", lambda g: g["load_1min"]))
    return out


if __name__ == "__main__":
    sys.exit("run it as bench/bench.py --old PATH")
