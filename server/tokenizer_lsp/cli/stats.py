"""`stats PATH...`: the summary of each tokenizer file (text, or a JSON array)."""

from __future__ import annotations

import orjson

from ..core.behaviour.stats import render, summarize
from ..core.model_folder.folder import tokenizer_paths
from . import tables
from .common import err as _err
from .common import say_malformed_lines, syntax_error_line, tokenizer_index, write_out
from .progress import progress
from .report import exit_status


def add_arguments(c) -> None:
    c.add_argument(
        "paths", nargs="+", metavar="PATH", help="tokenizer files, or folders (each of their tokenizer files)"
    )
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument(
        "--no-unreachable",
        action="store_true",
        help="skip loading the tokenizer to count the tokens it can never produce",
    )
    c.add_argument(
        "--pattern",
        metavar="REGEX",
        help="split pattern of a .tiktoken file that is not one of the known encodings (for its unreachable tokens)",
    )


def run(args) -> int:
    paths, empty = tokenizer_paths(args.paths)  # `stats DIR`: its tokenizer files, as `check DIR`
    for folder in empty:
        _err(f"{folder}: no tokenizer file in this folder")
    failed, broken = bool(empty), False
    results = []
    for path in paths:
        plugin = tables.claim(path)  # the one dispatch: a table plug-in's file, or the index's
        if tables.reads_table(plugin):
            table = tables.stats_of(path, plugin, not args.no_unreachable)
            if table is tables.FAILED:
                failed = True
            else:
                results.append((path, table))
            continue
        with progress(f"reading {path}"):
            idx = tokenizer_index(path)
            if idx is None:
                failed = True
                continue
            if idx.syntax_error is not None:  # a finding at error level: 1, as `check` gives
                _err(syntax_error_line(path, idx, with_code=True))
                broken = True
                continue
            if idx.vocab is None:  # a model folder's config file
                from ..core.formats.registry import formats_read

                _err(f"{path}: not a tokenizer file ({idx.format}): stats summarises {formats_read()}")
                failed = True
                continue
            # the lines that are not `base64 rank` are not counted: said, and exit 1 as `check`
            malformed = say_malformed_lines(path, idx, "stats")
            broken = broken or malformed
            # tiktoken refuses such a file: no engine to count with (and that was just said)
            if args.no_unreachable:
                unreachable, why = None, "--no-unreachable"
            elif malformed:
                unreachable, why = None, "tiktoken does not load a file with malformed lines"
            else:
                unreachable, why = _unreachable(path, args.pattern)
            results.append((path, summarize(idx, unreachable, why)))
    if args.format == "json":
        write_out(orjson.dumps([{"path": p, **s} for p, s in results], option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        write_out(
            "\n\n".join((tables.render_stats if "piece_types" in s else render)(s, p) for p, s in results)
            + ("\n" if results else "")
        )
    return exit_status(failed, broken)


def _unreachable(path: str, pattern: str | None = None) -> tuple[int | None, str | None]:
    """(how many vocab tokens the tokenizer never produces, None) or (None, why it cannot
    be told here: the file does not load, its tiktoken pattern is unknown)."""
    # imports the engines: only when asked
    from ..core.behaviour.loaded import LoadError
    from ..core.behaviour.reachability.cache import unreachable_of_file

    try:
        return len(unreachable_of_file(path, pattern)), None
    except (LoadError, OSError) as e:
        _err(f"{path}: unreachable tokens not counted: {e}")
        if "--pattern" in str(e):
            return None, "the file's split pattern is unknown (give it with --pattern REGEX)"
        return None, "the tokenizer does not load (the error is on stderr)"
