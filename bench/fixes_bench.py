"""Time of computing the code actions' edits, above all converting every merge of a large
file between the string and the pair form (one edit of the merges array).

    python bench/fixes_bench.py            # gemma3 (33 MB, 514,906 pair merges), qwen3, llama2
    python bench/fixes_bench.py --quick    # llama2 only, one round

Prints numbers; asserts nothing (a noisy 2-core machine: compare within one run, e.g.
with `Tokenizer.from_file` of the same file, printed beside).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))


def _median(f, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run(quick: bool = False) -> list[dict]:
    from tokenizer_lsp.core.fixes import apply_edits
    from tokenizer_lsp.core.fixes.convert_merges import (
        merges_array,
        to_pairs,
        to_strings,
    )
    from tokenizer_lsp.core.index.build import build_index

    names = ["llama2"] if quick else ["gemma3", "qwen3", "llama2"]
    rounds = 1 if quick else 3
    rows = []
    for name in names:
        path = CORPUS / name / "tokenizer.json"
        if not path.is_file():
            print(f"{name}: {path} absent, skipped")
            continue
        data = path.read_bytes()
        idx = build_index(data, str(path))
        idx.prepare_lookups()
        convert = to_strings if idx.vocab.merges_as_pairs else to_pairs
        span = merges_array(idx)
        seconds = _median(lambda convert=convert, idx=idx: convert(idx), rounds)
        edit = convert(idx)
        new = apply_edits(data, [edit])
        back_idx = build_index(new, str(path))
        back_idx.prepare_lookups()
        back = to_pairs if convert is to_strings else to_strings
        back_seconds = _median(lambda back=back, back_idx=back_idx: back(back_idx), rounds)
        row = {
            "file": name,
            "direction": convert.__name__,
            "merges_bytes": span[1] - span[0],
            "edit_bytes": len(edit[2]),
            "seconds": round(seconds, 3),
            "back_seconds": round(back_seconds, 3),
        }
        try:
            import tokenizers

            row["from_file_seconds"] = round(
                _median(lambda path=path: tokenizers.Tokenizer.from_file(str(path)), rounds), 3
            )
        except ImportError:
            pass
        rows.append(row)
        print(
            f"{name:8} {convert.__name__:10} merges {row['merges_bytes'] / 1e6:6.1f} MB -> edit "
            f"{row['edit_bytes'] / 1e6:6.1f} MB in {row['seconds']:.3f} s; back {row['back_seconds']:.3f} s"
            + (f"; Tokenizer.from_file {row['from_file_seconds']:.3f} s" if "from_file_seconds" in row else "")
        )
    return rows


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="llama2 only, one round")
    run(p.parse_args().quick)
