"""`decode`'s, `encode`'s and `render --ids`'s text tables keep their columns in a terminal:
every row's columns start at the same display column, whatever the row holds (double-width
CJK, combining marks, special tokens longer than their column).

Display columns are computed here with unicodedata alone, as a terminal draws text (East
Asian width W or F: two columns; combining marks and zero-width format characters: none);
the rows' content comes from each command's own JSON output, so nothing here is read back
from the code that lays the rows out.
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from functools import cache

import pytest

from tests.conftest import corpus_file

# never reads unreachable-token findings: each file's set computed once a run (conftest.py)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

ELLIPSIS = "\u2026"


@cache
def one(c: str) -> int:
    if unicodedata.category(c) in ("Mn", "Me", "Cf") and c != "\u00ad":
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def columns(text: str) -> int:
    return len(text) if text.isascii() else sum(map(one, text))


def skip_columns(line: str, at: int, width: int) -> int:
    """The index where `width` display columns from line[at] end (the end of a cell)."""
    used = 0
    while used < width and at < len(line):
        used += one(line[at])
        at += 1
    # zero-width characters drawn on the last one belong to the cell
    while at < len(line) and one(line[at]) == 0:
        at += 1
    assert used == width, (line, at, width)
    return at


def cli(*args) -> subprocess.CompletedProcess:
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, timeout=600, check=False
    )
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
    return p


def stored_form(token: str) -> str:
    return json.dumps(token, ensure_ascii=False)


def take_cell(line: str, at: int, want: str, width: int, where) -> int:
    """The cell of `width` columns at line[at:] shows `want` whole (then spaces to the width)
    or cut: a prefix of it, `…`, spaces to the width. Returns the index after the cell."""
    if columns(want) <= width:
        cell = want + " " * (width - columns(want))
        assert line[at : at + len(cell)] == cell, where
        return at + len(cell)
    k = skip_columns(line, at, width)
    shown = line[at:k].rstrip(" ")
    assert shown.endswith(ELLIPSIS) and want.startswith(shown[:-1]), where
    return k


def check_decode_rows(text_out: str, rows: list[dict], typed: bool) -> int:
    """Every row of `decode`: id (7) + 2 spaces, stored form (20), text (16), hex (24),
    kind; a stored form cut in its column ends the row whole. Returns how many rows held
    a double-width character or a cut cell (what used to drift)."""
    lines = text_out.split("\n")[:-1]
    assert len(lines) == len(rows)
    hard = 0
    for line, row in zip(lines, rows):
        where = (line, row)
        stored = stored_form(row["token"])
        assert line[:9] == f"{'-' if row['id'] is None else row['id']:>7}  "
        at = take_cell(line, 9, stored, 20, where)
        assert line[at] == " "
        # the text column holds the decoded text with invisibles escaped; its own escaping is
        # another test's (test_decoded_rows_show_text_as_visible_text_does): here, its width
        hex_at = skip_columns(line, at + 1, 16)
        assert line[hex_at] == " ", where
        hex_at += 1
        assert columns(line[:hex_at]) == 7 + 2 + 20 + 1 + 16 + 1, where
        data = bytes.fromhex(row["bytes"])
        full = data.hex(" ").upper()
        hexed = full if len(full) <= 24 else data[:7].hex(" ").upper() + " " + ELLIPSIS
        assert line[hex_at : hex_at + 25] == f"{hexed:<24} ", where
        tail = row["kind"] if row["utf8"] == "valid" else f"{row['kind']}, {row['utf8']} UTF-8"
        rest = line[hex_at + 25 :]
        assert columns(line[: hex_at + 25]) == 72, where
        assert rest.startswith(tail), where
        cut = columns(stored) > 20
        if cut:
            assert rest.endswith(f"  {stored}"), where
        if typed:
            assert f"  {row['type']}" in rest, where
        if cut or columns(line) != len(line):
            hard += 1
    return hard


@pytest.mark.parametrize("rel", ["qwen3/tokenizer.json", "llama3/tokenizer.json"])
def test_decode_columns_hold_on_cjk_and_long_special_tokens(rel):
    path = corpus_file(rel)
    rows = [json.loads(line) for line in cli("decode", "--format", "jsonl", path).stdout.splitlines()]
    out = cli("decode", path).stdout.decode("utf-8", "surrogateescape")
    # the rows that drifted: many in both files (CJK in qwen3, 256 long specials in llama3)
    assert check_decode_rows(out, rows, typed=False) > 200


def test_decode_columns_hold_on_a_typed_table():
    path = corpus_file("gguf/ggml-vocab-llama-spm.gguf")
    rows = [json.loads(line) for line in cli("decode", "--format", "jsonl", path).stdout.splitlines()]
    out = cli("decode", path).stdout.decode("utf-8", "surrogateescape")
    assert check_decode_rows(out, rows, typed=True) > 100


def check_encode_table(text_out: str, tokens: list[dict], n_text: int) -> int:
    """encode's table: header, then id (8) + 2 spaces, text (18), stored form (22), bytes
    (24), then the span; a stored form cut in its column ends the line whole."""
    lines = text_out.split("\n")
    assert lines[0].split() == ["id", "text", "token", "bytes", "chars"]
    hard = 0
    for line, t in zip(lines[1:], tokens):
        where = (line, t)
        # render's JSON gives the text of each piece, encode's its bytes
        data = bytes.fromhex(t["bytes"]) if "bytes" in t else t["text"].encode("utf-8")
        assert line[:10] == f"{t['id']:>8}  "
        k = skip_columns(line, 10, 18)
        assert line[k] == " ", where
        stored = stored_form(t["token"])
        k = take_cell(line, k + 1, stored, 22, where)
        assert line[k] == " " and columns(line[: k + 1]) == 8 + 2 + 18 + 1 + 22 + 1, where
        full = data.hex(" ").upper()
        hexed = full if len(data) <= 8 else data[:7].hex(" ").upper() + " " + ELLIPSIS
        assert line[k + 1 : k + 26] == f"{hexed:<24} ", where
        assert columns(line[: k + 26]) == 77, where
        span = f"{t['start']}-{t['end']}"
        assert line[k + 26 :] == (f"{span}  {stored}" if columns(stored) > 22 else span), where
        if columns(line) != len(line) or columns(stored) > 22 or columns(line[10:k]) != len(line[10:k]):
            hard += 1
    assert lines[len(tokens) + 1] == f"{len(tokens)} tokens for {n_text} characters"
    return hard


TEXT = "東京タワーは高い <|im_start|>  naïve é ｶﾀｶﾅ ＡＢＣ 𝔘" + " " * 30 + "x <|endoftext|>"


def test_encode_columns_hold_on_cjk_combining_marks_and_long_tokens():
    path = corpus_file("qwen3/tokenizer.json")
    got = json.loads(cli("encode", "--format", "json", path, TEXT).stdout)
    out = cli("encode", path, TEXT).stdout.decode("utf-8")
    assert check_encode_table(out, got["tokens"], len(TEXT)) >= 6


def test_render_ids_columns_hold(tmp_path):
    folder = corpus_file("llama3/tokenizer.json").parent
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([{"role": "user", "content": "東京タワーは高い"}]), encoding="utf-8")
    got = json.loads(cli("render", folder, "--messages", messages, "--ids", "--format", "json").stdout)
    out = cli("render", folder, "--messages", messages, "--ids").stdout.decode("utf-8")
    # <|start_header_id|> is wider than the text column; the ideographs are double-width
    assert check_encode_table(out, got["tokens"], len(got["text"])) >= 4
