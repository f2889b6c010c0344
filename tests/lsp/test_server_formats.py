"""LSP sessions on each remaining corpus format: counts, hovers on every kind of literal,
positions in UTF-32, line ends inside strings, a truncated file."""

import json

import orjson
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import corpus_file
from tests.lsp.harness import find, hover, ident, make_fixture, open_doc
from tests.lsp.harness import shared_client as client  # noqa: F401

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

utf32_client = make_fixture(("utf-32",), init_options={"diagnostics": {"maxPerFile": 0}})


def counts(diags):
    out = {}
    for d in diags:
        out[d.code] = out.get(d.code, 0) + 1
    return out


def no_errors(diags):
    return [d for d in diags if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)]


async def test_llama3_string_merges_and_added_tokens(client: LanguageClient):
    path = corpus_file("llama3/tokenizer.json")
    text = path.read_text(encoding="utf-8")
    obj = orjson.loads(text)
    diags = await open_doc(client, path.as_uri(), text)
    assert counts(diags).get("utf8-fragment") == 1352 and not no_errors(diags)
    uri = path.as_uri()
    line, col = find(text, '"Ġ Ġ"')
    assert obj["model"]["merges"][0] == "Ġ Ġ"
    # part 2 of the first "a b" merge: its own bytes and id, then the merge
    h = await hover(client, uri, line, col + 3)
    v = h.contents.value
    assert "part 2 of 2" in v and "`20`" in v and f"id {obj['model']['vocab']['Ġ']}" in v
    assert "merge rank 0" in v and f"(id {obj['model']['vocab']['ĠĠ']})" in v
    assert h.range.start == types.Position(line, col + 3) and h.range.end == types.Position(line, col + 4)
    # an added token's content: shown literally, labelled, with its id
    line, col = find(text, '"content": "<|begin_of_text|>"')
    h = await hover(client, uri, line, col + len('"content": "') + 2)
    assert "special token" in h.contents.value and "id 128000" in h.contents.value
    assert "`<|begin_of_text|>`" in h.contents.value
    # "content" itself is a JSON key, not a token: nothing
    assert await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line, col + 3))) is None


async def test_sentencepiece_byte_fallback_and_space(client: LanguageClient):
    path = corpus_file("llama2/tokenizer.json")
    text = path.read_text(encoding="utf-8")
    diags = await open_doc(client, path.as_uri(), text)
    assert counts(diags).get("utf8-fragment") == 128 and not no_errors(diags)
    uri = path.as_uri()
    line, col = find(text, '"<0x80>"')
    h = await hover(client, uri, line, col + 2)
    assert "`80`" in h.contents.value and "id 131" in h.contents.value and "fragment" in h.contents.value
    line, col = find(text, '"▁the"')
    h = await hover(client, uri, line, col + 2)
    assert "`␣the`" in h.contents.value and "`20 74 68 65`" in h.contents.value and "id 272" in h.contents.value
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(line, 0), types.Position(line + 1, 0)))
    )
    assert [(h.label, h.position.character) for h in hints] == [("␣the", col + len('"▁the"'))]


async def test_gemma3_counts(client: LanguageClient):
    path = corpus_file("gemma3/tokenizer.json")
    diags = await open_doc(client, path.as_uri(), path.read_text(encoding="utf-8"))
    frags = [d for d in diags if d.code == "utf8-fragment"]
    assert len(frags) == 128 and not no_errors(diags)
    assert all("<0x" in d.message for d in frags)  # the byte tokens only: no text token is a fragment


async def test_whisper_merges_with_vocab_beside(client: LanguageClient):
    path = corpus_file("whisper-gpt2/merges.txt")
    diags = await open_doc(client, path.as_uri(), path.read_text(encoding="utf-8"), language="bpe-merges")
    assert list(diags) == []
    vpath = corpus_file("whisper-gpt2/vocab.json")
    vdiags = await open_doc(client, vpath.as_uri(), vpath.read_text(encoding="utf-8"))
    assert counts(vdiags).get("utf8-fragment") == 344 and not no_errors(vdiags)


async def test_utf32_columns(utf32_client: LanguageClient, tmp_path):
    text = '{\n  "😀😀": 0, "âĪ": 1\n}\n'
    uri = (tmp_path / "vocab.json").as_uri()
    diags = await open_doc(utf32_client, uri, text)
    frag = next(d for d in diags if d.code == "utf8-fragment")
    # in UTF-32 each emoji is one column (two in UTF-16)
    assert frag.range.start == types.Position(1, 2 + 4 + 5) and frag.range.end == types.Position(1, 2 + 4 + 5 + 4)
    h = await hover(utf32_client, uri, 1, 12)
    assert "`E2 88`" in h.contents.value and h.range.start == types.Position(1, 11)


async def test_line_separators_inside_strings_do_not_end_lines(client: LanguageClient, tmp_path):
    keys = ["a\u2028b", "c\u2029d", "e\u0085f", "âĪ"]
    text = "{\n" + ",\n".join(f"  {json.dumps(k, ensure_ascii=False)}: {i}" for i, k in enumerate(keys)) + "\n}\n"
    uri = (tmp_path / "vocab.json").as_uri()
    diags = await open_doc(client, uri, text)
    frag = next(d for d in diags if d.code == "utf8-fragment")
    assert frag.range.start == types.Position(4, 2)  # LSP line 4: U+2028/2029/0085 end no line
    h = await hover(client, uri, 4, 3)
    assert "`E2 88`" in h.contents.value


async def test_truncated_file_error_on_its_last_line(client: LanguageClient, tmp_path):
    text = corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8")
    cut = text[: len(text) // 2]
    uri = (tmp_path / "tokenizer.json").as_uri()
    diags = await open_doc(client, uri, cut)
    syntax = [d for d in diags if d.code == "json-syntax"]
    assert len(syntax) == 1 and syntax[0].range.start.line == cut.count("\n")
