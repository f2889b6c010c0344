"""The LSP test harness: the client capabilities, session fixtures and wait helpers the LSP
tests share (docs/contributing/tests.md). A fixture imported into a test module is a fixture
of that module: `from tests.lsp.harness import client`, or `navigation_client as client`;
`make_fixture(...)` makes a session with other capabilities or initialization options."""

import asyncio
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient


def capabilities(encodings=("utf-16",), hover_format=(types.MarkupKind.Markdown,), refresh=True, pull=False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=list(encodings)),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(dynamic_registration=False),
            hover=types.HoverClientCapabilities(content_format=list(hover_format)),
            inlay_hint=types.InlayHintClientCapabilities(),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=refresh),
            configuration=False,
        ),
    )


def make_fixture(encodings=("utf-16",), init_options=None, **caps):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
    async def fixture(lsp_client: LanguageClient):
        lsp_client.refreshes = 0

        @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def on_refresh(params):
            lsp_client.refreshes += 1

        # every publication by (uri, version): waiting for "the next notification" misses
        # those that arrive while the test is busy elsewhere (it did, under load)
        lsp_client.published = {}
        default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def recording(params):
            lsp_client.published[(params.uri, params.version)] = params.diagnostics
            return default(params)

        lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording
        lsp_client.init_result = await lsp_client.initialize_session(types.InitializeParams(
            capabilities=capabilities(encodings, **caps), initialization_options=init_options))
        yield
        await lsp_client.shutdown_session()

    return fixture


def ident(uri):
    return types.TextDocumentIdentifier(uri)


PUBLICATION_POLL_S = 0.01


async def diagnostics_for_version(client, uri, version, timeout=20.0):
    """Diagnostics published for exactly this version, waiting for them if need be."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while (uri, version) not in client.published:
        left = end - loop.time()
        if left <= 0:
            raise AssertionError(f"no diagnostics for version {version}")
        # the fixture records every publication: polled, never waited for with a timeout
        # (pytest-lsp sets the result of the notification's future it gave out; once
        # wait_for has cancelled that future, the next publication raised in the client's
        # reader and ended the session: CI saw "Server process exited with return code -15")
        await asyncio.sleep(PUBLICATION_POLL_S)
    return client.published[(uri, version)]


async def open_doc(client, uri, text, language="json", version=1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))
    return await diagnostics_for_version(client, uri, version)


async def hover(client, uri, line, character):
    for _ in range(200):
        h = await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line, character)))
        if h is not None:
            return h
        await asyncio.sleep(0.05)
    return None


def change(client, uri, version, start, end, text):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(types.Position(*start), types.Position(*end)), text=text)]))


def find(text, needle):
    for i, line in enumerate(text.split("\n")):
        if needle in line:
            return i, line.index(needle)
    raise AssertionError(needle)


client = make_fixture(init_options={"diagnostics": {"maxPerFile": 0}})


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
async def navigation_client(lsp_client: LanguageClient):
    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        return None

    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()
