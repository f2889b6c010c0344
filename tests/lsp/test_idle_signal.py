"""tokenizer-lsp/idle: the server answers idle only once an edit's fresh diagnostics are
out, so a test that asserts "nothing more happened" after it asserts something true."""

import asyncio
import sys
from types import SimpleNamespace

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tokenizer_lsp.lsp.handlers import idle

from tests.conftest import ROOT
from tests.lsp.harness import capabilities
from tests.lsp_idle import IDLE, answered_idle

EXAMPLE = ROOT / "examples" / "tokenizer.json"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
async def client(lsp_client: LanguageClient):
    lsp_client.versions = []  # the version of every publication, in the order they were read
    default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def recording(params):
        lsp_client.versions.append(params.version)
        return default(params)

    lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording
    lsp_client.protocol.fm.features[types.WORKSPACE_INLAY_HINT_REFRESH] = lambda params: None
    # a long debounce: an answer that did not wait for the build would come well before it
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(("utf-16",)), initialization_options={"diagnostics": {"debounceMs": 1500}}
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_idle_answers_after_the_edits_diagnostics_are_out(client: LanguageClient, tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    assert answered_idle(await client.protocol.send_request_async(IDLE, None))
    assert client.versions and client.versions[-1] == 1
    # an edit, then at once the request: its answer waits for the debounce and the build
    line = text.split("\n").index(next(t for t in text.split("\n") if '"en": ' in t))
    col = text.split("\n")[line].index('"en": ')
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, col + 2), types.Position(line, col + 3)), text="X"
                )
            ],
        )
    )
    seen = len(client.versions)
    assert answered_idle(await client.protocol.send_request_async(IDLE, None))
    assert 2 in client.versions[seen:] and client.versions[-1] == 2


async def test_a_server_that_stays_busy_answers_not_idle_at_the_cap(monkeypatch):
    """A client never hangs on the request: past the cap the answer is idle: false."""
    never = asyncio.Event()  # a scheduler that is busy for ever
    monkeypatch.setattr(idle, "IDLE_CAP_S", 0.05)
    ls = SimpleNamespace(scheduler=SimpleNamespace(idle=never.wait))
    answer = await asyncio.wait_for(idle.handle(ls, None), 30)
    assert answer.data == {"idle": False}
