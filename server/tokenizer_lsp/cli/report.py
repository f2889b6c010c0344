"""The one way every command reports: findings (text or JSON), the summary line, the exit code.

Any command (and any format plug-in's CLI hook) builds `Row`s and calls `report()`; the exit
status is always `exit_status()`, so the same input gives the same code whatever the command:

    0  nothing at error level
    1  a finding at error level (a broken file is one: `json-syntax`, `schema`...)
    2  usage error, unreadable path, or not a tokenizer file
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field

from .common import stop_writing

OK, FINDINGS, FAILED = 0, 1, 2

# the order and spelling of the summary ("Found 2 errors, 12 information in 1 file")
_LEVELS = (
    ("error", "error", "errors"),
    ("warning", "warning", "warnings"),
    ("information", "information", "information"),
    ("hint", "hint", "hints"),
)


@dataclass(slots=True)
class Row:
    """One finding as the CLI prints it.

    `where` is what follows `path:` in text output: `LINE:COL` (1-based, characters) for a
    text file, `#N` (a token id) or a metadata key for a binary file, which has no lines.
    `json` is the object `--format json` prints (path, range, severity, code, message, and
    `id`/`key` for binary files)."""

    path: str
    severity: str
    code: str
    message: str
    where: str
    json: dict = field(default_factory=dict)


def exit_status(failed: bool, rows_or_error) -> int:
    """The one rule. `failed`: a usage error, an unreadable path or a non-tokenizer file was
    met; `rows_or_error`: the rows reported, or a bool saying whether one is at error level."""
    if failed:
        return FAILED
    has_error = rows_or_error if isinstance(rows_or_error, bool) else any(r.severity == "error" for r in rows_or_error)
    return FINDINGS if has_error else OK


def summary_line(counts: Counter, files: int, show_hints: bool, failed_files: int = 0) -> str:
    """`Found 2 errors, 12 information in 1 file; 1562 hints hidden (--show-hints)`, or
    `All checks passed (1 file)` when nothing but hidden hints was found."""
    shown = [
        (counts[level], one if counts[level] == 1 else many)
        for level, one, many in _LEVELS
        if counts[level] and (level != "hint" or show_hints)
    ]
    where = f"{files} file" + ("" if files == 1 else "s")
    if shown:
        line = "Found " + ", ".join(f"{n} {word}" for n, word in shown) + f" in {where}"
    elif failed_files:  # not "passed": some paths were never checked
        line = f"Nothing found in {where}"
    else:
        line = f"All checks passed ({where})"
    if counts["hint"] and not show_hints:
        line += f"; {counts['hint']} hint{'' if counts['hint'] == 1 else 's'} hidden (--show-hints)"
    if failed_files:
        line += f"; {failed_files} path{'' if failed_files == 1 else 's'} not checked (see above)"
    return line


def report(rows: list[Row], fmt: str, show_hints: bool, files: int, failed_files: int = 0, out=None) -> None:
    """Print the findings and, in text, the summary line (stdout, as ruff does). JSON always
    holds every finding, hints included: the summary's counts are the JSON's counts."""
    out = out or sys.stdout
    try:
        _write(rows, fmt, show_hints, files, failed_files, out)
    except BrokenPipeError:  # `check ... | head` is normal use: stop writing, keep the exit status
        stop_writing()


def _write(rows: list[Row], fmt: str, show_hints: bool, files: int, failed_files: int, out) -> None:
    if fmt == "json":
        import orjson

        out.write(orjson.dumps([r.json for r in rows], option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    counts = Counter(r.severity for r in rows)
    out.write(
        "".join(
            f"{r.path}:{r.where}: {r.severity} {r.code} {r.message}\n"
            for r in rows
            if show_hints or r.severity != "hint"
        )
    )
    if files or failed_files:
        out.write(summary_line(counts, files, show_hints, failed_files) + "\n")
