"""Broken JSON: json-syntax where the parser stopped, and what the intact parts still tell
(fragments, hovers, hints), with no false findings and no exception on any input."""

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizer_lsp.cli import main as cli
from tokenizer_lsp.core.formats.json.checks import salvaged_findings
from tokenizer_lsp.core.formats.json.pieces import match_close, parse_prefix
from tokenizer_lsp.core.formats.json.salvage import salvage
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.navigation.pieces import piece_at
from tokenizer_lsp.lsp.render.diagnostics import diagnostics_for
from tokenizer_lsp.lsp.render.hints import hints_in
from tokenizer_lsp.lsp.render.hover import hover_markdown
from tokenizer_lsp.lsp.settings import Settings

from tests.conftest import corpus_file

pytestmark = pytest.mark.usefixtures("cli_main_in_process")  # cli.main installs the runtime


def tokenizer(vocab, merges=(), added=(), byte_level=True):
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
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
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        if byte_level
        else None,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [list(m) for m in merges],
        },
    }


# fragments: âĪ (E2 88), ĠâĪ (20 E2 88), ðŁĺ (F0 9F 98), Ģ (80), ĢâĪ (80 E2 88: a tail and a head)
VOCAB = {
    "a": 0,
    "b": 1,
    "âĪ": 2,
    "Ġ": 3,
    "ĠâĪ": 4,
    "<|end|>": 5,
    "c": 6,
    "ab": 7,
    "Ċ": 8,
    "ðŁĺ": 9,
    "Ģ": 10,
    "ĢâĪ": 11,
    "Ġa": 12,
    "ĠĠ": 13,
}
MERGES = [("a", "b"), ("Ġ", "âĪ"), ("Ġ", "a"), ("Ġ", "Ġ"), ("Ģ", "âĪ")]
TEXT = json.dumps(tokenizer(VOCAB, MERGES, [("<|end|>", 5)]), indent=2, ensure_ascii=False)
DATA = TEXT.encode()


def index(data, path="/x/tokenizer.json"):
    return build_index(data if isinstance(data, bytes) else data.encode(), path)


def found(idx):
    """(code, line, character) of every finding, in the order given."""
    return [(f.code, *idx.lines.position(f.start)) for f in idx.findings]


def line_of(text, needle, nth=0):
    return [i for i, line in enumerate(text.split("\n")) if needle in line][nth]


def col_of(text, needle, nth=0):
    line = text.split("\n")[line_of(text, needle, nth)]
    return len(line[: line.index(needle)].encode("utf-16-le")) // 2


def fragment_lines(idx):
    return [line for code, line, _ in found(idx) if code == "utf8-fragment"]


CLEAN = index(DATA)
CLEAN_FINDINGS = {(f.code, f.start, f.end, f.message) for f in CLEAN.findings}


def test_the_clean_file_has_only_fragment_hints():
    assert {code for code, *_ in found(CLEAN)} == {"utf8-fragment"}
    assert fragment_lines(CLEAN) == [line_of(TEXT, f'"{t}": ') for t in ("âĪ", "ĠâĪ", "ðŁĺ", "Ģ", "ĢâĪ")]


# ---- where json-syntax sits ------------------------------------------------------------


def test_truncated_inside_the_vocab_keeps_the_fragments_before_the_cut():
    cut = TEXT[: TEXT.index('"Ċ"') + 2]  # inside the literal of "Ċ"
    idx = index(cut)
    got = found(idx)
    # the break is the first finding, at the end of the file (its last line)
    assert got[0] == ("json-syntax", cut.count("\n"), len(cut.split("\n")[-1]))
    assert idx.findings[0].start == idx.findings[0].end == len(cut.encode())
    # the fragments before the cut, at their lines; nothing about what was cut off
    assert got[1:] == [("utf8-fragment", line_of(TEXT, f'"{t}": '), 6) for t in ("âĪ", "ĠâĪ")]


def test_truncated_after_a_newline_sits_on_the_empty_last_line(tmp_path, capsys):
    cut = TEXT[: TEXT.index('"c": 6,\n') + len('"c": 6,\n')]
    assert cut.endswith("\n")
    idx = index(cut)
    assert found(idx)[0] == ("json-syntax", cut.count("\n"), 0)  # EOF, not the line before
    path = tmp_path / "tokenizer.json"
    path.write_text(cut, encoding="utf-8")
    assert cli(["check", "--format", "json", str(path)]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["code"] == "json-syntax"
    assert rows[0]["range"]["start"] == rows[0]["range"]["end"] == {"line": cut.count("\n"), "character": 0}
    assert [r["code"] for r in rows[1:]] == ["utf8-fragment", "utf8-fragment"]


def test_truncated_inside_the_merges_keeps_every_vocab_finding_and_checks_no_merge():
    cut = TEXT[: TEXT.index('"Ģ"', TEXT.index('"merges"')) + 1]  # inside the last merge
    idx = index(cut)
    got = found(idx)
    assert got[0][:2] == ("json-syntax", cut.count("\n"))
    assert fragment_lines(idx) == fragment_lines(CLEAN)
    assert {c for c, *_ in got[1:]} == {"utf8-fragment"}
    # the merges before the cut answer hovers: the first merge's second part
    idx.prepare_lookups()
    at = len(TEXT[: TEXT.index('"b"', TEXT.index('"merges"')) + 1].encode())
    p = piece_at(idx, at)
    assert p is not None and p.role == "merge" and p.rank == 0 and p.token == "b"


def test_stray_comma_in_the_vocab():
    broken = TEXT.replace('"c": 6,', '"c": 6,,')
    idx = index(broken)
    got = found(idx)
    assert got[0] == ("json-syntax", line_of(broken, '"c": 6,,'), col_of(broken, '"c": 6,,') + len('"c": 6,'))
    assert "invalid JSON" in idx.findings[0].message
    assert got[1:] == [("utf8-fragment", line_of(TEXT, f'"{t}": '), 6) for t in ("âĪ", "ĠâĪ")]


def test_missing_comma_keeps_the_entry_before_it():
    broken = TEXT.replace('"Ċ": 8,', '"Ċ": 8')
    idx = index(broken)
    assert found(idx)[0] == ("json-syntax", line_of(broken, '"ðŁĺ"'), 6)
    assert idx.vocab.tokens.get("Ċ") == 8 and "ðŁĺ" not in idx.vocab.tokens


def test_break_before_the_model_keeps_the_whole_model():
    broken = TEXT.replace('"truncation": null', '"truncation": nul')
    idx = index(broken)
    got = found(idx)
    assert got[0] == ("json-syntax", line_of(broken, "truncation"), col_of(broken, "nul,"))
    assert got[1:] == found(CLEAN)
    assert len(idx.vocab.tokens) == len(VOCAB) and len(idx.merges()) == len(MERGES)
    out = salvage(broken.encode())
    assert out.vocab_complete and out.merges_recovered == len(MERGES) and salvaged_findings(out)[0] is out.error


def test_findings_valid_on_partial_data_only():
    # an id gap and a token outside the byte alphabet, a duplicate key, then a cut
    vocab = {**VOCAB, "€x": 20, "zz": 21}
    text = json.dumps(tokenizer(vocab, MERGES, [("<|end|>", 5)]), indent=2, ensure_ascii=False)
    text = text.replace('"c": 6,', '"c": 6,\n      "a": 14,')
    whole = index(text)
    assert {"id-gap", "not-byte-level", "duplicate-token"} <= {c for c, *_ in found(whole)}
    cut = text[: text.index('"zz"')]
    got = found(index(cut))
    # the gap may be closed by what was cut off: not reported; the others hold on the part
    assert [c for c, *_ in got] == ["json-syntax"] + ["utf8-fragment"] * 2 + ["duplicate-token"] + [
        "utf8-fragment"
    ] * 3 + ["not-byte-level"]
    assert ("duplicate-token", line_of(cut, '"a": 14'), 6) in got
    assert ("not-byte-level", line_of(cut, '"€x"'), 6) in got


def test_broken_added_tokens_suppress_not_byte_level():
    """With the added tokens unreadable, a special token kept in a byte-level vocab
    cannot be told from a bad token: no not-byte-level then."""
    vocab = {**VOCAB, "<｜begin▁of▁sentence｜>": 14}
    added = [("<|end|>", 5), ("<｜begin▁of▁sentence｜>", 14)]
    text = json.dumps(tokenizer(vocab, MERGES, added), indent=2, ensure_ascii=False)
    assert "not-byte-level" not in [c for c, *_ in found(index(text))]
    broken = text.replace('"special": true', '"special": tru', 1)
    got = found(index(broken))
    assert got[0][:2] == ("json-syntax", line_of(broken, '"special": tru'))
    assert [c for c, *_ in got[1:]] == ["utf8-fragment"] * 5
    # with them intact (a break in the merges) the special token is exempt as usual
    cut = text[: text.rindex('"merges"') + 20]
    assert [c for c, *_ in found(index(cut))[1:]] == ["utf8-fragment"] * 5


# ---- bytes and escapes that are not JSON ------------------------------------------------


def test_invalid_utf8_byte_at_its_exact_position():
    # an astral character before the bad byte on the same line: two UTF-16 units
    text = TEXT.replace('"c": 6,', '"😀c\udcff": 6,')
    data = text.encode("utf-8", "surrogateescape")  # \udcff -> the raw byte 0xFF
    idx = index(data)
    f = idx.findings[0]
    assert f.code == "json-syntax" and data[f.start : f.end] == b"\xff"
    assert f.message == "invalid UTF-8 byte 0xFF in the file (JSON must be UTF-8)"
    line = line_of(TEXT, '"c": 6,')
    assert idx.lines.position(f.start) == (line, 6 + 1 + 2 + 1)  # 6 spaces, quote, 😀 (2 units), c
    assert fragment_lines(idx) == [line_of(TEXT, f'"{t}": ') for t in ("âĪ", "ĠâĪ")]


def test_truncated_utf8_sequence_is_named_with_its_bytes():
    data = DATA.replace(b"\"c\": 6", b'"c\xe2\x88": 6')
    f = index(data).findings[0]
    assert f.code == "json-syntax" and "0xE2 0x88" in f.message and "UTF-8" in f.message
    assert data[f.start : f.end] == b"\xe2\x88"


def test_json_error_before_the_bad_byte_comes_first():
    data = DATA.replace(b'"truncation": null', b'"truncation": nul').replace(b'"c": 6', b'"c\xff": 6')
    idx = index(data)
    assert found(idx)[0] == ("json-syntax", line_of(TEXT, "truncation"), col_of(TEXT, "null"))
    assert "invalid JSON" in idx.findings[0].message


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff"])
def test_lone_surrogate_at_the_escape(escape):
    """serde_json (HF tokenizers) rejects a lone surrogate: an error, but at the escape,
    and the vocabulary before it still serves."""
    broken = TEXT.replace('"c": 6,', f'"x{escape}": 6,')
    idx = index(broken)
    f = idx.findings[0]
    assert (
        f.code == "json-syntax" and f"lone surrogate {escape}" in f.message and "tokenizers cannot load it" in f.message
    )
    assert idx.data[f.start : f.end] == escape.encode()
    assert idx.lines.position(f.start) == (line_of(broken, escape), col_of(broken, escape))
    assert fragment_lines(idx) == [line_of(TEXT, f'"{t}": ') for t in ("âĪ", "ĠâĪ")]
    idx.prepare_lookups()
    at = len(broken[: broken.index('"ĠâĪ"') + 2].encode())
    assert "`20 E2 88`" in hover_markdown(idx, piece_at(idx, at))


def test_a_surrogate_pair_is_fine():
    idx = index(TEXT.replace('"c": 6,', '"\\ud83d\\ude00": 6,'))
    assert idx.syntax_error is None and idx.vocab.tokens["\U0001f600"] == 6


def test_byte_order_mark():
    idx = index(b"\xef\xbb\xbf" + DATA)
    got = found(idx)
    assert got[0] == ("json-syntax", 0, 0) and "byte order mark" in idx.findings[0].message
    assert got[1:] == found(CLEAN)


# ---- other layouts ------------------------------------------------------------------------


def test_truncated_vocab_json_on_one_line():
    text = json.dumps({**{c: i for i, c in enumerate("abcdefg")}, "âĪ": 7, "ĠâĪ": 8, "zz": 9}, ensure_ascii=False)
    cut = text[: text.index('"zz"') + 2]
    idx = index(cut, "/x/vocab.json")
    got = found(idx)
    assert got[0] == ("json-syntax", 0, len(cut))
    assert got[1:] == [("utf8-fragment", 0, col_of(cut, '"âĪ"')), ("utf8-fragment", 0, col_of(cut, '"ĠâĪ"'))]
    assert idx.format == "json"  # a broken vocab.json is no companion for a merges file


def test_escaped_ascii_file():
    """encoder.json style (\\uXXXX escapes): positions of the escaped literals."""
    text = json.dumps(tokenizer(VOCAB, MERGES, [("<|end|>", 5)]), indent=2, ensure_ascii=True)
    cut = text[: text.index('"c"')]
    got = found(index(cut))
    assert got[1:] == [("utf8-fragment", line_of(text, json.dumps(t) + ":"), 6) for t in ("âĪ", "ĠâĪ")]


def test_unigram_truncated():
    obj = {
        "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.5], ["b", -2.0], ["c", -2.5]]},
        "normalizer": None,
        "pre_tokenizer": None,
        "decoder": None,
        "added_tokens": [],
    }
    text = json.dumps(obj, indent=2)
    cut = text[: text.index('"c"') + 1]
    idx = index(cut)
    assert found(idx)[0][0] == "json-syntax"
    assert list(idx.vocab.tokens) == ["<unk>", "a", "b"]


def test_other_broken_json_stays_silent():
    idx = index(b'{"name": "x", "dependencies": {"a": "1.0",}}', "/x/package.json")
    assert not idx.is_tokenizer and idx.findings == []


def test_hints_and_hovers_on_the_salvaged_part():
    cut = TEXT[: TEXT.index('"ðŁĺ"')]
    idx = index(cut)
    idx.prepare_lookups()
    hints = [(idx.lines.position(h.offset), h.label) for h in hints_in(idx, 0, len(cut.encode()))]
    # one after each literal whose stored form differs from its text, before the break
    assert hints == [
        ((line_of(cut, f'"{t}"'), 6 + len(t) + 2), label)
        for t, label in [("âĪ", "\\xE2\\x88"), ("Ġ", "␣"), ("ĠâĪ", "␣\\xE2\\x88"), ("Ċ", "\\n")]
    ]
    at = len(cut[: cut.index('"âĪ"') + 1].encode())
    text = hover_markdown(idx, piece_at(idx, at))
    assert "`E2 88`" in text and "id 2" in text
    # diagnostics are in LSP positions, the break first
    diags = diagnostics_for(idx, Settings(), "utf-16")
    assert diags[0]["code"] == "json-syntax"


# ---- building blocks -----------------------------------------------------------------------


def test_match_close_respects_strings():
    data = b'{"a": "}", "b": [1, {"c": "]"}], "d\\"}": 2} tail'
    assert match_close(data, 0) == data.index(b" tail")
    assert match_close(data, data.index(b"[")) == data.index(b"]") + 1 + data[data.index(b"]") + 1 :].index(b"]") + 1
    assert match_close(b'{"a": "unterminated}', 0) is None
    assert match_close(b'{"a": 1', 0) is None
    # across windows: a long array of pairs
    pairs = b"[" + b",\n".join(b'["a]", "b["]' for _ in range(50000)) + b"]"
    assert match_close(pairs + b"}", 0) == len(pairs)


def test_parse_prefix_keeps_complete_elements_only():
    assert parse_prefix(b'{"a": 1, "b": 2, "c": 3', 0, 23) == ({"a": 1, "b": 2}, 15)  # 3 may be 30
    assert parse_prefix(b'[["a", "b"], ["c", "d"], ["e"', 0, 29)[0] == [["a", "b"], ["c", "d"]]
    assert parse_prefix(b'["a b", "c, d", "e f', 0, 20)[0] == ["a b", "c, d"]
    assert parse_prefix(b'{"a": 1,, "b": 2}', 0, 8)[0] == {"a": 1}
    assert parse_prefix(b'{"x', 0, 3) == ({}, 1)


# ---- never raises, never invents ----------------------------------------------------------


def exercise(idx):
    """Everything a client can ask of an index."""
    findings = idx.findings
    if idx.is_tokenizer:
        diagnostics_for(idx, Settings(), "utf-16")
    idx.prepare_lookups()
    n = len(idx.data)
    hints_in(idx, 0, n)
    for off in range(0, n, max(1, n // 60)):
        p = piece_at(idx, off)
        if p is not None:
            hover_markdown(idx, p)
    return findings


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(DATA)))
def test_truncation_never_raises_nor_invents_findings(cut):
    data = DATA[:cut]
    idx = index(data)
    findings = exercise(idx)
    if data.strip() and data.rstrip() != DATA.rstrip():
        assert findings[0].code == "json-syntax"
        # where the data ends (a character it cuts is not UTF-8: it is the finding)
        assert findings[0].end == len(data) and len(data) - 4 < findings[0].start
        # the text before the cut is the clean file's: every other finding is one of its own
        assert {(f.code, f.start, f.end, f.message) for f in findings[1:]} <= CLEAN_FINDINGS


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(DATA) - 1), st.sampled_from(list(b',:{}[]"\\ x0\n') + [0xFF, 0xE2, 0x80, 0xC0, 0x00])
        ),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
    st.booleans(),
)
def test_byte_flips_never_raise(flips, insert, deferred):
    from tokenizer_lsp.core.formats.json import parse as json_parse

    data = bytearray(DATA)
    for pos, byte in flips:
        if insert:
            data[pos:pos] = bytes([byte])
        else:
            data[pos] = byte
    data = bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        if deferred:  # the vocab and merges parsed apart, as in large files
            mp.setattr(json_parse, "DEFER_MERGES_BYTES", 0)
        idx = index(data)
        findings = exercise(idx)
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        # (parsed apart, a trailing comma that ends the vocab goes unnoticed: see
        # test_trailing_comma_ending_a_vocab_parsed_apart)
        assert findings[0].code == "json-syntax" or deferred
        assert sum(f.code == "json-syntax" for f in findings) <= 1


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_salvage_of_any_bytes_never_raises(data):
    out = salvage(b'{"model": {"vocab": {"a": 0, ' + data)
    assert salvaged_findings(out)[0] is out.error and out.error.code == "json-syntax"


# ---- a real file -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def qwen3():
    data = corpus_file("qwen3/tokenizer.json").read_bytes()
    full = build_index(data, "/x/tokenizer.json")
    return data, [(f.code, f.start, f.end, f.message) for f in full.findings]


@pytest.mark.parametrize("fraction", [0.5, 0.1])
def test_qwen3_truncated(qwen3, fraction):
    """Cut in the merges (50%) or in the vocab (10%): json-syntax on the last line, then
    exactly the full file's fragment findings that lie before the cut."""
    data, full = qwen3
    cut = data[: int(len(data) * fraction)]
    idx = build_index(cut, "/x/tokenizer.json")
    got = [(f.code, f.start, f.end, f.message) for f in idx.findings]
    assert got[0][0] == "json-syntax" and got[0][2] == len(cut)
    assert idx.lines.position(got[0][1])[0] == cut.count(b"\n")  # the last line
    before = [f for f in full if f[2] < len(cut) - 64]  # the entry the cut runs through is dropped
    assert [g for g in got[1:] if g[2] < len(cut) - 64] == before
    assert len(before) == (1448 if fraction == 0.5 else len(before)) and len(before) > 400


def test_qwen3_stray_comma_in_the_vocab(qwen3):
    data, full = qwen3
    at = data.index(b",\n", len(data) // 20) + 1
    broken = data[:at] + b"," + data[at:]
    idx = build_index(broken, "/x/tokenizer.json")
    f = idx.findings[0]
    assert f.code == "json-syntax" and f.start == at
    last_line = broken[:at].rsplit(b"\n", 1)[-1].decode()
    assert idx.lines.position(f.start) == (broken[:at].count(b"\n"), len(last_line.encode("utf-16-le")) // 2)
    assert [(g.code, g.start, g.end, g.message) for g in idx.findings[1:]] == [x for x in full if x[2] <= at]


def test_break_in_merges_parsed_apart_salvages_the_same(monkeypatch):
    from tokenizer_lsp.core.formats.json import parse as json_parse

    at = TEXT.index("[", TEXT.index('"merges"') + 12)
    broken = (TEXT[:at] + "@" + TEXT[at:]).encode()
    results = []
    for threshold in (0, 1 << 62):  # merges parsed apart, or with the rest
        monkeypatch.setattr(json_parse, "DEFER_MERGES_BYTES", threshold)
        idx = build_index(broken, "/x/tokenizer.json")
        results.append([(f.code, f.start, f.end) for f in idx.findings])
    assert results[0] == results[1] and len(results[0]) > 1


@pytest.mark.parametrize("where", ['"c": 6,', '"ab": 7,'])
def test_break_in_the_vocab_parsed_apart_is_placed_as_in_one_parse(monkeypatch, where):
    """Large files parse model.vocab apart (orjson's error is then relative to it)."""
    from tokenizer_lsp.core.formats.json import parse as json_parse

    broken = TEXT.replace(where, where + ",").encode()
    results = []
    for threshold in (0, 1 << 62):
        monkeypatch.setattr(json_parse, "DEFER_MERGES_BYTES", threshold)
        idx = build_index(broken, "/x/tokenizer.json")
        results.append([(f.code, f.start, f.end, f.message) for f in idx.findings])
    assert results[0] == results[1]
    assert results[0][0][1] == broken.index(where.encode()) + len(where)


def test_trailing_comma_ending_a_vocab_parsed_apart(monkeypatch):
    from tokenizer_lsp.core.formats.json import parse as json_parse

    monkeypatch.setattr(json_parse, "DEFER_MERGES_BYTES", 0)
    broken = TEXT.replace('"ĠĠ": 13', '"ĠĠ": 13,').encode()
    assert build_index(broken, "/x/tokenizer.json").findings[0].code == "json-syntax"
