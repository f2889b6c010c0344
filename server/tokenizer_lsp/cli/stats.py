"""`stats PATH...`: the summary of each tokenizer file (text, or a JSON array)."""

from __future__ import annotations

import sys

import orjson

from ..core.behaviour.stats import render, summarize
from . import tables
from .common import err as _err
from .common import syntax_error_line, tokenizer_index


def add_arguments(c) -> None:
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--no-unreachable", action="store_true",
                   help="skip loading the tokenizer to count the tokens it can never produce")


def run(args) -> int:
    status = 0
    results = []
    for path in args.paths:
        table = tables.stats_of(path, not args.no_unreachable)  # .model, vocab.txt, other plug-ins
        if table is not None:
            status = 2 if table is tables.FAILED else status
            if table is not tables.FAILED:
                results.append((path, table))
            continue
        idx = tokenizer_index(path)
        if idx is None or idx.syntax_error is not None:
            if idx is not None:
                _err(syntax_error_line(path, idx, with_code=True))
            status = 2
            continue
        if idx.vocab is None:  # a model folder's config file
            _err(f"{path}: not a tokenizer file ({idx.format}): stats summarises tokenizer.json, vocab.json, "
                 "merges and .tiktoken files")
            status = 2
            continue
        unreachable = None if args.no_unreachable else _unreachable(path)
        results.append((path, summarize(idx, unreachable)))
    if args.format == "json":
        sys.stdout.write(orjson.dumps([{"path": p, **s} for p, s in results], option=orjson.OPT_INDENT_2).decode()
                         + "\n")
    else:
        sys.stdout.write("\n\n".join((tables.render_stats if "piece_types" in s else render)(s, p) for p, s in results) + ("\n" if results else ""))
    return status


def _unreachable(path: str) -> int | None:
    """How many vocab tokens the tokenizer never produces (None: it cannot be told here:
    the file does not load, its tiktoken pattern is unknown, or the model is not BPE)."""
    # imports the engines: only when asked
    from ..core.behaviour.loaded import LoadError
    from ..core.behaviour.reachability_cache import unreachable_of_file

    try:
        return len(unreachable_of_file(path))
    except (LoadError, OSError) as e:
        _err(f"{path}: unreachable tokens not counted: {e}")
        return None
