"""The line formats read as the real loaders read them.

`.tiktoken`: every expectation comes from tiktoken's own loader (tiktoken.load.load_tiktoken_bpe)
and tiktoken's Encoding, run on the same bytes: which lines it refuses and what it says, the
bytes -> rank mapping it returns (lenient base64, the last rank of repeated bytes wins), its
line splitting. Merges: a CLIP-style file (`"bpe_simple_vocab_16e6.txt#version: 0.2` header,
`</w>` suffixes), with expectations from HF tokenizers' BPE.from_file and from CLIP's own
loader (simple_tokenizer.py: it drops the first line whatever it holds).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
import tiktoken  # noqa: E402
import tiktoken.load as tiktoken_load  # dependencies of the package: a broken install fails, never skips
import tokenizers.models as tokenizers_models
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizer_lsp.cli import main as cli
from tokenizer_lsp.core import detect
from tokenizer_lsp.core.decoding.listing import decoded_rows
from tokenizer_lsp.core.formats.parsed import Parsed
from tokenizer_lsp.core.formats.tiktoken.checks import document_findings
from tokenizer_lsp.core.formats.tiktoken.doc import TiktokenDocument
from tokenizer_lsp.core.index.files import index_file
from tokenizer_lsp.core.navigation.pieces import piece_at
from tokenizer_lsp.lsp.render.hover import hover_markdown
from tokenizers import Tokenizer  # noqa: E402

from tests.conftest import corpus_file, gpt2_bytes_to_unicode

pytestmark = pytest.mark.usefixtures("cli_main_in_process")  # cli.main installs the runtime

# ---- helpers: tiktoken itself ------------------------------------------------------------


@contextmanager
def _no_tiktoken_cache():
    """tiktoken caches what it reads by path (TIKTOKEN_CACHE_DIR, else a temp folder): a
    rewritten file would be served stale. An empty cache dir turns the cache off."""
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    try:
        yield
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


def tiktoken_reads(data: bytes) -> dict[bytes, int] | BaseException:
    """What load_tiktoken_bpe returns for a file of these bytes, or the cause of its error."""
    with tempfile.TemporaryDirectory() as d, _no_tiktoken_cache():
        path = Path(d) / "x.tiktoken"
        path.write_bytes(data)
        try:
            return tiktoken_load.load_tiktoken_bpe(str(path), expected_hash=None)
        except ValueError as e:
            assert str(e).startswith("Error parsing line")
            return e.__cause__ if e.__cause__ is not None else e


def encoding_error(ranks: dict[bytes, int]) -> BaseException | None:
    """What building a tiktoken Encoding from these ranks raises (None: it builds)."""
    try:
        tiktoken.Encoding("fidelity-test", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    except BaseException as e:  # noqa: BLE001 - whatever tiktoken's Rust core raises
        return e
    return None


def findings_of(doc: TiktokenDocument):
    """The findings the index's build gives the document (the format's checks make them)."""
    return document_findings(Parsed("tiktoken", doc))


def malformed(doc_or_idx, data: bytes):
    """Our `tiktoken-malformed` findings split in two: lines the loader fails on (the
    message says so, the range is the line) and ranks it reads that tiktoken cannot use."""
    fs = findings_of(doc_or_idx) if isinstance(doc_or_idx, TiktokenDocument) else doc_or_idx.findings
    fails = [f for f in fs if f.code == "tiktoken-malformed" and "loader fails" in f.message]
    odd = [f for f in fs if f.code == "tiktoken-malformed" and "loader fails" not in f.message]
    return fails, odd


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ---- tiktoken: lines the loader accepts --------------------------------------------------

ACCEPTED = [
    b"= 50256",  # `=` alone decodes to no bytes: the empty token
    b"QR== 1",  # non-zero padding bits: still the byte 41
    b"QQ==QQ== 2",  # data after the padding is ignored
    b"QQ==! 3",  # characters outside the alphabet are dropped
    b"IQ\x1c== 4",  # \x1c: neither a line break nor whitespace to bytes; dropped by b64decode
    b"  Ig==\t\t6  ",  # leading, trailing and inner runs of whitespace
    b"\x0bJA==\x0c7",  # vertical tab and form feed are whitespace to bytes.split()
    b"JQ== +8",  # int() accepts a sign,
    b"Jg== 1_0",  # underscores between digits,
    b"Jw== 0011",  # and leading zeros
    b"4og= 12",  # E2 88: a UTF-8 fragment, a hint only
]


@pytest.mark.parametrize("line", ACCEPTED, ids=[repr(l) for l in ACCEPTED])
def test_lines_tiktoken_accepts_are_read_as_tiktoken_reads_them(tmp_path, line):
    data = b"fn4= 0\n" + line + b"\n"  # 7E 7E: bytes no line of the list decodes to
    expected = tiktoken_reads(data)
    assert isinstance(expected, dict) and len(expected) == 2, expected
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    assert idx.format == "tiktoken"
    assert idx.doc.ranks() == expected
    fails, odd = malformed(idx, data)
    assert fails == [] and odd == []
    assert not [f for f in idx.findings if f.severity == "error"]
    # hover and decode show the bytes tiktoken reads for the line's rank
    rank = int(line.split()[1])
    token_bytes = next(b for b, r in expected.items() if r == rank)
    idx.prepare_lookups()
    field_at = data.index(line) + line.index(line.split()[0])
    p = piece_at(idx, field_at)
    assert p is not None and p.token_id == rank and p.decoded.data == token_bytes
    # the piece covers the base64 field as written
    assert data[p.start : p.end] == line.split()[0]
    md = hover_markdown(idx, p)
    shown = " ".join(f"{b:02X}" for b in token_bytes)
    assert (f"`{shown}`" if token_bytes else "(empty)") in md and f"rank {rank}" in md
    rows = {r["id"]: r["bytes"] for r in decoded_rows(idx)}
    assert rows == {r: b.hex() for b, r in expected.items()}


def test_empty_token_line(tmp_path):
    """`= 50256`: rank 50256 with empty bytes, as tiktoken reads it; no finding at all."""
    data = b"IQ== 0\nIg== 1\n= 2\n"
    expected = tiktoken_reads(data)
    assert expected == {b"!": 0, b'"': 1, b"": 2}  # tiktoken's own reading
    assert encoding_error(expected) is None  # and its Encoding accepts it
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    assert idx.doc.ranks() == expected and idx.findings == []
    assert [r["bytes"] for r in decoded_rows(idx) if r["id"] == 2] == [""]
    idx.prepare_lookups()
    p = piece_at(idx, data.index(b"= 2"))
    assert (p.start, p.end, p.token_id, p.decoded.data) == (data.index(b"= 2"), data.index(b"= 2") + 1, 2, b"")
    assert "(empty) (0 bytes)" in hover_markdown(idx, p)


# ---- tiktoken: lines the loader fails on --------------------------------------------------

REFUSED = [
    b"QQ 1",  # binascii.Error: Incorrect padding
    b"Q 1",  # binascii.Error: 1 more than a multiple of 4
    b"QQ=x 1",  # padding then data
    b"IQ== x",  # int(): invalid literal
    b"IQ== 1.0",
    b"IQ== 0x10",
    b"IQ== \xd9\xa3",  # a non-ASCII digit is no digit to int(bytes)
    b"IQ==",  # one field
    b"IQ== 1 2",  # three fields
    b"   ",  # blanks: tiktoken skips only empty lines
    b"\x0b",  # \x0b ends no line for bytes.splitlines, and is whitespace to split()
    b"QQ x",  # both wrong: `ret[b64decode(token)] = int(rank)` runs int() first: the rank is the error
]


@pytest.mark.parametrize("line", REFUSED, ids=[repr(l) for l in REFUSED])
def test_lines_tiktoken_refuses_are_malformed_saying_why(tmp_path, line):
    data = b"IQ== 0\n" + line + b"\nIg== 2\n"
    cause = tiktoken_reads(data)
    assert isinstance(cause, BaseException), cause
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    fails, odd = malformed(idx, data)
    assert odd == [] and len(fails) == 1
    f = fails[0]
    assert data[f.start : f.end] == line  # the whole line
    assert f.severity == "error"
    assert str(cause) in f.message  # what tiktoken says
    assert ("binascii.Error" in f.message) == (type(cause).__name__ == "Error")
    assert ("not a non-negative integer" in f.message) == ("for int()" in str(cause))
    # the other lines are read as tiktoken reads the file without the bad one
    assert idx.doc.ranks() == tiktoken_reads(data.replace(line + b"\n", b""))


def test_messages_keep_their_plain_words(tmp_path):
    data = b"IQ== 0\n   \nIg== x\nQQ 3\n"
    got = [
        f.message
        for f in index_file(str(write(tmp_path, "x.tiktoken", data))).findings
        if f.code == "tiktoken-malformed"
    ]
    assert got[0].startswith("expected `base64 rank`, found 0 fields (a line of blanks")
    assert got[1].startswith("rank `x` is not a non-negative integer: tiktoken's loader fails")
    assert got[2].startswith("`QQ` is not valid base64: tiktoken's loader fails on this line (binascii.Error: ")


def test_bytes_that_are_not_utf8_in_a_field():
    """tiktoken's b64decode drops them like any other character outside the alphabet. (A file
    whose first 4 KB are not UTF-8 is reported as binary data by the index, before any line
    is parsed: that rule lives in core/index/build.py; the format layer reads it as tiktoken does.)"""
    data = b"IQ== 0\nI\x85w== 1\nJ\xffA== 2\nJQ\xe2\x80\xa8== 3\n"
    expected = tiktoken_reads(data)
    assert expected == {b"!": 0, b"#": 1, b"$": 2, b"%": 3}
    doc = TiktokenDocument(data)
    assert doc.ranks() == expected and findings_of(doc) == []
    refs = [r for i in range(len(doc.lines)) for r in doc._refs_on_line(i)]
    assert [data[r.start : r.end] for r in refs] == [l.split()[0] for l in data.splitlines()]


# ---- tiktoken: ranks the loader reads but tiktoken cannot use -----------------------------


@pytest.mark.parametrize("rank", [-1, -50256, 2**32, 2**40])
def test_ranks_outside_u32_are_errors_the_loader_does_not_raise(tmp_path, rank):
    data = b"IQ== 0\nIg== 1\n" + f"Iw== {rank}".encode() + b"\nJA== 2\n"
    expected = tiktoken_reads(data)
    assert isinstance(expected, dict) and expected[b"#"] == rank  # the loader takes it
    assert isinstance(encoding_error(expected), OverflowError)  # tiktoken's Encoding does not
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    assert idx.doc.ranks() == expected
    fails, odd = malformed(idx, data)
    assert fails == [] and len(odd) == 1
    assert data[odd[0].start : odd[0].end] == str(rank).encode()  # on the rank field
    assert "OverflowError" in odd[0].message and "unsigned 32-bit" in odd[0].message
    # the ranks tiktoken can hold are dense: no gap is invented around the bad one
    assert [f for f in idx.findings if f.code == "id-gap"] == []
    idx.prepare_lookups()
    p = piece_at(idx, data.index(b"Iw=="))
    assert p.token_id == rank and p.decoded.data == b"#"


def test_rank_u32_max_is_never_merged_to(tmp_path):
    data = b"YQ== 0\nYg== 1\nYWI= 4294967295\n"  # a, b, ab
    expected = tiktoken_reads(data)
    assert encoding_error(expected) is None
    enc = tiktoken.Encoding("fidelity-test", pat_str=r"\S+", mergeable_ranks=expected, special_tokens={})
    # tiktoken takes u32::MAX for "no merge": `abb` never merges a+b (with rank 2 it would)
    assert enc.encode("abb") == [0, 1, 1]
    enc2 = tiktoken.Encoding(
        "fidelity-test-2", pat_str=r"\S+", mergeable_ranks={**expected, b"ab": 2}, special_tokens={}
    )
    assert enc2.encode("abb") == [2, 1]
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    fails, odd = malformed(idx, data)
    assert fails == [] and len(odd) == 1 and data[odd[0].start : odd[0].end] == b"4294967295"
    assert "never" in odd[0].message


# ---- tiktoken: repeated bytes ---------------------------------------------------------------


def test_duplicates_are_by_decoded_bytes(tmp_path):
    data = b"QQ== 0\nQR== 1\nIQ== 2\nQQ==QQ== 3\n= 4\n==== 5\n"
    expected = tiktoken_reads(data)
    assert expected == {b"A": 3, b"!": 2, b"": 5}  # tiktoken's reading: the last rank wins
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    assert idx.doc.ranks() == expected
    assert not malformed(idx, data)[0]
    lines = data.split(b"\n")
    dups = [f for f in idx.findings if f.code == "duplicate-token"]
    # one per line whose bytes an earlier line already had: lines 1, 3 and 5
    assert [data[f.start : f.end] for f in dups] == [lines[1].split()[0], lines[3].split()[0], lines[5].split()[0]]
    assert all("same bytes" in f.message and "last rank" in f.message for f in dups)
    assert "last rank (3)" in dups[0].message and "last rank (5)" in dups[2].message
    # ranks 0, 1 and 4 are lost: tiktoken's mapping has no such rank
    assert sorted(set(range(max(expected.values()) + 1)) - set(expected.values())) == [0, 1, 4]
    gaps = [f.message for f in idx.findings if f.code == "id-gap"]
    assert gaps == ["ranks 0..1 (2 ranks) missing: no token has these ranks", "rank 4 missing: no token has this rank"]
    idx.prepare_lookups()
    first, last = piece_at(idx, 0), piece_at(idx, data.index(b"QQ==QQ=="))
    assert first.decoded.data == last.decoded.data == b"A"
    assert "tiktoken keeps that last rank, so rank 0 is never used" in hover_markdown(idx, first)
    assert "never used" not in hover_markdown(idx, last)


def test_identical_duplicate_keeps_its_message(tmp_path):
    data = b"IQ== 0\nIg== 1\nIQ== 2\n"
    idx = index_file(str(write(tmp_path, "x.tiktoken", data)))
    assert idx.doc.ranks() == tiktoken_reads(data)
    dup = [f.message for f in idx.findings if f.code == "duplicate-token"]
    assert dup == [
        "`IQ==` appears more than once in the vocabulary; the last rank (2) wins and the earlier entry is lost"
    ]


# ---- tiktoken: line splitting ----------------------------------------------------------------


def test_line_breaks_are_those_of_bytes_splitlines(tmp_path):
    """bytes.splitlines() ends lines at \\n, \\r\\n and \\r only (not \\x0b, \\x0c, \\x1c-\\x1e,
    \\x85 or U+2028, unlike str.splitlines)."""
    data = (
        b"IQ== 0\r\nIg== 1\rIw== 2\nJA==\x0b3\nJQ==\x0c4\nJg==\x1c 5\n"
        b"Jw==\x1d 6\nKA==\x1e 7\nKQ==\x85 8\nKg==\xe2\x80\xa8 9\r\n\r\n\rKw== 10"
    )
    assert [l for l in TiktokenDocument(data).lines if l] == [l for l in data.splitlines() if l]
    expected = tiktoken_reads(data)
    assert isinstance(expected, dict) and len(expected) == 11
    doc = TiktokenDocument(data)
    assert doc.ranks() == expected and malformed(doc, data) == ([], [])


# ---- tiktoken: any line, as tiktoken reads it ------------------------------------------------

_PIECES = [
    b"QQ==",
    b"IQ",
    b"=",
    b"==",
    b"Q",
    b"QR==",
    b"+/",
    b"4og=",
    b"-",
    b"!",
    b"_",
    b"A",
    b"",
    b" ",
    b"  ",
    b"\t",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\x85",
    b"0",
    b"7",
    b"12",
    b"-1",
    b"+3",
    b"1_0",
    b"4294967295",
    b"4294967296",
    b"x",
]
_line = st.lists(st.sampled_from(_PIECES), max_size=6).map(b"".join)
_eol = st.sampled_from([b"\n", b"\r\n", b"\r"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_line, _eol), min_size=1, max_size=6))
def test_any_file_as_tiktoken_reads_it(rows):
    data = b"".join(l + e for l, e in rows)
    doc = TiktokenDocument(data)
    lines = [l for l in data.splitlines() if l]  # what the loader iterates over
    assert [l for l in doc.lines if l] == lines
    verdict = [tiktoken_reads(l) for l in lines]  # each line alone
    refused = [l for l, v in zip(lines, verdict) if not isinstance(v, dict)]
    accepted = [(l, next(iter(v.items()))) for l, v in zip(lines, verdict) if isinstance(v, dict)]
    fails, odd = malformed(doc, data)
    # malformed exactly where tiktoken raises, on the whole line, saying what tiktoken says
    assert isinstance(tiktoken_reads(data), dict) == (not fails)
    assert [data[f.start : f.end] for f in fails] == refused
    for f, v in zip(fails, [v for v in verdict if not isinstance(v, dict)]):
        assert str(v) in f.message
    # the mapping of everything else is tiktoken's
    assert doc.ranks() == tiktoken_reads(b"\n".join(l for l, _ in accepted))
    # ranks tiktoken's encoder cannot hold, on their rank field
    assert [data[f.start : f.end] for f in odd] == [l.split()[1] for l, (_, r) in accepted if not 0 <= r < 2**32 - 1]
    # repeated bytes: one finding per later line, on its base64 field
    seen, want = set(), []
    for l, (b, _) in accepted:
        if b in seen:
            want.append(l.split()[0])
        seen.add(b)
    assert [data[f.start : f.end] for f in findings_of(doc) if f.code == "duplicate-token"] == want
    # every accepted line's field (as written) stands for tiktoken's bytes and rank
    refs = [r for i in range(len(doc.lines)) for r in doc._refs_on_line(i)]
    assert [(data[r.start : r.end], base64.b64decode(r.token, validate=True), r.rank) for r in refs] == [
        (l.split()[0], b, r) for l, (b, r) in accepted
    ]


def test_corpus_o200k_is_read_as_tiktoken_reads_it():
    path = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    data = path.read_bytes()
    expected = tiktoken_reads(data)
    doc = TiktokenDocument(data)
    assert doc.ranks() == expected and len(expected) == 199998
    # every key is the field as written in a real file
    assert all(
        doc.vocab_key(o) == doc.data[s : s + n].decode()
        for o, (_, _, s, n) in ((o, doc.line_entry[doc.entry_line[o]]) for o in range(0, len(expected), 997))
    )


# ---- merges: CLIP's header ---------------------------------------------------------------------

CLIP_HEADER = '"bpe_simple_vocab_16e6.txt#version: 0.2'
CLIP_MERGES = [
    "i n",
    "t h",
    "a n",
    "r e",
    "th e</w>",
    "in g</w>",
    "h e",
    "l l",
    "he ll",
    "hell o</w>",
    "t o</w>",
    "Ã ©</w>",
    "o n",
    "on e</w>",
]


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's (and CLIP's) byte -> character table, as openai/CLIP simple_tokenizer.py has it."""
    return gpt2_bytes_to_unicode()


def clip_vocab(merges_text: str) -> dict[str, int]:
    """The vocabulary CLIP's SimpleTokenizer builds from a merges file."""
    merges = merges_text.split("\n")[1:]  # CLIP drops the first line whatever it holds
    merges = [tuple(m.split()) for m in merges if m]
    vocab = list(bytes_to_unicode().values())
    vocab = vocab + [v + "</w>" for v in vocab]
    vocab += ["".join(m) for m in merges]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    return {t: i for i, t in enumerate(vocab)}


def clip_files(tmp_path: Path, name: str = "bpe_simple_vocab_16e6.txt", with_vocab: bool = True):
    text = CLIP_HEADER + "\n" + "\n".join(CLIP_MERGES) + "\n"
    merges = tmp_path / name
    merges.write_bytes(text.encode("utf-8"))
    vocab = tmp_path / "vocab.json"
    if with_vocab:
        vocab.write_text(json.dumps(clip_vocab(text), ensure_ascii=False), encoding="utf-8")
    return text, merges, vocab


def tokenizers_reads(vocab: Path, merges_text: str, tmp_path: Path):
    """tokenizers' BPE.from_file on this merges text: the merges it loads, or its error."""
    path = tmp_path / "for-tokenizers.txt"
    path.write_text(merges_text, encoding="utf-8")
    try:
        bpe = tokenizers_models.BPE.from_file(str(vocab), str(path), end_of_word_suffix="</w>")
    except Exception as e:  # noqa: BLE001 - tokenizers raises a plain Exception
        return e
    model = json.loads(Tokenizer(bpe).to_str())["model"]
    return [" ".join(m) if isinstance(m, list) else m for m in model["merges"]], model["vocab"]


def test_clip_header_is_detected_and_not_a_merge(tmp_path):
    text, merges, vocab = clip_files(tmp_path)
    data = merges.read_bytes()
    # content decides, whatever the name
    for name in (None, "bpe_simple_vocab_16e6.txt", "some_name.txt", "notes"):
        assert detect.content_kind(data, name) == "merges"
    idx = index_file(str(merges))
    assert idx.format == "merges.txt"
    # CLIP's loader: every line after the first is a merge
    clip_merges = [m for m in text.split("\n")[1:] if m]
    assert idx.vocab.merges == clip_merges
    assert idx.vocab.word_suffix == "</w>"
    # tokenizers with the header made one it recognises loads the same merges, cleanly
    fixed = tokenizers_reads(vocab, "#version: 0.2\n" + "\n".join(CLIP_MERGES) + "\n", tmp_path)
    assert not isinstance(fixed, Exception), fixed
    assert fixed[0] == idx.vocab.merges
    # as the file is, tokenizers reads the header as a merge and fails: that is the warning
    err = tokenizers_reads(vocab, text, tmp_path)
    assert isinstance(err, Exception)
    said = str(err).split(": ", 1)[1]  # "Token `"bpe_simple_vocab_16e6.txt#version:` out of vocabulary"
    got = [(f.code, f.severity, idx.lines.position(f.start), idx.lines.position(f.end)) for f in idx.findings]
    assert got == [("merges-header", "warning", (0, 0), (0, len(CLIP_HEADER)))]
    msg = idx.findings[0].message
    assert said in msg and "reads this one as the merge" in msg and "no `#version` header" not in msg


def test_clip_header_without_a_vocabulary(tmp_path):
    _, merges, _ = clip_files(tmp_path, "some_name.txt", with_vocab=False)
    idx = index_file(str(merges))
    assert idx.format == "merges.txt" and [f.code for f in idx.findings] == ["merges-header"]
    assert [f.severity for f in idx.findings] == ["warning"]


def test_clip_header_cli_check(tmp_path, capsys):
    _, merges, _ = clip_files(tmp_path, "some_name.txt")
    assert cli(["check", str(merges)]) == 0  # a warning, no error
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith(f"{merges}:1:1: warning merges-header ")
    assert out[1] == "Found 1 warning in 1 file"


def test_clip_header_that_tokenizers_cannot_split(tmp_path):
    """A header with other than one space: tokenizers refuses the line outright."""
    text = CLIP_HEADER + " - trained\n" + "\n".join(CLIP_MERGES) + "\n"
    path = write(tmp_path, "merges.txt", text.encode())
    (tmp_path / "vocab.json").write_text(json.dumps(clip_vocab(text), ensure_ascii=False), encoding="utf-8")
    err = tokenizers_reads(tmp_path / "vocab.json", text, tmp_path)
    assert isinstance(err, Exception) and "Merges text file invalid at line 1" in str(err)
    idx = index_file(str(path))
    assert [f.code for f in idx.findings] == ["merges-header"]
    assert "Merges text file invalid at line 1" in idx.findings[0].message


def test_clip_merge_hover(tmp_path):
    text, merges, vocab = clip_files(tmp_path)
    idx = index_file(str(merges))
    idx.prepare_lookups()
    loaded, tk_vocab = tokenizers_reads(vocab, "#version: 0.2\n" + "\n".join(CLIP_MERGES) + "\n", tmp_path)
    # the second part of `th e</w>`
    line = text.split("\n").index("th e</w>")
    at = idx.lines.offset(line, 3)
    p = piece_at(idx, at)
    assert (p.role, p.part, p.token) == ("merge", 1, "e</w>")
    assert p.rank == loaded.index("th e</w>") and p.token_id == tk_vocab["e</w>"]
    md = hover_markdown(idx, p)
    assert md.startswith(f"`e␣` — merge part 2 of 2, byte-level token, id {tk_vocab['e</w>']}")
    assert "`65 20`" in md  # `e` and the space `</w>` stands for
    assert f"merge rank {loaded.index('th e</w>')}" in md and f"(id {tk_vocab['the</w>']})" in md
    assert "ends a word" in md
    # a byte-level part: `Ã ©</w>` is é (C3 A9) at the end of a word
    line = text.split("\n").index("Ã ©</w>")
    p = piece_at(idx, idx.lines.offset(line, 0))
    assert p.token == "Ã" and p.decoded.data == b"\xc3" and p.token_id == tk_vocab["Ã"]
    md = hover_markdown(idx, p)
    assert f"(id {tk_vocab['Ã©</w>']})" in md and "`C3 A9 20`" in md
    # the header line is no merge: nothing to hover
    assert piece_at(idx, 1) is None
