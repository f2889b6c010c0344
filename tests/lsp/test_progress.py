"""Work-done progress while a large document is first indexed (INTERFACE.md, editor
experience): begun by the server before the file's first diagnostics, begin -> report ->
end, only for files over 5 MB, and never sent to a client without window.workDoneProgress."""

import asyncio
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import corpus_file

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp", "--stdio"])
FIVE_MB = 5 * 1024 * 1024


def capabilities(work_done_progress: bool) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=work_done_progress),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
        ),
    )


async def _session(lsp_client: LanguageClient, progress: bool):
    # what the client had received when each file's first diagnostics came
    lsp_client.tokens_at_first_diagnostics = {}
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities(progress)))


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await _session(lsp_client, progress=True)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def client_without_progress(lsp_client: LanguageClient):
    await _session(lsp_client, progress=False)
    yield
    await lsp_client.shutdown_session()


async def open_and_wait_for_lookups(client: LanguageClient, path, probe: types.Position) -> str:
    """Opens `path`; returns its URI once its first diagnostics came and hovers answer
    (the hover lookups are the last step the progress covers)."""

    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="json", version=1, text=path.read_text(encoding="utf-8"))
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    # the create request came before the diagnostics: the client has the token by now
    client.tokens_at_first_diagnostics[uri] = set(client.progress_reports)
    for _ in range(400):
        hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), probe))
        if hover is not None:
            return uri
        await asyncio.sleep(0.05)
    raise AssertionError(f"hovers never answered on {path}")


def first_key_position(path) -> types.Position:
    """The first vocab key of a tokenizer.json: its line and the column inside its quotes."""
    with path.open(encoding="utf-8") as f:
        in_vocab = False
        for line_no, line in enumerate(f):
            if '"vocab": {' in line:
                in_vocab = True
                continue
            if in_vocab and line.lstrip().startswith('"'):
                return types.Position(line_no, len(line) - len(line.lstrip()) + 1)
    raise AssertionError(f"no vocab in {path}")


async def wait_for_end(client: LanguageClient, token) -> list:

    for _ in range(400):
        reports = client.progress_reports.get(token, [])
        if reports and isinstance(reports[-1], types.WorkDoneProgressEnd):
            return reports
        await asyncio.sleep(0.05)
    raise AssertionError(f"progress {token!r} never ended: {client.progress_reports.get(token)}")


async def test_large_file_progress_begins_before_diagnostics(client: LanguageClient):
    path = corpus_file("qwen3/tokenizer.json")
    assert path.stat().st_size > FIVE_MB
    uri = await open_and_wait_for_lookups(client, path, first_key_position(path))
    created = client.tokens_at_first_diagnostics[uri]
    assert len(created) == 1, f"one window/workDoneProgress/create before the first diagnostics, got {created}"
    (token,) = created
    reports = await wait_for_end(client, token)
    kinds = [type(r).__name__ for r in reports]
    assert isinstance(reports[0], types.WorkDoneProgressBegin), kinds
    assert reports[0].title.endswith("qwen3/tokenizer.json"), reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd), kinds
    assert kinds.count("WorkDoneProgressBegin") == 1 and kinds.count("WorkDoneProgressEnd") == 1
    # the steps, in order (steps taken before the client accepted the token fold into begin)
    steps = [r.message for r in reports[:-1]]
    assert steps[-1] == "hover lookups", steps
    order = ["parsing", "checking", "hover lookups"]
    assert [order.index(s) for s in steps] == sorted(order.index(s) for s in steps), steps
    percentages = [r.percentage for r in reports[:-1]]
    assert percentages == sorted(percentages) and all(0 <= p <= 100 for p in percentages)
    assert set(client.progress_reports) == {token}


async def test_small_file_gets_no_progress(client: LanguageClient):
    path = corpus_file("llama2/tokenizer.json")
    assert path.stat().st_size < FIVE_MB
    await open_and_wait_for_lookups(client, path, first_key_position(path))
    assert client.progress_reports == {}


@pytest.mark.parametrize("rel", ["qwen3/tokenizer.json"])
async def test_client_without_the_capability_gets_none(client_without_progress: LanguageClient, rel):
    path = corpus_file(rel)
    await open_and_wait_for_lookups(client_without_progress, path, first_key_position(path))
    assert client_without_progress.progress_reports == {}
