"""End-to-end: the server as a subprocess, driven by pytest-lsp with hand-built capabilities."""

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import corpus_file
from tests.lsp.harness import capabilities  # noqa: F401

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp", "--stdio"]))
async def client(lsp_client: LanguageClient):
    lsp_client.refreshes = 0

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        lsp_client.refreshes += 1

    # every finding published (the default limit is VS Code's 1000; see test_default_limit)
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities(), initialization_options={"diagnostics": {"maxPerFile": 0}})
    )
    yield
    await lsp_client.shutdown_session()


async def open_and_wait(client: LanguageClient, path: Path, text: str | None = None, language="json"):
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def wait_ready(client: LanguageClient, uri: str, probe: types.Position):
    """Hovers are served once the lookup tables are built (the server then asks for a hint refresh)."""
    for _ in range(200):
        h = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), probe))
        if h is not None:
            return h
        import asyncio

        await asyncio.sleep(0.05)
    raise AssertionError("hover never became ready")


def line_col(path: Path, needle: str) -> tuple[int, int]:
    for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        col = line.find(needle)
        if col >= 0:
            return i, col
    raise AssertionError(needle)


async def test_qwen3_hover_diagnostics_hints(client: LanguageClient):
    path = corpus_file("qwen3/tokenizer.json")
    uri = await open_and_wait(client, path)
    diags = client.diagnostics[uri]
    assert sum(d.code == "utf8-fragment" for d in diags) == 1448
    assert not [d for d in diags if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)]
    line, col = line_col(path, '"âĪ": ')
    hover = await wait_ready(client, uri, types.Position(line, col + 2))
    text = hover.contents.value
    assert "`E2 88`" in text and "first 2 of 3 bytes" in text and "∀" in text and "21704" in text
    assert hover.range.start == types.Position(line, col)
    # a merge part, in the pair serialization: its own bytes and id, then the merge and rank
    mline, mcol = line_col(path, '"Ġ",')
    h2 = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(mline, mcol + 1))
    )
    assert "`20`" in h2.contents.value and "id 220" in h2.contents.value
    assert "merge rank 0" in h2.contents.value
    # hints in a range in the middle of the file
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri), types.Range(types.Position(10000, 0), types.Position(10100, 0))
        )
    )
    lines = path.read_text(encoding="utf-8").split("\n")[10000:10100]
    expected = sum(1 for l in lines if "Ġ" in l.split('":')[0])
    assert len([h for h in hints if h.label.startswith("␣")]) == expected > 0
    h = next(h for h in hints if h.label.startswith("␣"))
    src = lines[h.position.line - 10000]
    assert src[h.position.character - 1] == '"' and src[h.position.character] == ":"


async def test_minified_one_line_tokenizer(client: LanguageClient, tmp_path):
    """A tokenizer.json saved without indentation is one line of megabytes with raw UTF-8:
    positions deep in it must come out right (column checkpoints) in UTF-16."""
    import orjson

    obj = orjson.loads(corpus_file("qwen3/tokenizer.json").read_bytes())
    path = tmp_path / "tokenizer.json"
    path.write_bytes(orjson.dumps(obj))
    text = path.read_text(encoding="utf-8")
    assert "\n" not in text and len(text) > 4_000_000
    uri = await open_and_wait(client, path, text)
    diags = client.diagnostics[uri]
    assert sum(d.code == "utf8-fragment" for d in diags) == 1448
    col = text.index('"âĪ":')  # ∀'s first two bytes, deep in the line (UTF-16 = str index here)
    assert col > 300_000 and all(ord(c) < 0x10000 for c in text[:col])
    frag = next(d for d in diags if "`âĪ`" in d.message)
    assert (frag.range.start.line, frag.range.start.character, frag.range.end.character) == (0, col, col + 4)
    hover = await wait_ready(client, uri, types.Position(0, col + 2))
    assert "`E2 88`" in hover.contents.value and hover.range.start == types.Position(0, col)
    # hints for 2000 characters there: each after its token's closing quote
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri), types.Range(types.Position(0, col), types.Position(0, col + 2000))
        )
    )
    assert hints and all(text[h.position.character - 1] == '"' for h in hints)
    assert any(h.label.startswith("␣") for h in hints)
