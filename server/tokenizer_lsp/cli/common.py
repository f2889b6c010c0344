"""What every command of the command line shares."""

from __future__ import annotations

import os
import sys


def write_out(out: str | bytes) -> None:
    """A command's whole output to stdout (bytes as they are); a reader that stops early
    (`stats ... | head`) is normal use: the rest is dropped without a traceback, the exit
    status stays."""
    try:
        if isinstance(out, bytes):
            sys.stdout.buffer.write(out)
        else:
            sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        stop_writing()


def stop_writing() -> None:
    """After a BrokenPipeError on stdout: what is still buffered goes nowhere, so flushing
    it at exit raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def err(msg: str) -> None:
    print(f"tokenizer-lsp: {msg}", file=sys.stderr)


def tokenizer_index(path: str, vocab=None):
    """The index of the tokenizer file at `path`, or None after saying why not (it cannot be
    read, or it is not a tokenizer file): the caller exits 2."""
    from ..core.index.files import index_file

    try:
        idx = index_file(path, vocab)
    except OSError as e:
        err(f"{path}: cannot read: {e.strerror or e}")
        return None
    if not idx.is_tokenizer:
        from ..core.formats.registry import formats_read

        reason = idx.not_tokenizer_reason
        if "JSON" in reason and not path.lower().endswith(".json"):  # `[section]` text is not "invalid JSON"
            reason = "not a tokenizer file"
        err(f"{path}: {reason}; tokenizer-lsp reads {formats_read()}")
        return None
    return idx


def syntax_error_line(path: str, idx, with_code: bool = False) -> str:
    """`path:line:col: [code: ]message` of the index's JSON syntax error (1-based, in
    characters)."""
    f = idx.syntax_error
    line, col = idx.lines.position(f.start, "utf-32")
    return f"{path}:{line + 1}:{col + 1}: {f.code + ': ' if with_code else ''}{f.message}"


def main_tokenizer_file(path: str) -> str | None:
    """The file a one-file command (decode, encode, diff) reads for `path`: the path itself,
    or for a folder its tokenizer file (tokenizer.json first, then a vocab.json/encoder.json,
    which brings its merges, then the first by name). None after saying why not (exit 2)."""
    import os

    if not os.path.isdir(path):
        return path
    from ..core.model_folder.folder import tokenizer_files_in

    found = tokenizer_files_in(path)
    if not found:
        err(f"{path}: no tokenizer file in this folder")
        return None
    names = [os.path.basename(f) for f in found]
    for preferred in ("tokenizer.json", "vocab.json", "encoder.json"):
        if preferred in names:
            return found[names.index(preferred)]
    return found[0]


def load_failure_status(path: str) -> int:
    """The exit status when `path` cannot be loaded into its engine (encode, diff): 1 when it,
    or the other file of its vocab.json + merges pair, is a tokenizer file with a finding at
    error level (the same input gives `check` 1), else 2 (not a tokenizer, unreadable, or an
    option is missing)."""
    from ..core.behaviour.load import read_with_companion
    from ..core.index.files import index_file

    try:
        _, other, _ = read_with_companion(path)
    except OSError:
        return 2
    for each in (path, other):
        if each is None:
            continue
        try:
            idx = index_file(each)
        except OSError:
            continue
        if idx.is_tokenizer and any(f.severity == "error" for f in idx.findings):
            return 1
    return 2


def say_malformed_lines(path: str, idx, what: str) -> bool:
    """decode and stats of a `.tiktoken` file with lines that are not `base64 rank`: those
    lines have no row and tiktoken's loader refuses the whole file, so `check` and `encode`
    exit 1 on it. Say on stderr which lines `what` leaves out (the first three, as `check`
    words them, and how many in all); True when there are any (the caller exits 1 too)."""
    bad = [f for f in idx.findings if f.code == "tiktoken-malformed" and f.severity == "error"]
    if not bad:
        return False
    for f in bad[:3]:
        line, col = idx.lines.position(f.start, "utf-32")
        err(f"{path}:{line + 1}:{col + 1}: tiktoken-malformed: {f.message}")
    more = f" ({len(bad) - 3} more: run `tokenizer-lsp check`)" if len(bad) > 3 else ""
    err(
        f"{path}: {what} leaves out {len(bad)} malformed line{'s' if len(bad) != 1 else ''}{more}; "
        "tiktoken refuses the file"
    )
    return True
