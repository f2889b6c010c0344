"""Edge cases of real formats (checks, formats, decoding, hover and hints): each test
asserts the code and the exact position of a finding, or the decoded facts."""

import base64
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizer_lsp.cli import main as cli
from tokenizer_lsp.core.decoding import BYTE_TO_CHAR, Scheme, byte_level_encode, decode_token
from tokenizer_lsp.core.decoding.display import visible_text
from tokenizer_lsp.core.decoding.listing import decoded_rows
from tokenizer_lsp.core.decoding.utf8 import Utf8Kind, classify, describe_fragment, faults, short_fragment_kind
from tokenizer_lsp.core.formats.merges.doc import MergesDocument
from tokenizer_lsp.core.formats.tiktoken.doc import TiktokenDocument
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.index.files import index_file
from tokenizer_lsp.core.navigation.pieces import piece_at
from tokenizer_lsp.lsp.render.hints import hints_in
from tokenizer_lsp.lsp.render.hover import hover_markdown

from tests.conftest import corpus_file

pytestmark = pytest.mark.usefixtures("cli_main_in_process")  # cli.main installs the runtime

BASE = {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġa": 4}


def tokenizer(vocab, merges=(), added=(), byte_level=True, **model):
    return {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": c, "special": True} for c, i in added],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        if byte_level
        else None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        if byte_level
        else None,
        "model": {"type": "BPE", "vocab": vocab, "merges": list(merges), **model},
    }


def write(tmp_path, name, data):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def located(idx):
    """(code, (line, col) of start, (line, col) of end, message) of every finding."""
    return [(f.code, idx.lines.position(f.start), idx.lines.position(f.end), f.message) for f in idx.findings]


def where(text, needle, nth=0, after=0):
    """(line, column) of the nth occurrence of needle at or after offset `after`."""
    at = after - 1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    return line, at - (text.rfind("\n", 0, at) + 1)


def plus(pos, n):
    return pos[0], pos[1] + n


# ---- 1. malformed merges in tokenizer.json ---------------------------------------------


def test_malformed_pair_merges_at_their_own_element_in_file_order(tmp_path):
    obj = tokenizer(BASE, [["a", "b"], ["a", "b", "c"], ["a", 7], [1, 2], None, ["Ġ", "a"]])
    text = json.dumps(obj)  # one line: columns tell the elements apart
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    m = text.index('"merges"')
    got = located(idx)
    assert [(c, s, e) for c, s, e, _ in got] == [
        ("schema", where(text, '["a", "b", "c"]', after=m), plus(where(text, '["a", "b", "c"]', after=m), 15)),
        ("schema", where(text, '["a", 7]', after=m), plus(where(text, '["a", 7]', after=m), 8)),
        ("schema", where(text, "[1, 2]", after=m), plus(where(text, "[1, 2]", after=m), 6)),
        ("schema", where(text, "null", after=m), plus(where(text, "null", after=m), 4)),
    ]
    assert got[0][3] == 'merge 1 `["a", "b", "c"]` has 3 parts; a merge is a pair of two tokens'
    assert got[1][3].startswith("merge 2 ") and "a part that is not a string" in got[1][3]
    assert got[2][3].startswith("merge 3 ") and "parts that are not strings" in got[2][3]
    assert got[3][3] == "merge 4 `null` is not a pair of two tokens (a list of two strings)"


def test_malformed_string_merges_at_their_own_element(tmp_path):
    obj = tokenizer(BASE, ["a b", 7, None, "a b c", "ab ", "Ġ a"])
    text = json.dumps(obj, indent=2)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    m = text.index('"merges"')
    got = located(idx)
    assert [(c, s) for c, s, _, _ in got] == [
        ("schema", where(text, "7", after=m)),
        ("schema", where(text, "null", after=m)),
        ("merge-malformed", where(text, '"a b c"', after=m)),
        ("merge-malformed", where(text, '"ab "', after=m)),
    ]
    assert got[0][3] == "merge 1 `7` is not a string; a merge is two tokens separated by one space, in one string"
    assert got[1][3].startswith("merge 2 `null` is not a string")
    assert got[2][3].startswith("merge 3 `a b c` has 2 spaces")
    # "ab " splits in two, but its second part is empty: malformed, not an unknown token ``
    assert got[3][3].startswith("merge 4 `ab ` ends with a space")


def test_malformed_merges_in_a_large_file_parsed_apart(tmp_path, monkeypatch):
    """Over 1 MB the merges are parsed apart (and in a forked child): same positions."""
    import tokenizer_lsp.core.formats.json.checks as json_checks
    import tokenizer_lsp.core.formats.json.doc as json_doc
    from tokenizer_lsp.core import seams
    from tokenizer_lsp.runtime.forked import Forked

    monkeypatch.setattr(json_checks, "MIN_PARALLEL_WORK", 1)
    monkeypatch.setattr(seams, "in_child", Forked)
    vocab = {f"t{i}": i for i in range(40000)}
    merges = [[f"t{i}", f"t{i + 1}"] for i in range(30000)]
    for i in range(30000):
        vocab[f"t{i}t{i + 1}"] = len(vocab)
    merges[10] = ["t10", 7, "t11"]
    merges[25000] = ["t1"]
    text = json.dumps(tokenizer(vocab, merges, byte_level=False))
    assert len(text) > json_doc.DEFER_MERGES_BYTES
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    got = located(idx)
    assert [(c, s, e) for c, s, e, _ in got] == [
        ("schema", where(text, '["t10", 7, "t11"]'), plus(where(text, '["t10", 7, "t11"]'), 17)),
        ("schema", where(text, '["t1"]'), plus(where(text, '["t1"]'), 6)),
    ]
    assert got[0][3].startswith("merge 10 ") and got[1][3].startswith("merge 25000 `[\"t1\"]` has 1 part;")


# ---- 2. merges.txt ---------------------------------------------------------------------


@pytest.fixture
def gpt2_dir(tmp_path):
    write(tmp_path, "vocab.json", json.dumps({"a": 0, "b": 1, "ab": 2, "zz": 3, "c": 4, "bc": 5}))
    return tmp_path


def merges_findings(folder, data):
    idx = index_file(str(write(folder, "merges.txt", data)))
    return idx, [(c, s, e) for c, s, e, _ in located(idx)], [m for *_, m in located(idx)]


def test_merges_txt_points_at_the_offending_part(gpt2_dir):
    _, got, msgs = merges_findings(gpt2_dir, "#version: 0.2\na q\nq b\nzz a\n")
    assert got == [
        ("merge-result-missing", (1, 0), (1, 3)),
        ("merge-unknown-token", (1, 2), (1, 3)),  # `q` second
        ("merge-unknown-token", (2, 0), (2, 1)),
        ("merge-result-missing", (2, 0), (2, 3)),  # `q` first
        ("merge-result-missing", (3, 0), (3, 4)),  # both parts known, `zza` is not
    ]
    assert msgs[1] == "merge 0 (`a` + `q`): `q` is not in the vocabulary"
    # the brief's example: `a zz` with `zz` unknown -> characters 2..4
    write(gpt2_dir, "vocab.json", json.dumps({"a": 0, "azz": 1}))
    _, got, _ = merges_findings(gpt2_dir, "#version: 0.2\na zz\n")
    assert got == [("merge-unknown-token", (1, 2), (1, 4))]


def test_merges_txt_crlf_columns(gpt2_dir):
    _, got, _ = merges_findings(gpt2_dir, b"#version: 0.2\r\na b\r\nb q\r\n")
    assert got == [("merge-result-missing", (2, 0), (2, 3)), ("merge-unknown-token", (2, 2), (2, 3))]


def test_merges_txt_blank_lines_fail_in_tokenizers(gpt2_dir):
    """tokenizers' BPE.from_file refuses an empty line ("Merges text file invalid at
    line N"); the line break that ends the last line opens no line."""
    _, got, msgs = merges_findings(gpt2_dir, "#version: 0.2\na b\n\nb c\n   \n")
    assert got == [("merge-malformed", (2, 0), (2, 0)), ("merge-malformed", (4, 0), (4, 3))]
    assert msgs[0].startswith("empty line")
    _, got, _ = merges_findings(gpt2_dir, "#version: 0.2\na b\nb c\n")
    assert got == []


def test_merges_txt_trailing_space_tab_and_later_version_line(gpt2_dir):
    _, got, msgs = merges_findings(gpt2_dir, "#version: 0.2\nab \na\tb\n#version: 0.2\nb c\n")
    # tokenizers skips every line starting with #version, not only the first
    assert got == [("merge-malformed", (1, 0), (1, 3)), ("merge-malformed", (2, 0), (2, 3))]
    assert (
        msgs[0]
        == "merge 0 `ab ` ends with a space, so its last part is empty: a merge is two tokens separated by one space"
    )
    assert msgs[1].startswith("merge 1 `a\\tb` has no space (a tab is not a separator)")


def test_merges_txt_invalid_utf8_is_one_finding(gpt2_dir):
    idx, got, msgs = merges_findings(gpt2_dir, b"#version: 0.2\na b\na \xff\xfe\nb c\n")
    assert got == [("merge-malformed", (2, 2), (2, 3))]
    assert msgs[0].startswith("byte FF is not valid UTF-8") and "\ufffd" not in msgs[0]


def test_merges_txt_bom_before_header(gpt2_dir):
    """The header is there (no "no header" finding); tokenizers' BPE.from_file reads the
    BOM'd line as a merge and fails on it, which is what the warning says."""
    idx, got, msgs = merges_findings(gpt2_dir, b"\xef\xbb\xbf#version: 0.2\na b\n")
    assert got == [("merges-header", (0, 0), (0, 14))]
    assert "byte order mark" in msgs[0] and "no `#version` header" not in msgs[0]
    assert [r["token"] for r in decoded_rows(idx)] == ["a b"]  # the header is not a merge


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_line_documents_never_crash(data):
    vocab = build_index(b'{"a": 0, "b": 1}', "/x/vocab.json").vocab
    from tokenizer_lsp.core.formats.merges.checks import document_findings as check_merges
    from tokenizer_lsp.core.formats.parsed import Parsed
    from tokenizer_lsp.core.formats.tiktoken.checks import document_findings as check_tiktoken

    for doc, check in (
        (MergesDocument(data), check_merges),
        (MergesDocument(data, vocab), check_merges),
        (TiktokenDocument(data), check_tiktoken),
    ):
        check(Parsed(doc.format, doc))
        for ref in doc.tokens_in(0, len(data)):
            assert 0 <= ref.start <= ref.end <= len(data)


# ---- 3. control characters in messages and hovers --------------------------------------


NASTY = ["b\n", "c\t", "d\r", "e\u0085", "f\u2028", "g\u2029", "h\u202e", "i\x0b", "j\x1e", "k\\n"]


def test_messages_are_one_line_whatever_the_token(tmp_path, capsys):
    vocab = {"a": 0, **{t: i + 1 for i, t in enumerate(NASTY)}, "z": 20}  # ids 11..19 missing
    obj = tokenizer(vocab, [["a", t + "x"] for t in NASTY], byte_level=False)
    path = write(tmp_path, "tokenizer.json", json.dumps(obj, ensure_ascii=False))
    idx = index_file(str(path))
    assert len(idx.findings) == 2 * len(NASTY) + 1
    for f in idx.findings:
        assert len(f.message.splitlines()) == 1 and "\u202e" not in f.message, f.message
    assert cli(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert len(out.splitlines()) == len(idx.findings) + 1  # and the summary; str.splitlines also breaks at U+2028...
    msgs = " ".join(f.message for f in idx.findings)
    for shown in (
        "`b\\nx`",
        "`c\\tx`",
        "`d\\rx`",
        "`e\\u0085x`",
        "`f\\u2028x`",
        "`g\\u2029x`",
        "`h\\u202Ex`",
        "`i\\u000Bx`",
        "`j\\u001Ex`",
        "`k\\\\nx`",
    ):
        assert shown in msgs, shown


def _code_spans(markdown):
    return [m.group(2) for m in re.finditer(r"(`+)(.*?)\1", markdown, re.S)]


def test_hover_escapes_stored_forms_with_line_breaks(tmp_path):
    vocab = {"a": 0, "\n": 1, "a\n": 2, "\u2028": 3, "a\u2028": 4}
    obj = tokenizer(vocab, [["a", "\n"], ["a", "\u2028"]], byte_level=False)
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    assert idx.findings == []
    idx.prepare_lookups()
    for needle in ('"\\n"', '"\u2028"'):
        data = idx.data
        h = hover_markdown(idx, piece_at(idx, data.index(needle.encode(), data.index(b'"merges"')) + 1))
        assert "merge rank" in h
        spans = _code_spans(h)
        assert spans and all(not set(s) & set("\n\r\u2028\u2029\x85") for s in spans), h
    assert "`\\u2028`" in h and "`a\\u2028`" in h


def test_gemma3_merge_hover_with_raw_newlines():
    path = corpus_file("gemma3/tokenizer.json")
    idx = index_file(str(path))
    idx.prepare_lookups()
    line = 319985  # 0-based: the first part of merge 0, thirty newlines
    p = piece_at(idx, idx.lines.offset(line, 9))
    h = hover_markdown(idx, p)
    assert p.rank == 0 and p.token == "\n" * 30
    assert h.startswith("`" + "\\n" * 30 + "` — merge part 1 of 2")
    assert all("\n" not in s for s in _code_spans(h))


# ---- 4. WordPiece ----------------------------------------------------------------------


def test_wordpiece_corpus_continuation_pieces(capsys):
    path = corpus_file("all-minilm-l6-v2/tokenizer.json")
    idx = index_file(str(path))
    assert idx.vocab.subword_prefix == "##" and idx.vocab.tokens["##ing"] == 2075
    d = idx.vocab.decode("##ing")
    assert (d.text, d.continues, d.kind.value) == ("ing", "##", "literal")
    assert idx.vocab.decode("ing").text == "ing" and idx.vocab.decode("##").text == "##"
    idx.prepare_lookups()
    at = idx.data.index(b'"##ing"') + 3
    h = hover_markdown(idx, piece_at(idx, at))
    assert h.startswith("`ing` — token, id 2075") and "continues the previous word" in h and "`##`" in h
    assert cli(["decode", "--format", "jsonl", str(path)]) == 0
    row = next(json.loads(r) for r in capsys.readouterr().out.splitlines() if '"##ing"' in r)
    assert row == {"id": 2075, "token": "##ing", "bytes": "696e67", "text": "ing", "utf8": "valid", "kind": "literal"}


def test_wordpiece_prefix_comes_from_the_file(tmp_path):
    for model_prefix, decoder in (("@@", None), (None, {"type": "WordPiece", "prefix": "@@"})):
        model = {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "play": 1, "@@ing": 2, "##ed": 3}}
        if model_prefix:
            model["continuing_subword_prefix"] = model_prefix
        idx = index_file(str(write(tmp_path, "tokenizer.json", json.dumps({"model": model, "decoder": decoder}))))
        assert idx.vocab.decode("@@ing").text == "ing" and idx.vocab.decode("##ed").text == "##ed"


# ---- 5., 6. duplicates -----------------------------------------------------------------


def test_unigram_duplicate_piece_on_one_line(tmp_path, capsys):
    obj = {
        "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁a", -1.0], ["b", -2.0], ["▁a", -3.0]]},
        "decoder": {"type": "Metaspace", "replacement": "▁"},
        "added_tokens": [],
    }
    text = json.dumps(obj, ensure_ascii=False)
    path = write(tmp_path, "tokenizer.json", text)
    got = located(index_file(str(path)))
    second = where(text, '["▁a"', 1)
    assert [(c, s, e) for c, s, e, _ in got] == [("duplicate-token", second, plus(second, len('["▁a", -3.0]')))]
    assert "`▁a` appears more than once" in got[0][3] and "last id (3)" in got[0][3]
    assert cli(["check", str(path)]) == 1


def test_added_token_duplicates_on_one_line(tmp_path):
    obj = tokenizer(BASE, added=[("<s>", 5), ("</s>", 6), ("<s>", 7), ("<pad>", 6)])
    text = json.dumps(obj)
    got = located(index_file(str(write(tmp_path, "tokenizer.json", text))))
    dup_token = where(text, '"<s>"', 1)
    dup_id = where(text, '"<pad>"')
    assert [(c, s, e) for c, s, e, _ in got if c.startswith("duplicate")] == [
        ("duplicate-token", dup_token, plus(dup_token, 5)),
        ("duplicate-id", dup_id, plus(dup_id, 7)),
    ]
    msgs = {c: m for c, _, _, m in got}
    assert msgs["duplicate-token"] == "added token `<s>` is listed twice (ids 5 and 7)"
    assert msgs["duplicate-id"] == "added token `<pad>` has id 6, already the id of added token `</s>`"


# ---- 7. tiktoken -----------------------------------------------------------------------


def test_tiktoken_duplicates_keep_the_last_rank_like_tiktoken(tmp_path):
    data = b"IQ== 0\nIg==\t1\nIw==  2\nIQ== 3\n"
    idx = index_file(str(write(tmp_path, "a.tiktoken", data)))
    # tiktoken's loader: {b64decode(t): int(r) for t, r in (l.split() for l in lines if l)}
    reference = {base64.b64decode(t): int(r) for t, r in (l.split() for l in data.splitlines() if l)}
    assert {base64.b64decode(t): r for t, r in idx.vocab.tokens.items()} == reference
    got = located(idx)
    # rank 0 is lost to the repeat: tiktoken has no token of rank 0 any more
    assert [(c, s, e) for c, s, e, _ in got] == [("id-gap", (1, 0), (1, 4)), ("duplicate-token", (3, 0), (3, 4))]
    assert got[0][3] == "rank 0 missing: no token has this rank"
    assert (
        got[1][3]
        == "`IQ==` appears more than once in the vocabulary; the last rank (3) wins and the earlier entry is lost"
    )
    idx.prepare_lookups()
    first, dup = piece_at(idx, 1), piece_at(idx, idx.lines.offset(3, 1))
    assert (first.token_id, dup.token_id) == (0, 3) and dup.token == "IQ=="
    assert "tiktoken keeps that last rank, so rank 0 is never used" in hover_markdown(idx, first)
    assert "never used" not in hover_markdown(idx, dup)
    assert [h.offset for h in hints_in(idx, 0, len(data))] == [4, 11, 18, 26]  # every line, the repeat too
    assert [(r["id"], r["token"]) for r in decoded_rows(idx)] == [(3, "IQ=="), (1, "Ig=="), (2, "Iw==")]


def test_tiktoken_repeated_fragment_sits_on_the_kept_line(tmp_path):
    data = b"4og= 0\nIQ== 1\n4og= 2\n"  # E2 88 twice: tiktoken keeps rank 2
    got = located(index_file(str(write(tmp_path, "a.tiktoken", data))))
    assert [(c, s, e) for c, s, e, _ in got] == [
        ("id-gap", (1, 0), (1, 4)),
        ("duplicate-token", (2, 0), (2, 4)),
        ("utf8-fragment", (2, 0), (2, 4)),
    ]
    assert got[2][3] == "rank 2 = bytes E2 88: first 2 of 3 bytes of a UTF-8 sequence"


def test_tiktoken_lines_tiktoken_cannot_load(tmp_path):
    data = b"IQ== 0\n   \nIg== x\n\nIw== 3 4\n"
    got = located(index_file(str(write(tmp_path, "a.tiktoken", data))))
    assert [(c, s, e) for c, s, e, _ in got if c == "tiktoken-malformed"] == [
        ("tiktoken-malformed", (1, 0), (1, 3)),
        ("tiktoken-malformed", (2, 0), (2, 6)),
        ("tiktoken-malformed", (4, 0), (4, 8)),
    ]
    assert "found 0 fields" in got[0][3] and "rank `x` is not a non-negative integer" in got[1][3]


# ---- 8. values tokenizers cannot load --------------------------------------------------


def test_ids_that_are_not_integers_at_their_value(tmp_path):
    vocab = {"a": 0, "b": "x", "c": 1.5, "d": None, "e": -3, "f": True, "g": [1, 2], "h": 1}
    text = json.dumps(tokenizer(vocab), indent=2)
    got = located(index_file(str(write(tmp_path, "tokenizer.json", text))))
    values = {"b": '"x"', "c": "1.5", "d": "null", "e": "-3", "f": "true"}
    expect = [
        ("schema", plus(where(text, f'"{k}": '), 5), plus(where(text, f'"{k}": '), 5 + len(v)))
        for k, v in values.items()
    ]
    g = plus(where(text, '"g": '), 5)
    expect.append(("schema", g, (g[0] + 3, 7)))  # [ 1, 2 ] over four lines
    assert [(c, s, e) for c, s, e, _ in got] == expect
    assert got[0][3] == 'the id of `b` must be a non-negative integer, not `"x"`; tokenizers cannot load this file'
    assert got[-1][3].startswith("the id of `g` must be a non-negative integer, not `[1, 2]`")


@pytest.mark.parametrize(
    "model,want",
    [
        (
            {"type": "BPE", "vocab": [["a", 0.0], ["b", 0.0]], "merges": []},
            "model.vocab of a `BPE` model must be an object",
        ),
        (
            {"type": "BPE", "vocab": ["a", "b", "ab"], "merges": ["a b"]},
            "model.vocab of a `BPE` model must be an object",
        ),
        (
            {
                "type": "WordPiece",
                "vocab": ["a", "b"],
                "unk_token": "a",
                "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
            },
            "model.vocab of a `WordPiece` model must be an object",
        ),
        ({"type": "Unigram", "vocab": {"a": 0}}, "model.vocab of a `Unigram` model must be a list of [piece, score]"),
    ],
)
def test_vocab_of_the_wrong_shape_is_one_error(tmp_path, model, want):
    text = json.dumps({"added_tokens": [], "model": model}, indent=2)
    got = located(index_file(str(write(tmp_path, "tokenizer.json", text))))
    key = where(text, '"vocab"')
    assert [(c, s, e) for c, s, e, _ in got] == [("schema", key, plus(key, 7))]
    assert got[0][3].startswith(want) and got[0][3].endswith("tokenizers cannot load this file")


def test_unigram_rows_and_merges_and_added_entries(tmp_path):
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    obj = {
        "added_tokens": [{"id": 0, "content": "<unk>", **flags}, {"id": "x", "content": "<s>"}, 5, {"id": 9}],
        "model": {"type": "Unigram", "vocab": [["<unk>", 0.0], ["b"], ["c", "x"], "e", [5, 1.0]]},
    }
    text = json.dumps(obj)
    got = located(index_file(str(write(tmp_path, "tokenizer.json", text))))
    bad = ['{"id": "x", "content": "<s>"}', "5", '{"id": 9}', '["b"]', '["c", "x"]', '"e"', "[5, 1.0]"]
    assert [(c, s, e) for c, s, e, _ in got] == [("schema", where(text, b), plus(where(text, b), len(b))) for b in bad]
    msgs = [m for *_, m in got]
    assert msgs[0].startswith("added token 1 has an `id` that is not a non-negative integer")
    assert msgs[1].startswith("added token 2 is not an object") and msgs[2].startswith("added token 3 has no `content`")
    assert msgs[3].startswith('Unigram vocab row 1 `["b"]` has 1 element')
    assert msgs[4].startswith('Unigram vocab row 2 `["c", "x"]` has a score that is not a number')
    assert msgs[5].startswith('Unigram vocab row 3 is `"e"`, not a list')
    assert msgs[6].startswith("Unigram vocab row 4 `[5, 1.0]` has a piece that is not a string")
    obj = tokenizer(BASE)
    obj["model"]["merges"] = "a b"
    text = json.dumps(obj)
    got = located(index_file(str(write(tmp_path, "tokenizer.json", text))))
    key = where(text, '"merges"')
    assert [(c, s, e) for c, s, e, _ in got] == [("schema", key, plus(key, 8))]
    assert got[0][3] == "model.merges must be a list of merges, not `\"a b\"`; tokenizers cannot load this file"


def test_added_tokens_without_content_keep_hovers_on_the_others(tmp_path):
    obj = tokenizer(BASE, added=[("<s>", 5)])
    obj["added_tokens"].insert(0, {"id": 9})
    text = json.dumps(obj, indent=2)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    idx.prepare_lookups()
    p = piece_at(idx, text.index('"<s>"') + 1)
    assert p is not None and p.token == "<s>" and p.token_id == 5


# ---- 9. whitespace hints ---------------------------------------------------------------


def test_whitespace_hints_by_decoded_character(tmp_path):
    tokens = ["Ãł", "ÂłX", "ãĢĢ", "âĢī", "ĉa", "ÂħX", "Ġ", "âĢ", "ab", "Ċ"]
    # à, NBSP+X, U+3000, U+2009, tab, U+0085+X, space, a fragment, plain, newline
    text = json.dumps({t: i for i, t in enumerate(tokens)}, ensure_ascii=False)
    idx = index_file(str(write(tmp_path, "vocab.json", text)))
    idx.prepare_lookups()
    labels = [h.label for h in hints_in(idx, 0, len(idx.data), "whitespace")]
    assert labels == ["\\u00A0X", "\\u3000", "\\u2009", "\\ta", "\\u0085X", "␣", "\\n"]
    assert "à" in [h.label for h in hints_in(idx, 0, len(idx.data), "all")]


# ---- 10. bounded hover and hints -------------------------------------------------------


def test_hover_and_hints_bounded_on_huge_tokens(tmp_path):
    big = "Ġ" * 200_000
    text = json.dumps({"a": 0, big: 1, "b": 2, "ab": 3})
    idx = index_file(str(write(tmp_path, "vocab.json", text)))
    idx.prepare_lookups()
    h = hover_markdown(idx, piece_at(idx, 10))
    assert len(h) < 3000 and "(199744 more bytes)" in h and "(200000 bytes)" in h
    (hint,) = hints_in(idx, 0, len(idx.data))
    assert len(hint.label) <= 40 and hint.label.endswith("…") and len(hint.tooltip) < 300


# ---- 11. display -----------------------------------------------------------------------


def test_display_distinguishes_nul_bytes_backslashes_and_separators():
    assert visible_text(b"\x00") == "\\u0000" and visible_text(b"\xff") == "\\xFF"
    assert visible_text(b"\\x41") == "\\\\x41" != visible_text(b"A")
    assert visible_text("\u2028\u2029\u0085\u200b".encode()) == "\\u2028\\u2029\\u0085\\u200B"
    assert visible_text("\U000e0001".encode()) == "\\U000E0001"


@pytest.mark.parametrize(
    "data,parts",
    [
        (b"\x80", ["continuation bytes only", "middle or end"]),
        (b"a\x80", ["80 at byte 2: a continuation byte with no lead byte before"]),
        (b"\xe2\x88 ", ["E2 88 is the first 2 of 3 bytes of a UTF-8 sequence (lead byte E2), cut short by 20"]),
        (b"\xc0\x80", ["C0 80 is an overlong encoding of U+0000", "C0 never occurs in UTF-8"]),
        (b"\xe0\x80\x80", ["E0 80 80 is an overlong encoding of U+0000"]),
        (b"\xed\xa0\x80", ["ED A0 80 encodes the UTF-16 surrogate U+D800, which UTF-8 forbids"]),
        (b"\xf4\x90\x80\x80", ["F4 90 80 80 encodes U+110000, above U+10FFFF"]),
        (b"\xff", ["holds FF, a byte that never occurs in UTF-8"]),
        (b"\xe2", ["first 1 of 3 bytes", "e.g. ‐ U+2010 = E2 80 90"]),
        (b"\xf4", ["first 1 of 4 bytes", "U+100000..U+10FFFF"]),
    ],
)
def test_fragment_explanations(data, parts):
    msg = describe_fragment(data)
    for part in parts:
        assert part in msg, msg
    assert "last byte" not in msg and "\u2000" not in msg
    assert "\ue000" not in describe_fragment(b"\xee")  # no invisible private-use example
    assert "\U00100000" not in describe_fragment(b"\xf4")


def test_short_fragment_kinds_for_messages():
    assert short_fragment_kind(b"\x8b") == "continuation bytes only"
    assert short_fragment_kind(b" \xf0\x9f\x91") == "first 3 of 4 bytes of a UTF-8 sequence"
    assert (
        short_fragment_kind(b"\x88\x80\xe4\xbd")
        == "starts with 2 continuation bytes, first 2 of 3 bytes of a UTF-8 sequence"
    )
    assert short_fragment_kind(b"\xe2\x88 ") == "E2 88 cut short (first 2 of 3 bytes of a UTF-8 sequence)"


_TEXT_SLICES = st.tuples(st.text(max_size=8), st.integers(0, 40), st.integers(0, 40)).map(
    lambda t: t[0].encode("utf-8")[t[1] : t[1] + t[2]]
)


@given(
    st.one_of(
        st.binary(max_size=16),
        _TEXT_SLICES,
        st.lists(
            st.sampled_from(
                [
                    b"a",
                    b"\x80",
                    b"\xbf",
                    b"\xc2",
                    b"\xe2\x88",
                    b"\xed\xa0",
                    b"\xf4\x90",
                    b"\xc0",
                    b"\xff",
                    b"\xe0\x80",
                    b"\xf0\x9f\x98",
                ]
            ),
            max_size=6,
        ).map(b"".join),
    )
)
def test_faults_agree_with_python_both_ways(data):
    """Faults are found iff Python's decoder fails; they are ordered and disjoint; the bytes
    outside them decode; the utf8 kinds follow from them."""
    found = faults(data)
    try:
        data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert valid == (found == []) == (classify(data) is Utf8Kind.VALID)
    ends = [0]
    for _shape, s, e in found:
        assert ends[-1] <= s < e <= len(data)
        ends.append(e)
    rest = b"".join(data[e0:s] for (e0, (_, s, _)) in zip(ends, found)) + data[ends[-1] :]
    rest.decode("utf-8")  # what is not a fault is text
    kind = classify(data)
    shapes = [f[0] for f in found]
    assert (kind is Utf8Kind.CONTINUATION) == (shapes == ["leading"] and found[0][1:] == (0, len(data)))
    assert (kind is Utf8Kind.INCOMPLETE) == (shapes == ["tail"])
    if kind is Utf8Kind.INCOMPLETE:  # some completion makes it valid
        assert any(_decodes(data + bytes([0x80 | k]) * n) for n in (1, 2, 3) for k in range(0x40))
    if not valid:
        assert describe_fragment(data) and short_fragment_kind(data) != "invalid UTF-8"


def _decodes(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# ---- 12. CLIP end-of-word suffix -------------------------------------------------------


def test_clip_suffix_from_a_bpe_decoder(tmp_path):
    obj = tokenizer({"h": 0, "e": 1, "he</w>": 2, "e</w>": 3, "âĪ</w>": 4}, [["h", "e</w>"]])
    obj["decoder"] = {"type": "BPEDecoder", "suffix": "</w>"}  # no model.end_of_word_suffix
    obj["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [{"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}],
    }
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    idx = index_file(str(write(tmp_path, "tokenizer.json", text)))
    assert idx.vocab.word_suffix == "</w>"
    (f,) = located(idx)
    assert f[:2] == ("utf8-fragment", where(text, '"âĪ</w>"'))
    assert f[3] == "`âĪ</w>` = bytes E2 88 20: E2 88 cut short (first 2 of 3 bytes of a UTF-8 sequence)"
    idx.prepare_lookups()
    at = idx.data.index(b'"he</w>"')
    p = piece_at(idx, at + 1)
    assert p.decoded.text == "he " and "ends a word: suffix `</w>`" in hover_markdown(idx, p)
    assert [h.label for h in hints_in(idx, 0, len(idx.data)) if h.offset == at + 8] == ["he␣"]


def test_clip_vocab_json_and_merges_txt(tmp_path):
    vocab = {c: i for i, c in enumerate(BYTE_TO_CHAR)}
    vocab.update({c + "</w>": 256 + i for i, c in enumerate(BYTE_TO_CHAR)})
    vocab.update({"he": 512, "hel": 513, "hell": 514, "hello</w>": 515})
    write(tmp_path, "vocab.json", json.dumps(vocab, ensure_ascii=False))
    idx = index_file(str(write(tmp_path, "merges.txt", "#version: 0.2\nh e\nhe l\nhel l\nhell o</w>\n")))
    assert idx.findings == [] and idx.vocab.word_suffix == "</w>"
    idx.prepare_lookups()
    p = piece_at(idx, idx.lines.offset(4, 6))
    assert p.token == "o</w>" and p.decoded.text == "o "
    h = hover_markdown(idx, p)
    assert "ends a word" in h and "→ `hello␣` (id 515)" in h
    assert [r["text"] for r in decoded_rows(idx)][-1] == "hello "
    # without a vocabulary beside it, the merges themselves tell
    alone = tmp_path / "alone"
    assert (
        index_file(str(write(alone, "merges.txt", "#version: 0.2\nh e\nl o</w>\nhe llo</w>\n"))).vocab.word_suffix
        == "</w>"
    )
    vidx = index_file(str(tmp_path / "vocab.json"))
    assert vidx.vocab.word_suffix == "</w>" and vidx.vocab.decode("hello</w>").text == "hello "


# ---- 13. decoding inverts encoding, every scheme ---------------------------------------


@given(st.text(max_size=16))
def test_literal_and_wordpiece_and_suffix_decode_invert(text):
    assert decode_token(text, Scheme.LITERAL).data == text.encode("utf-8", "surrogatepass")
    if text:
        d = decode_token("##" + text, Scheme.WORDPIECE, prefix="##")
        assert d.data == text.encode("utf-8", "surrogatepass") and d.continues == "##"
    stored = byte_level_encode(text.encode("utf-8", "surrogatepass"))
    if stored:
        d = decode_token(stored + "</w>", Scheme.BYTE_LEVEL, suffix="</w>")
        assert d.data == text.encode("utf-8", "surrogatepass") + b" " and d.ends_word == "</w>"
