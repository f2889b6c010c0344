"""LSP sessions on the text table formats (tekken, WordPiece vocab.txt): hover and inlay
hints name the id and bytes the format's own library gives an entry, diagnostics sit at
the entry, the outline has the table, every position lies inside the document."""

import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import corpus_file
from .test_format_tekken import N_SPECIAL, synthetic
from .test_server_editing import client, hover, ident, open_doc  # noqa: F401

tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
SpecialTokenPolicy = pytest.importorskip("mistral_common.tokens.tokenizers.base").SpecialTokenPolicy


def position_of(text: str, offset_in_chars: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a character offset (the client's encoding)."""
    before = text[:offset_in_chars]
    line = before.count("\n")
    col = len(before[before.rfind("\n") + 1:].encode("utf-16-le")) // 2
    return line, col


def inside(text: str, pos: types.Position) -> bool:
    lines = text.split("\n")
    return 0 <= pos.line < len(lines) and 0 <= pos.character <= len(lines[pos.line].encode("utf-16-le")) // 2


def entry_at(text: str, rank: int, obj: dict) -> tuple[int, int]:
    """Where vocab entry `rank`'s token_bytes literal starts (found by its rank's line)."""
    anchor = text.index(f'"rank": {rank},')
    at = text.index(json.dumps(obj["vocab"][rank]["token_bytes"]), anchor)
    return position_of(text, at)


async def test_tekken_hover_hint_symbols_and_positions(client: LanguageClient, tmp_path):
    obj = synthetic()
    obj["vocab"][259]["token_str"] = "HELLO"  # tekken-token-str at entry 259
    path = tmp_path / "tekken.json"
    text = json.dumps(obj, indent=2)
    path.write_text(text, encoding="utf-8")
    tk = tekken.Tekkenizer.from_file(path)
    uri = path.as_uri()
    diags = await open_doc(client, uri, text)
    assert [d.code for d in diags] == ["tekken-token-str"]
    line, col = entry_at(text, 259, obj)
    assert diags[0].range.start == types.Position(line, col)
    assert all(inside(text, d.range.start) and inside(text, d.range.end) for d in diags)

    for rank in (65, 259, 256 + 8):  # a single byte, `hello`, `ç`
        line, col = entry_at(text, rank, obj)
        h = await hover(client, uri, line, col + 2)
        tid = N_SPECIAL + rank
        want = tk.id_to_byte_piece(tid)
        v = h.contents.value
        assert f"id {tid}" in v and f"rank {rank} + {tk.num_special_tokens} special tokens" in v
        assert f"`{want.hex(' ').upper()}`" in v
        assert inside(text, h.range.start) and inside(text, h.range.end)
        hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
            ident(uri), types.Range(types.Position(line, 0), types.Position(line + 1, 0))))
        assert len(hints) == 1 and hints[0].label.endswith(f"id {tid}") and inside(text, hints[0].position)
        assert hints[0].position == types.Position(line, col + len(json.dumps(obj["vocab"][rank]["token_bytes"])))
    # the whole document's hints: every position inside
    lines = text.split("\n")
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        ident(uri), types.Range(types.Position(0, 0), types.Position(len(lines) - 1, len(lines[-1])))))
    assert len(hints) == len(obj["vocab"]) and all(inside(text, h.position) for h in hints)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(ident(uri)))
    assert [s.name for s in symbols] == [f"tokens ({tk.n_words:,})"]
    assert all(inside(text, p) for s in symbols for p in (s.range.start, s.range.end))
    # a key of the file (`"rank"`) is no token: nothing
    line, col = position_of(text, text.index('"rank": 259'))
    assert await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line, col + 2))) is None


async def test_tekken_listed_special_and_real_file(client: LanguageClient, tmp_path):
    specials = [{"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(["<unk>", "<s>", "</s>"])]
    obj = synthetic("v7", specials)
    path = tmp_path / "tekken_v7.json"
    text = json.dumps(obj, indent=2)
    path.write_text(text, encoding="utf-8")
    tk = tekken.Tekkenizer.from_file(path)
    uri = path.as_uri()
    assert list(await open_doc(client, uri, text)) == []
    line, col = position_of(text, text.index('"token_str": "</s>"') + len('"token_str": "'))
    h = await hover(client, uri, line, col)
    assert "special token" in h.contents.value and f"id {tk.eos_id}" in h.contents.value

    real = corpus_file("mistral-tekken/tekken_240718.json")
    rtext = real.read_text(encoding="utf-8")
    robj = json.loads(rtext)
    rtk = tekken.Tekkenizer.from_file(real)
    ruri = real.as_uri()
    rdiags = await open_doc(client, ruri, rtext)
    assert not [d for d in rdiags if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)]
    line, col = entry_at(rtext, 4000, robj)
    h = await hover(client, ruri, line, col + 1)
    tid = rtk.num_special_tokens + 4000
    assert f"id {tid}" in h.contents.value
    assert f"`{rtk.id_to_byte_piece(tid).hex(' ').upper()}`" in h.contents.value
