"""Facts from shared/corpus/README.md, checked on the real files."""

import pytest
from tokenizer_lsp.core.decoding import Scheme
from tokenizer_lsp.core.decoding.listing import decoded_rows
from tokenizer_lsp.core.index.files import index_file

from tests.conftest import corpus_file


@pytest.fixture(scope="module")
def indexed():
    """index_file of a corpus file, built once a module: the tests here only read it (an index
    is never rewritten once built) and a large file's build costs 1-3 CPU-s (issue 33)."""
    built = {}

    def get(rel: str):
        if rel not in built:
            built[rel] = index_file(str(corpus_file(rel)))
        return built[rel]

    yield get
    built.clear()


FRAGMENTS = {
    "qwen3/tokenizer.json": 1448,
    "llama3/tokenizer.json": 1352,
    "gemma3/tokenizer.json": 128,
    "llama2/tokenizer.json": 128,
    "gpt2-openai/encoder.json": 344,
    "whisper-gpt2/vocab.json": 344,
    "openai-tiktoken/o200k_base.tiktoken": 1562,
    "all-minilm-l6-v2/tokenizer.json": 0,
}


@pytest.mark.parametrize("rel,count", FRAGMENTS.items())
def test_fragment_counts_and_no_false_errors(rel, count, indexed):
    idx = indexed(rel)
    codes = [f.code for f in idx.findings]
    assert codes.count("utf8-fragment") == count
    assert [f for f in idx.findings if f.severity in ("error", "warning")] == []
    # findings come in file order
    starts = [f.start for f in idx.findings]
    assert starts == sorted(starts)


@pytest.mark.parametrize("rel", ["gpt2-openai/vocab.bpe", "whisper-gpt2/merges.txt"])
def test_merges_files_against_their_vocab(rel, indexed):
    idx = indexed(rel)
    assert idx.format == "merges.txt" and len(idx.merges()) == 50000
    assert len(idx.vocab.tokens) == 50257  # the encoder.json / vocab.json beside it
    assert idx.findings == []


def test_qwen3_forall_and_ranges(indexed):
    idx = indexed("qwen3/tokenizer.json")
    v = idx.vocab
    assert v.scheme is Scheme.BYTE_LEVEL and len(v.tokens) == 151643 and len(idx.merges()) == 151387
    assert v.decode("âĪ").data == bytes.fromhex("e288")
    frag = next(f for f in idx.findings if "`âĪ`" in f.message)
    # the finding's range is the key literal of that entry
    assert idx.data[frag.start : frag.end] == '"âĪ"'.encode()
    line, col = idx.lines.position(frag.start)
    assert idx.data.split(b"\n")[line].lstrip().startswith('"âĪ": '.encode()) and col == 6
    assert sum("Ġ" in t for t in v.tokens) == 53131
    assert sum("Ċ" in t for t in v.tokens) == 2178 and sum("ĉ" in t for t in v.tokens) == 1373


def test_qwen3_fragment_shapes(indexed):
    idx = indexed("qwen3/tokenizer.json")
    kinds = [r["utf8"] for r in decoded_rows(idx) if r["utf8"] != "valid"]
    # 1255 end mid-character; 193 start with a byte that cannot start a character
    assert kinds.count("incomplete") == 1255
    assert kinds.count("continuation") + kinds.count("invalid") == 193


def test_gemma3_sentencepiece(indexed):
    idx = indexed("gemma3/tokenizer.json")
    v = idx.vocab
    assert v.scheme is Scheme.SENTENCEPIECE and len(v.tokens) == 262144
    assert v.decode("<0xE2>").data == b"\xe2" and v.decode("▁the").text == " the"
    assert all("byte-fallback" in f.message for f in idx.findings)
    assert idx.data[idx.findings[0].start : idx.findings[0].end] == b'"<0x80>"'


def test_llama3_emoji_tokens(indexed):
    idx = indexed("llama3/tokenizer.json")
    v = idx.vocab
    assert v.ignore_merges and "ĠðŁĳ" in v.tokens and "ĭ" in v.tokens
    assert (v.decode("ĠðŁĳ").data + v.decode("ĭ").data).decode() == " 👋"
    assert len(v.added) == 256 and min(v.added.values()) == 128000


def test_encoder_json_escapes_positions(indexed):
    idx = indexed("gpt2-openai/encoder.json")
    assert idx.format == "vocab.json" and idx.lines.line_count == 1
    first = idx.findings[0]
    # the literal is written with \\u escapes in this pure-ASCII file
    assert idx.data[first.start : first.end] == b'"\\u00a1"'
    assert idx.vocab.decode("\u00a1").data == b"\xa1"


def test_decode_rows_cover_vocab_then_added(indexed):
    idx = indexed("llama3/tokenizer.json")
    rows = list(decoded_rows(idx))
    assert len(rows) == 128000 + 256
    assert rows[-1]["kind"] == "special" and rows[-1]["id"] == 128255
    frag = next(r for r in rows if r["token"] == "ĠðŁĳ")
    assert frag == {
        "id": frag["id"],
        "token": "ĠðŁĳ",
        "bytes": "20f09f91",
        "text": None,
        "utf8": "incomplete",
        "kind": "byte-level",
    }


def test_tiktoken_rows(indexed):
    idx = indexed("openai-tiktoken/o200k_base.tiktoken")
    rows = list(decoded_rows(idx))
    assert len(rows) == 199998
    assert rows[0] == {"id": 0, "token": "IQ==", "bytes": "21", "text": "!", "utf8": "valid", "kind": "byte-level"}


def _findings(data: bytes, path: str, deferred: bool, monkeypatch) -> list[tuple]:
    from tokenizer_lsp.core.formats.json import doc as json_doc
    from tokenizer_lsp.core.formats.json import parse as json_parse
    from tokenizer_lsp.core.index.build import build_index

    monkeypatch.setattr(json_parse, "DEFER_MERGES_BYTES", 0 if deferred else 1 << 62)
    idx = build_index(data, path)
    assert (isinstance(idx.doc, json_doc.JsonDocument) and idx.doc.merges_span is not None) == (
        deferred and idx.syntax_error is None
    )
    return [(f.code, f.start, f.end, f.message) for f in idx.findings]


@pytest.mark.parametrize("rel", ["llama3/tokenizer.json", "qwen3/tokenizer.json"])
def test_merges_checked_apart_agree_with_one_parse(rel, monkeypatch):
    """Large files parse and check model.merges apart, split between two processes:
    defects in both halves get the same ranks, positions and messages as a whole parse."""
    path = corpus_file(rel)
    data = path.read_bytes()
    # a token that merges early and late in the file use, renamed: merges in both halves
    # now reference a missing token and produce a missing result
    victim = b'"\\u0120t":' if b'"\\u0120t":' in data else '"Ġt":'.encode()
    broken = data.replace(victim, victim[:-2] + b'QQ":', 1)
    deferred = _findings(broken, str(path), True, monkeypatch)
    assert deferred == _findings(broken, str(path), False, monkeypatch)
    ranks = sorted({int(m.split()[1]) for c, _, _, m in deferred if c.startswith("merge-")})
    assert len(ranks) > 100 and ranks[0] < 1000 and ranks[-1] > 100_000
    # a syntax error inside the merges: the same json-syntax finding at the same place
    mid = data.index(b",\n", len(data) - len(data) // 5) + 1  # between two merges
    cut = data[:mid] + b"@" + data[mid:]
    apart = _findings(cut, str(path), True, monkeypatch)
    assert apart == _findings(cut, str(path), False, monkeypatch)
    assert apart[0][0] == "json-syntax"


def test_lookups_after_compaction_agree_with_the_parsed_vocab(indexed):
    import orjson
    from tokenizer_lsp.core.compact_vocab import CompactTokens

    path = corpus_file("qwen3/tokenizer.json")
    idx = indexed("qwen3/tokenizer.json")
    idx.prepare_lookups()
    tokens = idx.vocab.tokens
    assert isinstance(tokens, CompactTokens)  # the 151k-entry dict is gone
    parsed = orjson.loads(path.read_bytes())["model"]["vocab"]
    assert list(tokens) == list(parsed)
    assert all(tokens[t] == i for t, i in parsed.items())
    assert "âĪ" in tokens and "âĪĢâĪĢâĪĢ" not in tokens
