"""The LSP test harness: the client capabilities, session fixtures and wait helpers the LSP
tests share (docs/contributing/tests.md). A fixture imported into a test module is a fixture
of that module: `from tests.lsp.harness import client`, or `navigation_client as client`;
`make_fixture(...)` makes a session with other capabilities or initialization options, and
`make_fixture(..., shared=True)` one server for all the tests of a module that ask for the
same capabilities (each test still starts with no document open and nothing recorded)."""

import asyncio
import sys

import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp_idle import wait_idle

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"])


def capabilities(
    encodings=("utf-16",), hover_format=(types.MarkupKind.Markdown,), refresh=True, pull=False
) -> types.ClientCapabilities:
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


async def _initialize(lsp_client: LanguageClient, encodings, init_options, caps) -> None:
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
    lsp_client.init_result = await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities(encodings, **caps), initialization_options=init_options)
    )


def make_fixture(encodings=("utf-16",), init_options=None, shared=False, **caps):
    """A session fixture; `shared`: one server per module for these capabilities and
    options (share_session), for tests that change no setting and need no fresh process."""

    async def prepare(lsp_client: LanguageClient):
        await _initialize(lsp_client, encodings, init_options, caps)

    if shared:
        return share_session(prepare, key=(tuple(encodings), repr(init_options), repr(sorted(caps.items()))))

    @pytest_lsp.fixture(config=SERVER)
    async def fixture(lsp_client: LanguageClient):
        await prepare(lsp_client)
        yield
        await lsp_client.shutdown_session()

    return fixture


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def lsp_sessions():
    """The shared sessions of one test module, by key: shut down once its tests are done.
    Each server starting and indexing its files again for every test made the LSP tests
    most of the suite's time (issue 33)."""
    sessions: dict = {}
    yield sessions
    for client in sessions.values():
        if client.error is None and client._server is not None and client._server.returncode is None:
            await client.shutdown_session()
        await client.stop()


def share_session(prepare, key):
    """A fixture giving every test of a module the same server (started by the first test
    that asks, with `prepare(client)` as its initialization). A test starts as on a fresh
    server: no document open (those a test opens are closed after it, and the server is
    idle before the next one starts), nothing recorded (publications, diagnostics, inlay
    hint refreshes, messages, progress). A server that died is started again."""

    @pytest_asyncio.fixture(loop_scope="module")
    async def fixture(lsp_sessions):
        client = lsp_sessions.get(key)
        if client is None or client.error is not None or client._server.returncode is not None:
            client = await SERVER.start()
            _track_open_documents(client)
            await prepare(client)
            lsp_sessions[key] = client
        _forget_records(client)
        yield client
        if client.error is None and client._server.returncode is None:
            for uri in sorted(client.open_documents - client.kept_open.keys()):
                client.text_document_did_close(types.DidCloseTextDocumentParams(ident(uri)))
            await wait_idle(client)  # the closes' empty publications are read before the next test

    return fixture


async def open_kept(client: LanguageClient, path, language: str = "json") -> tuple[str, str]:
    """(uri, text) of a large file that several tests of a module only read: opened by the
    first that asks and left open for the others (share_session closes every other
    document after each test), so the server indexes it once a module, not once a test."""
    uri = path.as_uri()
    if uri not in client.kept_open:
        text = path.read_text(encoding="utf-8")
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
        )
        client.kept_open[uri] = text
    return uri, client.kept_open[uri]


def _track_open_documents(client: LanguageClient) -> None:
    client.open_documents = set()
    client.kept_open = {}  # uri -> text (open_kept)
    did_open, did_close = client.text_document_did_open, client.text_document_did_close

    def opening(params):
        client.open_documents.add(params.text_document.uri)
        return did_open(params)

    def closing(params):
        client.open_documents.discard(params.text_document.uri)
        return did_close(params)

    client.text_document_did_open, client.text_document_did_close = opening, closing


def _forget_records(client: LanguageClient) -> None:
    for name in ("published", "diagnostics", "progress_reports"):
        if isinstance(getattr(client, name, None), dict):
            getattr(client, name).clear()
    for name in ("messages", "shown_documents"):
        getattr(client, name).clear()
    client.diagnostic_refresh_count = 0
    if hasattr(client, "refreshes"):
        client.refreshes = 0


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
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
        )
    )
    return await diagnostics_for_version(client, uri, version)


async def hover(client, uri, line, character):
    for _ in range(200):
        h = await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line, character)))
        if h is not None:
            return h
        await asyncio.sleep(0.05)
    return None


def change(client, uri, version, start, end, text):
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(*start), types.Position(*end)), text=text
                )
            ],
        )
    )


def find(text, needle):
    for i, line in enumerate(text.split("\n")):
        if needle in line:
            return i, line.index(needle)
    raise AssertionError(needle)


client = make_fixture(init_options={"diagnostics": {"maxPerFile": 0}})
# the same session, one server per module (share_session)
shared_client = make_fixture(init_options={"diagnostics": {"maxPerFile": 0}}, shared=True)


async def _initialize_plain(lsp_client: LanguageClient) -> None:
    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        return None

    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))


@pytest_lsp.fixture(config=SERVER)
async def navigation_client(lsp_client: LanguageClient):
    await _initialize_plain(lsp_client)
    yield
    await lsp_client.shutdown_session()


# the same plain session, one server per module (share_session)
shared_navigation_client = share_session(_initialize_plain, key="navigation")
