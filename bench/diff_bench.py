"""Benchmark: `diff` and `stats` on real files, next to tokenizers.Tokenizer.from_file.

    python bench/diff_bench.py            # qwen3 against an edited copy, 5 rounds; gemma3 decoded view
    python bench/diff_bench.py --quick    # the small example file, one round (CI keeps it working)

Rows, medians over the rounds, interleaved per round on the same files:
- `tokenizer-lsp diff OLD NEW` as a user runs it (a whole process) against an edited copy
  (the last merge and its token removed, two tokens renumbered, two merges swapped, a merge
  removed, the normalizer changed, an added token added; merges rewritten in the other form),
  and the same with `--format json`;
- `Tokenizer.from_file` of OLD plus of NEW (in this process): the issue's target is diff
  within 3x of that sum;
- `tokenizer-lsp stats --no-unreachable` (and with unreachable tokens when that module
  exists);
- the text of the decoded-vocabulary view rendered from a served index (compact vocabulary),
  what `tokenizer-lsp.decodedVocabulary` computes, on gemma3 (quick: the small example file).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
sys.path.insert(0, str(ROOT / "server"))


def edited_copy(src: Path, dest: Path) -> None:
    obj = json.loads(src.read_text(encoding="utf-8"))
    obj = copy.deepcopy(obj)
    model = obj["model"]
    vocab, merges = model["vocab"], model["merges"]
    # still loadable by tokenizers: remove the last merge and the token only it makes
    last = merges.pop()
    made = "".join(last) if isinstance(last, list) else last.replace(" ", "")
    if not any(made in (m if isinstance(m, list) else m.split(" ")) for m in merges):
        del vocab[made]
    tokens = list(vocab)
    # these places in a real vocab; in --quick's small example, as far into it
    t1, t2 = (5000, 6000) if len(tokens) > 6000 else (len(tokens) // 3, len(tokens) // 2)
    m1, m2, m3 = (10, 20000, 30000) if len(merges) > 30000 else (1, len(merges) // 2, 3 * len(merges) // 4)
    vocab[tokens[t1]], vocab[tokens[t2]] = vocab[tokens[t2]], vocab[tokens[t1]]
    merges[m1], merges[m2] = merges[m2], merges[m1]
    del merges[m3]
    model["merges"] = [" ".join(m) for m in merges] if isinstance(merges[0], list) else [m.split(" ") for m in merges]
    obj["normalizer"] = {"type": "NFKC"}
    obj["added_tokens"].append(
        {
            "id": max(vocab.values()) + 2000,
            "content": "<|bench|>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    )
    dest.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def cli(*args) -> int:
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    ).returncode


def from_file(path: Path) -> None:
    from tokenizers import Tokenizer

    Tokenizer.from_file(str(path))


def decoded_view(path: Path) -> tuple[float, int]:
    """Seconds to render the decoded vocabulary from a served index, and its rows."""
    from tokenizer_lsp.core.decoding.listing import listing
    from tokenizer_lsp.core.index.files import index_file

    idx = index_file(str(path))
    idx.prepare_lookups()  # what the server serves from: the compact vocabulary
    t = time.perf_counter()
    _, rows = listing(idx)
    return time.perf_counter() - t, rows


def run(quick: bool = False) -> dict:
    # quick: the rows work (CI), not their figures: the small example file
    name = "examples/tokenizer.json" if quick else "qwen3/tokenizer.json"
    view_name = "examples/tokenizer.json" if quick else "gemma3/tokenizer.json"
    rounds = 1 if quick else 5
    old = (ROOT if quick else CORPUS) / name
    if not old.is_file():
        print(f"corpus file {old} is absent (set TOKENIZER_CORPUS)")
        return {}
    import importlib.util

    with_unreachable = importlib.util.find_spec("tokenizer_lsp.core.behaviour.reachability.compute") is not None
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        new = Path(tmp) / "tokenizer.json"
        edited_copy(old, new)
        assert cli("diff", old, new) == 1  # it found the edits
        for _ in range(rounds):
            samples.setdefault("diff (CLI process)", []).append(timed(lambda: cli("diff", old, new)))
            samples.setdefault("diff --format json (CLI process)", []).append(
                timed(lambda: cli("diff", "--format", "json", old, new))
            )
            samples.setdefault("from_file(old) + from_file(new)", []).append(
                timed(lambda: (from_file(old), from_file(new)))
            )
            samples.setdefault("stats --no-unreachable (CLI process)", []).append(
                timed(lambda: cli("stats", "--no-unreachable", old))
            )
            if with_unreachable:
                samples.setdefault("stats with unreachable (CLI process)", []).append(timed(lambda: cli("stats", old)))
    view = (ROOT if quick else CORPUS) / view_name
    view_s, rows = decoded_view(view) if view.is_file() else (float("nan"), 0)
    result = {k: statistics.median(v) for k, v in samples.items()}
    result["decoded view render"] = view_s
    ratio = result["diff (CLI process)"] / result["from_file(old) + from_file(new)"]
    print(f"diff and stats on {name} against an edited copy ({rounds} round{'s' if rounds > 1 else ''}, medians)")
    for k, v in result.items():
        label = f"{k} ({view_name}, {rows} rows)" if k == "decoded view render" else k
        print(f"  {label:<58} {v * 1000:8.0f} ms")
    print(f"  {'diff / (from_file old + new)':<58} {ratio:8.2f}x   (target < 3x)")
    return {"file": name, "rounds": rounds, "seconds": result, "diff_over_from_file": ratio}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    run(args.quick)


if __name__ == "__main__":
    main()
