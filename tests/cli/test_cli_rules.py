"""The command line's shared rules (INTERFACE Part 3 "Shipping", cli/report.py): one exit
code for the same input whatever the command, options anywhere among the arguments, a
summary line whose counts are the JSON's, hints counted but printed only when asked, folders
taken by every command, a usage hint for a bare start on a terminal.

Expected values come from the formats' own libraries (tokenizers, tiktoken) or from the
GPT-2 byte map as published (bytes_to_unicode), never from our code."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
import threading

import pytest
import tiktoken
import tokenizers
from tokenizer_lsp.cli import progress as progress_module
from tokenizer_lsp.cli.report import summary_line

from tests.conftest import ROOT, corpus_file, gpt2_bytes_to_unicode

EXAMPLE = ROOT / "examples" / "tokenizer.json"
GPT2_STYLE = ROOT / "examples" / "gpt2-style"
TIKTOKEN = ROOT / "examples" / "tiny.tiktoken"
COMMANDS = ("check", "decode", "stats", "encode", "diff")


def cli(*args, stdin: bytes | None = b""):
    p = subprocess.run([sys.executable, "-m", "tokenizer_lsp", *map(str, args)], input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def run_each(command: str, path, other=EXAMPLE):
    """The command on `path` the way a user would write it."""
    if command == "encode":
        return cli("encode", path, "Hello world")
    if command == "diff":
        return cli("diff", other, path)
    if command == "stats":
        return cli("stats", path, "--no-unreachable")
    if command == "check":
        return cli("check", path, "--severity", "unreachable-token=off")
    return cli(command, path)


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte map as openai/gpt-2 encoder.py publishes it."""
    return gpt2_bytes_to_unicode()


def not_utf8_count(tokens) -> int:
    char_to_byte = {c: b for b, c in bytes_to_unicode().items()}
    count = 0
    for t in tokens:
        try:
            bytes(char_to_byte[c] for c in t).decode("utf-8")
        except UnicodeDecodeError:
            count += 1
    return count


# ---- one exit code per input ---------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_a_broken_tokenizer_file_is_1_for_every_command(tmp_path, command):
    """Truncated JSON is a `json-syntax` error: 1 from every command, as `check` gives it."""
    broken = tmp_path / "tokenizer.json"
    data = EXAMPLE.read_bytes()
    broken.write_bytes(data[: len(data) // 2])
    code, out, err = run_each(command, broken)
    assert code == 1, err
    assert "Traceback" not in err and "JSON" in out + err and str(broken) in out + err


@pytest.mark.parametrize("command", COMMANDS)
def test_not_a_tokenizer_unreadable_and_an_empty_folder_are_2_for_every_command(tmp_path, command):
    notes = tmp_path / "notes.txt"
    notes.write_text("the 1061396\nof 593677\n", encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    for path, said in (
        (notes, "not a tokenizer file"),
        (tmp_path / "missing.json", "cannot read"),
        (empty, "no tokenizer file in this folder"),
    ):
        code, _, err = run_each(command, path)
        assert code == 2 and said in err and "Traceback" not in err, (path, err)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_works_for_every_command(command):
    """examples/gpt2-style holds a vocab.json + merges.txt pair: each command reads it."""
    code, out, err = run_each(command, GPT2_STYLE, other=GPT2_STYLE)
    assert code == 0, err
    assert out.strip()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_reader_that_stops_early_gets_no_traceback(command):
    """`tokenizer-lsp stats ... | head`: the reader has gone before the output is written
    (its end of the pipe closed here first). The command stops quietly with the exit status
    it has with a reader; stats and diff printed a BrokenPipeError traceback."""
    code, out, _ = run_each(command, EXAMPLE, other=GPT2_STYLE)
    assert out.strip()
    args = {"encode": ["encode", EXAMPLE, "Hello world"], "diff": ["diff", GPT2_STYLE, EXAMPLE]}.get(
        command, [command, EXAMPLE] + (["--no-unreachable"] if command == "stats" else [])
    )
    if command == "check":
        args += ["--severity", "unreachable-token=off"]
    read, write = os.pipe()
    os.close(read)
    try:
        p = subprocess.run(
            [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], stdout=write, stderr=subprocess.PIPE
        )
    finally:
        os.close(write)
    assert b"Traceback" not in p.stderr and b"BrokenPipe" not in p.stderr, p.stderr.decode()[-800:]
    assert p.returncode == code


def test_a_folder_is_read_as_its_tokenizer_file():
    """`decode DIR` is `decode DIR/vocab.json` (the pair's vocabulary), row for row."""
    folder = cli("decode", GPT2_STYLE, "--format", "jsonl")[1]
    file = cli("decode", GPT2_STYLE / "vocab.json", "--format", "jsonl")[1]
    vocab = json.loads((GPT2_STYLE / "vocab.json").read_text(encoding="utf-8"))
    assert folder == file and len(folder.splitlines()) == len(vocab)


def test_a_corpus_file_with_an_error_is_1_for_check_and_stats_alike(tmp_path):
    """The same broken corpus file (qwen3 cut in the middle of its merges) across commands."""
    data = corpus_file("qwen3/tokenizer.json").read_bytes()
    broken = tmp_path / "tokenizer.json"
    broken.write_bytes(data[: data.index(b'"merges"') + 5000])
    codes = {c: run_each(c, broken)[0] for c in ("check", "decode", "stats", "encode")}
    assert set(codes.values()) == {1}, codes


# ---- options anywhere ----------------------------------------------------------------------------


def test_options_may_stand_between_the_arguments():
    want = tokenizers.Tokenizer.from_file(str(EXAMPLE)).encode("Hello world", add_special_tokens=True).ids
    orders = (
        ["encode", EXAMPLE, "--special", "Hello world", "--format", "json"],
        ["encode", "--format", "json", EXAMPLE, "Hello world", "--special"],
        ["encode", "--special", "--format", "json", EXAMPLE, "Hello world"],
    )
    for args in orders:
        code, out, err = cli(*args)
        assert code == 0, err
        assert json.loads(out)["ids"] == want


def test_check_takes_paths_on_both_sides_of_an_option():
    code, out, _ = cli(
        "check", GPT2_STYLE / "vocab.json", "--format", "json", EXAMPLE, "--severity", "unreachable-token=off"
    )
    assert code == 0
    assert {r["path"] for r in json.loads(out)} == {str(GPT2_STYLE / "vocab.json"), str(EXAMPLE)}


def test_diff_takes_pattern_like_encode():
    from tiktoken.load import load_tiktoken_bpe

    pattern = r"""'s|'t| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+"""
    enc = tiktoken.Encoding(
        "tiny", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(TIKTOKEN)), special_tokens={}
    )
    text = "Hello world, hello"
    code, out, err = cli("diff", TIKTOKEN, "--text", text, TIKTOKEN, "--pattern", pattern, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["same"] and d["text"]["old_ids"] == d["text"]["new_ids"] == enc.encode_ordinary(text)
    code, _, err = cli("diff", TIKTOKEN, TIKTOKEN, "--text", text)  # without it: the option is named
    assert code == 2 and "--pattern" in err


# ---- the summary line and hidden hints -------------------------------------------------------------


def parse_summary(line: str) -> tuple[dict[str, int], int]:
    """{severity: count} and the number of hidden hints, read from the summary line."""
    counts: dict[str, int] = {}
    head, _, tail = line.partition("; ")
    m = re.match(r"^Found (.+) in \d+ files?$", head)
    if m:
        for part in m.group(1).split(", "):
            n, word = part.split(" ", 1)
            counts[{"errors": "error", "warnings": "warning", "hints": "hint"}.get(word, word)] = int(n)
    else:
        assert re.match(r"^All checks passed \(\d+ files?\)$", head), line
    hidden = re.search(r"(\d+) hints? hidden \(--show-hints\)", tail)
    return counts, int(hidden.group(1)) if hidden else 0


@pytest.mark.parametrize("target", ["example", "gpt2-openai", "qwen3-folder"])
def test_summary_counts_are_the_json_counts_and_hints_are_hidden_unless_asked(target):
    paths = {
        "example": [EXAMPLE],
        "gpt2-openai": [corpus_file("gpt2-openai/encoder.json"), corpus_file("gpt2-openai/vocab.bpe")],
        "qwen3-folder": [corpus_file("qwen3/tokenizer.json").parent],
    }[target]
    off = ("--severity", "unreachable-token=off")  # the engine's set: tested in test_unreachable.py
    code_j, out_j, _ = cli("check", *paths, "--format", "json", *off)
    rows = json.loads(out_j)
    want = {s: sum(r["severity"] == s for r in rows) for s in ("error", "warning", "information", "hint")}

    code, out, _ = cli("check", *paths, *off)
    lines = out.splitlines()
    counts, hidden = parse_summary(lines[-1])
    assert code == code_j
    assert hidden == want["hint"] and "hint" not in counts
    assert counts == {s: n for s, n in want.items() if n and s != "hint"}
    assert len(lines) - 1 == len(rows) - want["hint"]  # every finding but the hints, one line each
    assert not any(" hint " in line for line in lines[:-1])

    code, out, _ = cli("check", *paths, "--show-hints", *off)
    lines = out.splitlines()
    counts, hidden = parse_summary(lines[-1])
    assert hidden == 0 and counts == {s: n for s, n in want.items() if n}
    assert len(lines) - 1 == len(rows)


def test_the_hint_count_is_the_number_of_tokens_that_are_not_utf8():
    """Counted independently: the example's byte-level tokens whose bytes (through GPT-2's
    published byte map) do not decode as UTF-8 are the hidden hints."""
    vocab = json.loads(EXAMPLE.read_text(encoding="utf-8"))["model"]["vocab"]
    _, out, _ = cli("check", EXAMPLE, "--severity", "unreachable-token=off")
    counts, hidden = parse_summary(out.splitlines()[-1])
    assert hidden == not_utf8_count(vocab) > 0


def test_a_clean_file_says_so(tmp_path):
    """Nothing found still prints a summary line."""
    code, out, _ = cli("check", EXAMPLE, "--severity", "utf8-fragment=off", "--severity", "unreachable-token=off")
    assert code == 0 and out == "All checks passed (1 file)\n"


def test_summary_line_wording():
    from collections import Counter

    assert (
        summary_line(Counter(error=2, information=12, hint=1562), 1, False)
        == "Found 2 errors, 12 information in 1 file; 1562 hints hidden (--show-hints)"
    )
    assert summary_line(Counter(warning=1), 3, False) == "Found 1 warning in 3 files"
    assert summary_line(Counter(hint=1), 1, True) == "Found 1 hint in 1 file"
    assert (
        summary_line(Counter(), 0, False, failed_files=1) == "Nothing found in 0 files; 1 path not checked (see above)"
    )


# ---- terminals ------------------------------------------------------------------------------------


def test_a_bare_start_on_a_terminal_says_how_to_use_it():
    """Not an LSP server waiting silently for a person at a terminal."""
    primary, secondary = pty.openpty()
    try:
        p = subprocess.run([sys.executable, "-m", "tokenizer_lsp"], stdin=secondary, capture_output=True, timeout=60)
    finally:
        os.close(secondary)
        os.close(primary)
    assert p.returncode == 2
    assert b"tokenizer-lsp check" in p.stderr and p.stdout == b""


def test_help_names_the_exit_codes_folders_and_pairs():
    for args in ([], ["check"], ["encode"], ["diff"]):
        code, out, _ = cli(*args, "--help")
        assert code == 0
        assert "exit status" in out and "2  usage error" in out and "folder" in out and "pair" in out.lower()


class _Terminal(io.StringIO):
    def __init__(self):
        super().__init__()
        self.wrote = threading.Event()

    def isatty(self):
        return True

    def write(self, s):
        self.wrote.set()
        return super().write(s)


def test_progress_is_shown_on_a_terminal_only_once_work_runs_long(monkeypatch):
    """The 1 s delay shortened to 0: what matters is where it goes and that it is rubbed out."""
    monkeypatch.setattr(progress_module, "DELAY_S", 0)
    term = _Terminal()
    with progress_module.progress("checking x", term):
        assert term.wrote.wait(30)  # the work "runs long": until the progress line is up
    assert "tokenizer-lsp: checking x" in term.getvalue() and term.getvalue().endswith("\r\x1b[K")
    piped = io.StringIO()
    with progress_module.progress("checking x", piped):
        pass
    assert piped.getvalue() == ""


def test_piped_stderr_gets_no_progress_characters():
    _, _, err = cli("check", EXAMPLE, "--severity", "unreachable-token=off")
    assert "\r" not in err and "\x1b" not in err
