"""Every diagnostic code on a small hand-made defective file: the code and the line."""

import json

import pytest
from tokenizer_lsp.cli import main as cli
from tokenizer_lsp.core.index.files import index_file

pytestmark = pytest.mark.usefixtures("cli_main_in_process")  # cli.main installs the runtime


def tokenizer(vocab, merges=(), added=(), pairs=True, byte_level=True):
    return {
        "version": "1.0",
        "added_tokens": [
            {
                "id": i,
                "content": c,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for c, i in added
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        if byte_level
        else None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        if byte_level
        else None,
        "model": {"type": "BPE", "vocab": vocab, "merges": [list(m) if pairs else " ".join(m) for m in merges]},
    }


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def findings(path):
    idx = index_file(str(path))
    return [(f.code, idx.lines.position(f.start)[0], f.message) for f in idx.findings]


def line_of(text, needle):
    return next(i for i, line in enumerate(text.split("\n")) if needle in line)


BASE = {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġa": 4}


@pytest.mark.parametrize("pairs", [True, False])
def test_merge_codes(tmp_path, pairs):
    text = json.dumps(
        tokenizer(BASE, [("a", "b"), ("Ġ", "a"), ("a", "zz"), ("b", "a")], pairs=pairs), indent=2, ensure_ascii=False
    )
    path = write(tmp_path, "tokenizer.json", text)
    idx = index_file(str(path))
    got = [(f.code, idx.lines.position(f.start), idx.lines.position(f.end), f.message) for f in idx.findings]
    lines = text.split("\n")
    after = line_of(text, '"merges"')

    def at(needle, nth=0, inner=0):
        """(line, column) of the nth occurrence of needle after the merges key, + inner."""
        hits = [(i, l.index(needle)) for i, l in enumerate(lines) if i > after and needle in l]
        line, col = hits[nth]
        return line, col + inner

    if pairs:  # merge 2 is ["a", "zz"] over 4 lines, merge 3 is ["b", "a"]
        zz = (at('"zz"'), at('"zz"', inner=4))
        whole2 = (at('"a"', 2), at('"zz"', inner=4))  # from its first part to the end of its second
        whole3 = (at('"b"', 1), at('"a"', 3, inner=3))
    else:  # merge 2 is "a zz" on one line: the part is `zz` inside the quotes
        zz = (at('"a zz"', inner=3), at('"a zz"', inner=5))
        whole2 = (at('"a zz"'), at('"a zz"', inner=6))
        whole3 = (at('"b a"'), at('"b a"', inner=5))
    assert [(c, s, e) for c, s, e, _ in got] == [
        ("merge-result-missing", *whole2),
        ("merge-unknown-token", *zz),
        ("merge-result-missing", *whole3),
    ]
    assert "`zz` is not in the vocabulary" in got[1][3] and "merge 2 (`a` + `zz`)" in got[1][3]
    assert "merge 2 (`a` + `zz`) produces `azz`" in got[0][3] and "merge 3 (`b` + `a`) produces `ba`" in got[2][3]


def test_merge_malformed(tmp_path):
    text = json.dumps(tokenizer(BASE, [("a", "b")], pairs=False), indent=2)
    text = text.replace('"a b"', '"a b",\n      "a b c"')
    path = write(tmp_path, "tokenizer.json", text)
    got = findings(path)
    assert [(c, l) for c, l, _ in got] == [("merge-malformed", line_of(text, '"a b c"'))]


def test_not_byte_level_and_added_exception(tmp_path):
    vocab = {**BASE, "hello world": 5, "<|end|>": 6, "<｜begin▁of▁sentence｜>": 7}
    text = json.dumps(
        tokenizer(vocab, added=[("<|end|>", 6), ("<｜begin▁of▁sentence｜>", 7)]), indent=2, ensure_ascii=False
    )
    path = write(tmp_path, "tokenizer.json", text)
    got = findings(path)
    assert [(c, l) for c, l, _ in got] == [("not-byte-level", line_of(text, '"hello world"'))]
    assert "' ' U+0020" in got[0][2]


def test_duplicate_token_and_id_and_gap(tmp_path):
    text = '{\n  "a": 0,\n  "b": 1,\n  "ab": 1,\n  "a": 5,\n  "c": 9\n}\n'
    path = write(tmp_path, "vocab.json", text)
    got = findings(path)
    codes = [(c, l) for c, l, _ in got]
    assert ("duplicate-id", 3) in codes  # "ab" reuses id 1
    assert ("duplicate-token", 4) in codes  # the second "a"
    gaps = [m for c, l, m in got if c == "id-gap"]
    # ids in use: 1, 5, 9 (the first "a" lost its id 0 to the duplicate)
    assert any("id 0" in m for m in gaps) and any("ids 2..4" in m for m in gaps) and any("ids 6..8" in m for m in gaps)


def test_added_token_mismatch(tmp_path):
    vocab = {**BASE, "<|end|>": 5}
    text = json.dumps(tokenizer(vocab, added=[("<|end|>", 7)]), indent=2)
    path = write(tmp_path, "tokenizer.json", text)
    got = [(c, l) for c, l, _ in findings(path)]
    assert ("added-token-mismatch", line_of(text, '"content": "<|end|>"')) in got


def test_json_syntax_truncated(tmp_path):
    text = json.dumps(tokenizer(BASE), indent=2)
    cut = text[: len(text) // 2]
    path = write(tmp_path, "tokenizer.json", cut)
    got = findings(path)
    assert [(c, l) for c, l, _ in got] == [("json-syntax", len(cut.split("\n")) - 1)]
    assert got[0][2].startswith("invalid JSON:")


def test_json_syntax_position(tmp_path):
    text = '{\n  "model": {\n    "vocab": {"a": 0,, "b": 1}\n  }\n}\n'
    path = write(tmp_path, "tokenizer.json", text)
    idx = index_file(str(path))
    f = idx.findings[0]
    assert f.code == "json-syntax" and idx.lines.position(f.start) == (2, 21)


def test_utf8_fragment_message(tmp_path):
    path = write(tmp_path, "vocab.json", json.dumps({"âĪ": 0, "a": 1}))
    ((code, line, msg),) = findings(path)
    assert code == "utf8-fragment" and "E2 88" in msg and "first 2 of 3 bytes" in msg and line == 0
    path = write(tmp_path, "vocab.json", json.dumps({"a": 0, "âĪ": 1}, indent=2))
    ((code, line, msg),) = findings(path)
    assert (code, line) == ("utf8-fragment", 2)
    # the range is the key literal, quotes included, wherever the entry sits (escaped too)
    for text, start in (('{"a": 0, "\\u00e2\\u012a": 1}', 9), ('{\n  "a": 0,\n  "âĪ": 1\n}', 2)):
        path = write(tmp_path, "vocab.json", text)
        idx = index_file(str(path))
        (f,) = idx.findings
        line = text[: text.index('"\\u00e2' if "\\u" in text else '"âĪ"')].count("\n")
        end = start + (len('"\\u00e2\\u012a"') if "\\u" in text else len('"âĪ"'))
        assert (f.code, idx.lines.position(f.start), idx.lines.position(f.end)) == (
            "utf8-fragment",
            (line, start),
            (line, end),
        )
        assert f.message == "`âĪ` = bytes E2 88: first 2 of 3 bytes of a UTF-8 sequence"


def test_merges_header(tmp_path):
    write(tmp_path, "vocab.json", json.dumps(BASE))
    path = write(tmp_path, "merges.txt", "a b\nĠ a\n")
    assert [(c, l) for c, l, _ in findings(path)] == [("merges-header", 0)]
    path = write(tmp_path, "merges.txt", "#version: 0.2\na b\nĠ a\nb x\n")
    idx = index_file(str(path))
    got = [(f.code, idx.lines.position(f.start), idx.lines.position(f.end)) for f in idx.findings]
    # the whole merge has no result; its second part ("x", column 2) is the unknown token
    assert got == [("merge-result-missing", (3, 0), (3, 3)), ("merge-unknown-token", (3, 2), (3, 3))]
    # the first part, a BOM before the header, and a byte that is not UTF-8
    path = tmp_path / "merges.txt"
    path.write_bytes(b"\xef\xbb\xbf#version: 0.2\nzz a\na \xff\n")
    idx = index_file(str(path))
    got = [(f.code, idx.lines.position(f.start), idx.lines.position(f.end)) for f in idx.findings]
    assert ("merge-unknown-token", (1, 0), (1, 2)) in got
    # the header is there: no "no header" finding, but tokenizers' BPE.from_file does not
    # recognise `\ufeff#version` (it loads it as a merge and fails), which is what it says
    header = [f.message for f in idx.findings if f.code == "merges-header"]
    assert len(header) == 1 and "byte order mark" in header[0] and "no `#version` header" not in header[0]
    # the bad byte, once: its merge is not also checked with U+FFFD in it
    assert [g for g in got if g[1][0] == 2] == [("merge-malformed", (2, 2), (2, 3))]


def test_merges_alone_reports_no_vocab_findings(tmp_path):
    path = write(tmp_path, "merges.txt", "#version: 0.2\na b\nq z\nx y z\n")
    assert [(c, l) for c, l, _ in findings(path)] == [("merge-malformed", 3)]


def test_tiktoken_malformed_and_duplicates(tmp_path):
    text = "IQ== 0\nIg== 1\nnot-base64! 2\nIw==\nIQ== 4\nJA== 1\n4og= 7\n"
    path = write(tmp_path, "x.tiktoken", text)
    got = [(c, l) for c, l, _ in findings(path)]
    assert ("tiktoken-malformed", 2) in got and ("tiktoken-malformed", 3) in got
    assert ("duplicate-token", 4) in got and ("duplicate-id", 5) in got
    assert ("utf8-fragment", 6) in got  # E2 88: first 2 bytes of ∀


def test_cli_check_text_json_and_exit_codes(tmp_path, capsys):
    path = write(tmp_path, "vocab.json", '{"a": 0, "Ġb": 1}')
    assert cli(["check", str(path)]) == 0 and capsys.readouterr().out == "All checks passed (1 file)\n"
    path = write(tmp_path, "vocab.json", '{"a": 0, "a b": 1}')  # a raw space is not in the byte alphabet
    assert cli(["check", str(path)]) == 1
    assert capsys.readouterr().out == (
        f"{path}:1:10: error not-byte-level "
        + index_file(str(path)).findings[0].message
        + "\nFound 1 error in 1 file\n"
    )


def test_cli_check_error_exit(tmp_path, capsys):
    text = json.dumps(tokenizer(BASE, [("a", "zz")]), indent=2)
    path = write(tmp_path, "tokenizer.json", text)
    assert cli(["check", str(path)]) == 1
    line = next(l for l in capsys.readouterr().out.splitlines() if "merge-unknown-token" in l)
    assert (
        line.startswith(f"{path}:{line_of(text, chr(34) + 'zz' + chr(34)) + 1}:")
        and " error merge-unknown-token " in line
    )
    assert cli(["check", "--format", "json", str(path)]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert {r["code"] for r in rows} == {"merge-unknown-token", "merge-result-missing"}
    assert rows[0]["severity"] == "error" and set(rows[0]["range"]) == {"start", "end"}
    assert (
        cli(["check", "--severity", "merge-unknown-token=off", "--severity", "merge-result-missing=warning", str(path)])
        == 0
    )


def test_cli_not_a_tokenizer_and_unreadable(tmp_path, capsys):
    path = write(tmp_path, "package.json", '{"name": "x", "version": "1.0.0"}')
    assert cli(["check", str(path)]) == 2
    assert "not a tokenizer file" in capsys.readouterr().err
    assert cli(["check", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_forked_merge_check_matches_in_process(tmp_path, monkeypatch):
    import tokenizer_lsp.core.formats.json.checks as json_checks

    merges = [("a", "b"), ("Ġ", "a"), ("a", "zz"), ("b", "a"), ("q", "b"), ("a", "b")] * 5
    text = json.dumps(tokenizer(BASE, merges), indent=2)
    path = write(tmp_path, "tokenizer.json", text)
    in_process = findings(path)
    from tokenizer_lsp.core import seams
    from tokenizer_lsp.runtime.forked import Forked

    monkeypatch.setattr(json_checks, "MIN_PARALLEL_WORK", 1)
    monkeypatch.setattr(seams, "in_child", Forked)
    forked = findings(path)
    assert forked == in_process and len(forked) == 25


def test_unigram_and_wordlevel_models(tmp_path, capsys):
    unigram = {
        "added_tokens": [
            {
                "id": 0,
                "content": "<unk>",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
            ],
        },
        "model": {
            "type": "Unigram",
            "unk_id": 0,
            "byte_fallback": True,
            "vocab": [["<unk>", 0.0], ["▁the", -1.5], ["<0xE2>", -5.0], ["<0x41>", -5.0], ["😀", -7.0]],
        },
    }
    text = json.dumps(unigram, indent=2, ensure_ascii=False)
    path = write(tmp_path, "tokenizer.json", text)
    idx = index_file(str(path))
    assert idx.vocab.scheme.value == "sentencepiece" and idx.vocab.tokens["<0xE2>"] == 2
    assert [(f.code, idx.lines.position(f.start)[0]) for f in idx.findings] == [
        ("utf8-fragment", line_of(text, '"<0xE2>"'))
    ]
    idx.prepare_lookups()
    off = idx.data.index("▁the".encode())
    ref = idx.token_at(off)
    assert ref.token == "▁the" and idx.vocab.decode(ref.token).text == " the"
    assert cli(["decode", "--format", "jsonl", str(path)]) == 0
    rows = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in rows] == [0, 1, 2, 3, 4]
    assert rows[1]["text"] == " the" and rows[2] == {
        "id": 2,
        "token": "<0xE2>",
        "bytes": "e2",
        "text": None,
        "utf8": "incomplete",
        "kind": "byte-fallback",
    }
    assert rows[4]["bytes"] == "f09f9880" and rows[0]["kind"] == "special"

    wordlevel = {"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 3}, "unk_token": "[UNK]"}}
    path = (
        write(tmp_path, "wl/tokenizer.json", json.dumps(wordlevel, indent=2))
        if (tmp_path / "wl").mkdir() is None
        else None
    )
    got = findings(path)
    assert [(c, l) for c, l, _ in got] == [("id-gap", 6)]  # on the entry after the gap
    assert "id 2" in got[0][2]


def test_decode_on_broken_json_is_a_clear_error(tmp_path, capsys):
    path = write(tmp_path, "tokenizer.json", '{"model": {"vocab": {"a": 0,}}}')
    assert cli(["decode", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1:" in err and "invalid JSON" in err


def test_other_str_to_int_json_is_not_claimed(tmp_path, capsys):
    added = write(tmp_path, "added_tokens.json", json.dumps({"<｜begin▁of▁sentence｜>": 0, "<|im_start|>": 1}))
    counts = write(tmp_path, "counts.json", json.dumps({"hello world": 3, "b": 1}))
    for path in (added, counts):
        assert cli(["check", str(path)]) == 2
        assert "not a tokenizer file" in capsys.readouterr().err
    # without a telling name, a GPT-2 vocabulary is still recognised by its byte alphabet
    from tokenizer_lsp.core.decoding import BYTE_TO_CHAR

    renamed = write(tmp_path, "gpt2-vocab-copy.json", json.dumps({c: i for i, c in enumerate(BYTE_TO_CHAR)}))
    assert index_file(str(renamed)).format == "vocab.json"


def test_console_entry_point_and_closed_pipe():
    import subprocess
    import sys

    from tests.conftest import ROOT

    example = str(ROOT / "examples" / "tokenizer.json")
    done = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", "--show-hints", example], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.count("utf8-fragment") == 158
    # `decode | head`: the reader goes away; we stop quietly with status 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokenizer_lsp", "decode", example], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    first = proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=30) == 0 and b"byte-level" in first
    assert proc.stderr.read() == b""


def test_malformed_merges_at_their_own_element(tmp_path):
    obj = tokenizer(BASE)
    obj["model"]["merges"] = [["a", "b"], ["a", "b", "c"], ["a", 7], "zz"]
    text = json.dumps(obj, indent=2)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    got = [(f.code, idx.lines.position(f.start)[0], f.message) for f in idx.findings]
    lines = text.split("\n")
    merges_line = line_of(text, '"merges"')
    starts = [i for i, l in enumerate(lines) if i > merges_line and l.strip() in ("[", '"zz"')]
    # each finding on its own element's first line (the 2nd, 3rd and 4th merge), in file order
    assert [(c, l) for c, l, _ in got] == [("schema", l) for l in starts[1:]]
    assert "3 parts" in got[0][2] and "not a string" in got[1][2] and "not a pair" in got[2][2]
    obj["model"]["merges"] = ["a b", 7, "ab"]
    text = json.dumps(obj, indent=2)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    got = [(f.code, idx.lines.position(f.start)[0], f.message) for f in idx.findings]
    assert [(c, l) for c, l, _ in got] == [
        ("schema", line_of(text, " 7,")),
        ("merge-malformed", text.split("\n").index('      "ab"')),
    ]
    assert "is not a string" in got[0][2] and "no space" in got[1][2]


def test_control_characters_are_escaped_in_messages(tmp_path):
    vocab = {"a": 0, "b\n": 1, "c\u2028": 2}
    obj = tokenizer(vocab, merges=[("a", "x\ty")], byte_level=False)
    idx = index_file(str(write(tmp_path, "tokenizer.json", json.dumps(obj))))
    msgs = [f.message for f in idx.findings]
    assert msgs and all("\n" not in m and "\t" not in m and "\u2028" not in m for m in msgs)
    assert any("x\\ty" in m for m in msgs)


def test_tiktoken_duplicates_follow_tiktoken(tmp_path):
    path = tmp_path / "a.tiktoken"
    path.write_bytes(b"IQ== 0\nIg==\t1\nIw==  2\nIQ== 3\n")
    idx = index_file(str(path))
    got = [(f.code, idx.lines.position(f.start)) for f in idx.findings]
    # tab and double space are what tiktoken's split() accepts; the repeated token keeps rank 3
    assert ("duplicate-token", (3, 0)) in got and not any(c == "tiktoken-malformed" for c, _ in got)
    assert idx.vocab.tokens["IQ=="] == 3 and "last" in next(
        f.message for f in idx.findings if f.code == "duplicate-token"
    )
    idx.prepare_lookups()
    assert idx.token_at(idx.lines.offset(3, 1, "utf-16")).token == "IQ=="  # the repeated line still has its token


def test_unigram_duplicate_piece_is_a_duplicate_token(tmp_path):
    obj = {
        "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁a", -1.0], ["b", -2.0], ["▁a", -3.0]]},
        "decoder": {"type": "Metaspace", "replacement": "▁"},
        "added_tokens": [],
    }
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    path = write(tmp_path, "tokenizer.json", text)
    got = [(c, l) for c, l, _ in findings(path)]
    dup_line = [i for i, l in enumerate(text.split("\n")) if '"▁a"' in l][1]
    assert got == [("duplicate-token", dup_line - 1)]  # the entry's "[" line
    assert cli(["check", str(path)]) == 1


def test_added_token_duplicates(tmp_path):
    obj = tokenizer(BASE, added=[("<s>", 5), ("</s>", 6), ("<s>", 7), ("<pad>", 6)])
    text = json.dumps(obj, indent=2)
    got = [(c, l) for c, l, _ in findings(write(tmp_path, "tokenizer.json", text))]
    lines = text.split("\n")
    contents = [i for i, l in enumerate(lines) if '"content"' in l]
    assert ("duplicate-token", contents[2]) in got and ("duplicate-id", contents[3]) in got


def test_wordpiece_continuation_pieces(tmp_path):
    from tokenizer_lsp.core.navigation.pieces import piece_at
    from tokenizer_lsp.lsp.render.hints import hints_in
    from tokenizer_lsp.lsp.render.hover import hover_markdown

    obj = {
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": {"[UNK]": 0, "play": 1, "##ing": 2, "##": 3},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "added_tokens": [],
    }
    text = json.dumps(obj, indent=2)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    assert idx.findings == []
    idx.prepare_lookups()
    at = text.index('"##ing"') + 2
    p = piece_at(idx, at)
    assert p.decoded.text == "ing" and p.token_id == 2
    h = hover_markdown(idx, p)
    assert "continues the previous word" in h and "`##`" in h and h.startswith("`ing`")
    # INTERFACE: a hint on every literal whose stored form differs from its decoded text
    hints = hints_in(idx, 0, len(text))
    assert [h.label for h in hints] == ["ing"] and hints[0].offset == text.index('"##ing"') + len('"##ing"')
    assert "continues the previous word" in hints[0].tooltip


def _tokenizers_refuses(path) -> bool:
    import tokenizers

    try:
        tokenizers.Tokenizer.from_file(str(path))
    except Exception:
        return True
    return False


def test_valid_json_tokenizers_refuses_is_schema_at_the_entry(tmp_path):
    """`schema` (not json-syntax) for valid JSON that tokenizers will not load, at the
    offending entry; and tokenizers really does refuse each case."""
    obj = tokenizer({"a": 0, "b": "x", "c": 1.5, "d": None, "e": -3, "f": 1, "5": "5"})
    text = json.dumps(obj, indent=2)
    path = write(tmp_path, "tokenizer.json", text)
    got = findings(path)
    assert [(c, l) for c, l, _ in got] == [("schema", line_of(text, f'"{k}":')) for k in "bcde5"]
    assert '"x"' in got[0][2] and "-3" in got[3][2] and "non-negative integer" in got[4][2]
    assert _tokenizers_refuses(path)
    obj = tokenizer({"a": 0, "b": 1})
    obj["model"]["merges"] = "a b"
    text = json.dumps(obj, indent=2)
    path = write(tmp_path, "tokenizer.json", text)
    assert [(c, l) for c, l, _ in findings(path)] == [("schema", line_of(text, '"merges"'))]
    assert _tokenizers_refuses(path)
    obj = {"model": {"type": "Unigram", "vocab": [["a", 0.0], ["b"], ["c", "x"], ["d", -1]]}, "added_tokens": []}
    text = json.dumps(obj, indent=2)
    path = write(tmp_path, "tokenizer.json", text)
    got = findings(path)
    assert [c for c, _, _ in got] == ["schema", "schema"] and "row 1" in got[0][2] and "row 2" in got[1][2]
    assert _tokenizers_refuses(path)


def test_schema_does_not_cascade_into_merges(tmp_path):
    """The merges naming an entry whose id is unloadable are not also `merge-unknown-token`."""
    obj = tokenizer({"a": 0, "b": "1", "ab": 2}, merges=[("a", "b")])
    text = json.dumps(obj, indent=2)
    got = findings(write(tmp_path, "tokenizer.json", text))
    assert [(c, l) for c, l, _ in got] == [("schema", line_of(text, '"b":'))]


def test_clip_end_of_word_suffix(tmp_path):
    from tokenizer_lsp.core.navigation.pieces import piece_at
    from tokenizer_lsp.lsp.render.hover import hover_markdown

    obj = tokenizer({"h": 0, "e": 1, "e</w>": 2, "he</w>": 3}, merges=[("h", "e</w>")])
    obj["model"]["end_of_word_suffix"] = "</w>"
    obj["decoder"] = {"type": "BPEDecoder", "suffix": "</w>"}
    text = json.dumps(obj, indent=2)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    assert idx.findings == []
    idx.prepare_lookups()
    p = piece_at(idx, text.index('"he</w>"') + 2)
    assert p.decoded.text == "he " and "ends a word" in hover_markdown(idx, p)


def test_vocab_json_of_a_sentencepiece_model_is_not_byte_level(tmp_path):
    words = ["▁the", "▁of", "▁и", "▁在", "ing", "▁là"] + [f"▁w{i}é" for i in range(100)]
    sp = {w: i for i, w in enumerate(words)}
    assert [c for c, _, _ in findings(write(tmp_path, "vocab.json", json.dumps(sp, ensure_ascii=False)))] == []
    idx = index_file(str(tmp_path / "vocab.json"))
    assert idx.vocab.decode("▁the").text == " the"
    # a GPT-2 one with one stray character still gets its not-byte-level error
    gpt2 = {c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")} | {"Ġthe": 26, "bad▁": 27}
    assert [c for c, _, _ in findings(write(tmp_path, "vocab.json", json.dumps(gpt2, ensure_ascii=False)))] == [
        "not-byte-level"
    ]
