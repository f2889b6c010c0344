"""LSP sessions on the text table formats (tekken, WordPiece vocab.txt): hover and inlay
hints name the id and bytes the format's own library gives an entry, diagnostics sit at
the entry, the outline has the table, every position lies inside the document."""

import asyncio
import json

from lsprotocol import types

# mistral-common is the oracle (pyproject's `test` extra): without it these tests fail at
# import, never skip (a skip would hide a missing install step)
from mistral_common.tokens.tokenizers import tekken  # noqa: E402
from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy  # noqa: E402
from pytest_lsp import LanguageClient

from tests.conftest import corpus_file
from tests.corpus.test_format_tekken import N_SPECIAL, synthetic
from tests.lsp.harness import hover, ident, open_doc
from tests.lsp.harness import shared_client as client  # noqa: F401


def position_of(text: str, offset_in_chars: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a character offset (the client's encoding)."""
    before = text[:offset_in_chars]
    line = before.count("\n")
    col = len(before[before.rfind("\n") + 1 :].encode("utf-16-le")) // 2
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
    found = [d for d in diags if d.code == "tekken-token-str"]
    # beside it only the hints of the single bytes 80..FF (fragments) and their summary line
    assert [d.code for d in diags if d.severity != types.DiagnosticSeverity.Hint and d.code != "summary"] == [
        "tekken-token-str"
    ]
    line, col = entry_at(text, 259, obj)
    assert found[0].range.start == types.Position(line, col)
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
        hints = await client.text_document_inlay_hint_async(
            types.InlayHintParams(ident(uri), types.Range(types.Position(line, 0), types.Position(line + 1, 0)))
        )
        assert len(hints) == 1 and hints[0].label.endswith(f"id {tid}") and inside(text, hints[0].position)
        assert hints[0].position == types.Position(line, col + len(json.dumps(obj["vocab"][rank]["token_bytes"])))
    # the whole document's hints: every position inside
    lines = text.split("\n")
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            ident(uri), types.Range(types.Position(0, 0), types.Position(len(lines) - 1, len(lines[-1])))
        )
    )
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
    assert not [
        d
        for d in await open_doc(client, uri, text)
        if d.severity != types.DiagnosticSeverity.Hint and d.code != "summary"
    ]
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


# ---- vocab.txt -------------------------------------------------------------------------------


async def test_vocab_txt_hover_hint_and_diagnostic(client: LanguageClient, tmp_path):
    import tokenizers  # an oracle: missing, the test fails (never skips)

    # line 9 is empty: a token no text encodes to (a line holding a space would do too, but
    # the plug-in's sniff does not take such a file for a vocab.txt at all)
    lines = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "token", "##izer", "##s", "", "hello"]
    path = tmp_path / "vocab.txt"
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    vocab = tokenizers.models.WordPiece.read_file(str(path))  # the library's ids
    uri = path.as_uri()
    diags = await open_doc(client, uri, text, language="plaintext")
    assert [(d.code, d.range.start.line) for d in diags] == [("wordpiece-unreachable", 8)]
    assert all(inside(text, d.range.start) and inside(text, d.range.end) for d in diags)
    for line, token in ((6, "##izer"), (2, "[CLS]"), (9, "hello")):
        h = await hover(client, uri, line, 1)
        v = h.contents.value
        assert f"id {vocab[token]}" in v and f"line {line + 1}" in v
        shown = token[2:] if token.startswith("##") else token
        assert f"`{shown.encode().hex(' ').upper()}`" in v
        assert inside(text, h.range.start) and inside(text, h.range.end)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, 0), types.Position(len(lines), 0)))
    )
    named = [t for t in lines if t]  # an empty line has no literal to hint after
    assert [h.label.rsplit("id ", 1)[1] for h in hints] == [str(vocab[t]) for t in named]
    assert all(inside(text, h.position) for h in hints)
    assert [h.position for h in hints] == [types.Position(i, len(t)) for i, t in enumerate(lines) if t]


# ---- the decoded view of a binary file -------------------------------------------------------


async def test_decoded_view_of_a_model_file(client: LanguageClient):
    import sentencepiece as spm  # an oracle: missing, the test fails (never skips)

    path = corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    # the file is not open: the command reads it from disk by its URI
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("tokenizer-lsp.decodedVocabulary", [path.as_uri()])
    )
    text = result["text"]
    assert result["rows"] == sp.get_piece_size()
    lines = text.split("\n")
    assert lines[0].startswith("# tokenizer-lsp decoded view of ") and str(path) in lines[0]
    # one row per piece, in id order, after the two header lines
    for tid in (0, 1, 3, 200, 1040, sp.get_piece_size() - 1):
        row = lines[2 + tid]
        assert row.split()[0] == str(tid) and json.dumps(sp.id_to_piece(tid), ensure_ascii=False) in row
    # the view opened as a document (as VS Code's decoded view does): hover on a row
    view_uri = "tokenizer-lsp-decoded:" + str(path) + " (decoded)"
    diags = await open_doc(client, view_uri, text, language="plaintext")
    assert not [d for d in diags if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)]
    byte_ids = [i for i in range(sp.get_piece_size()) if sp.is_byte(i)]
    frags = sorted(int(lines[d.range.start.line].split()[0]) for d in diags if d.code == "utf8-fragment")
    assert frags == [i for i in byte_ids if int(sp.id_to_piece(i)[3:5], 16) >= 0x80]
    assert all(inside(text, d.range.start) and inside(text, d.range.end) for d in diags)
    tid = sp.piece_to_id("▁the")
    line = 2 + tid
    col = lines[line].index('"')
    h = await hover(client, view_uri, line, col + 2)
    v = h.contents.value
    assert f"id {tid}" in v and "`20 74 68 65`" in v and "type: NORMAL" in v
    assert f"score: {sp.get_score(tid):g}" in v
    assert inside(text, h.range.start) and inside(text, h.range.end)


def test_binary_globs_are_the_clients():
    """package.json's custom editor opens exactly the files detect_rules.json calls binary."""
    from tokenizer_lsp.core.detect import RULES

    from tests.conftest import ROOT

    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    (editor,) = package["contributes"]["customEditors"]
    assert [s["filenamePattern"] for s in editor["selector"]] == RULES["binaryPatterns"]


async def test_decoded_vocabulary_of_an_open_tekken_file(client: LanguageClient, tmp_path):
    obj = synthetic()
    path = tmp_path / "tekken.json"
    text = json.dumps(obj, indent=2)
    path.write_text(text, encoding="utf-8")
    tk = tekken.Tekkenizer.from_file(path)
    await open_doc(client, path.as_uri(), text)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("tokenizer-lsp.decodedVocabulary", [path.as_uri()])
    )
    assert result["rows"] == tk.n_words
    rows = result["text"].split("\n")[2:]
    for tid in (0, 1, N_SPECIAL + 65, N_SPECIAL + 259):
        cells = rows[tid].split()
        assert cells[0] == str(tid)
        piece = tk.id_to_byte_piece(tid, SpecialTokenPolicy.KEEP)
        assert piece.hex(" ").upper() in rows[tid]


async def test_tekken_navigation(client: LanguageClient, tmp_path):
    """Workspace symbols find a tekken entry by its id or its decoded text, at its entry;
    definition and references (no merges are written in a tekken file) answer without error."""
    obj = synthetic()
    path = tmp_path / "tekken.json"
    text = json.dumps(obj, indent=2)
    path.write_text(text, encoding="utf-8")
    tk = tekken.Tekkenizer.from_file(path)
    uri = path.as_uri()
    await open_doc(client, uri, text)
    rank = 256 + 3  # `hello`
    tid = tk.num_special_tokens + rank
    line, col = entry_at(text, rank, obj)
    for query in (f"#{tid}", tk.id_to_piece(tid)):
        found = []
        for _ in range(100):  # the navigation lookups are built after the first publish
            found = [
                s
                for s in await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
                if s.location.uri == uri
            ]
            if found:
                break
            await asyncio.sleep(0.1)
        assert found and found[0].location.range.start == types.Position(line, col), query
    pos = types.Position(line, col + 2)
    await client.text_document_definition_async(types.DefinitionParams(text_document=ident(uri), position=pos))
    await client.text_document_references_async(
        types.ReferenceParams(
            text_document=ident(uri), position=pos, context=types.ReferenceContext(include_declaration=True)
        )
    )


def test_decoded_view_rows_are_decodes_and_follow_the_file(tmp_path):
    """The view's rows are `decode`'s text rows (plus the type); a view of a file changed
    since points at no row (its text is no longer the file's view)."""
    import importlib.util
    import shutil
    from pathlib import Path

    from tokenizer_lsp.cli.tables import decoded_rows
    from tokenizer_lsp.core.decoding.listing import text_row
    from tokenizer_lsp.core.formats import registry
    from tokenizer_lsp.core.formats.decoded_view import view_text
    from tokenizer_lsp.core.index.build import build_index

    data = Path(importlib.util.find_spec("mistral_common").origin).parent / "data"
    v1, v7 = data / "tokenizer.model.v1", data / "mistral_instruct_tokenizer_241114.model.v7"
    assert v1.is_file() and v7.is_file(), "the .model files mistral-common ships are this test's input"
    path = tmp_path / "tokenizer.model"
    shutil.copyfile(v1, path)
    text, n = view_text(str(path))
    plugin, table = registry.read_table(str(path))
    rows = text.split("\n")[2:-1]
    assert len(rows) == n == len(table.rows)
    for row, want in zip(rows, decoded_rows(plugin, table)):
        assert row == text_row(want, f", {want['type']}")
    idx = build_index(text.encode(), str(path) + " (decoded)")
    at = text.encode().index(b'"<s>"')
    assert idx.token_at(at + 1) is not None
    shutil.copyfile(v7, path)  # the file changes under its open view
    idx = build_index(text.encode(), str(path) + " (decoded)")
    assert idx.token_at(at + 1) is None
