"""unreachable-token in the server: published after the other findings, carried across
edits and recomputed once the document is quiet, never computed when the code is off, and
delivered to pull clients (told to pull again, or with their next pull). The sets
themselves are checked against the engines in tests/unit/test_unreachable.py."""

import asyncio
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import corpus_file
from tests.lsp.harness import capabilities
from tests.lsp_idle import wait_idle


def make_client(init_options=None, **caps):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
    async def fixture(lsp_client: LanguageClient):
        lsp_client.publications = []  # every publication, in order
        lsp_client.refreshed = 0
        default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def recording(params):
            lsp_client.publications.append(params)
            return default(params)

        lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording

        def on_refresh(params):
            lsp_client.refreshed += 1

        lsp_client.protocol.fm.features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = on_refresh
        lsp_client.protocol.fm.features[types.WORKSPACE_INLAY_HINT_REFRESH] = lambda params: None

        c = capabilities(**caps)
        if caps.get("pull") and caps.get("refresh", True):
            c.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        await lsp_client.initialize_session(types.InitializeParams(capabilities=c, initialization_options=init_options))
        yield
        await lsp_client.shutdown_session()

    return fixture


client = make_client({"diagnostics": {"maxPerFile": 0}})
off_client = make_client({"diagnostics": {"maxPerFile": 0, "severity": {"unreachable-token": "off"}}})
pull_client = make_client({"diagnostics": {"maxPerFile": 0}}, pull=True)
# pulls, but cannot be asked to pull again (Neovim 0.11)
pull_only_client = make_client({"diagnostics": {"maxPerFile": 0}}, pull=True, refresh=False)


async def until(predicate, what: str, timeout: float = 60.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.05)


def unreachable_in(params) -> list:
    return [d for d in params.diagnostics if d.code == "unreachable-token"]


def open_text(client, path, text, version=1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=path.as_uri(), language_id="json", version=version, text=text)
        )
    )
    return path.as_uri()


def change(client, uri, version, line, start, end, text):
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, start), types.Position(line, end)), text=text
                )
            ],
        )
    )


async def test_server_publishes_it_after_the_others_and_carries_it_across_edits(client: LanguageClient, tmp_path):
    """whisper's vocab.json (one line, raw UTF-8) with its merges.txt beside it."""
    vocab, merges = corpus_file("whisper-gpt2/vocab.json"), corpus_file("whisper-gpt2/merges.txt")
    path = tmp_path / "vocab.json"
    path.write_bytes(vocab.read_bytes())
    (tmp_path / "merges.txt").write_bytes(merges.read_bytes())
    text = path.read_text(encoding="utf-8")
    uri = open_text(client, path, text)
    await until(lambda: client.publications, "a first publication")
    first = client.publications[0]
    assert first.version == 1 and not unreachable_in(first) and first.diagnostics  # the fragments
    await until(lambda: any(unreachable_in(p) for p in client.publications), "the unreachable finding")
    later = next(p for p in client.publications if unreachable_in(p))
    (d,) = unreachable_in(later)
    col = text.index('"<|endoftext|>"')  # the key literal (UTF-16 = str index: no astral chars before)
    assert all(ord(c) < 0x10000 for c in text[:col])
    assert (d.range.start.line, d.range.start.character) == (0, col)
    assert d.range.end.character == col + len('"<|endoftext|>"')
    assert d.severity == types.DiagnosticSeverity.Information and "→ `<` (27)" in d.message
    assert len(later.diagnostics) == len(first.diagnostics) + 1  # the others are all still there

    # an edit before it (outside any token: a re-parse) moves it; it is carried to the new
    # version's index, then recomputed for it once the document is quiet
    n = len(client.publications)
    change(client, uri, 2, 0, 1, 1, " ")
    await until(lambda: any(p.version == 2 and unreachable_in(p) for p in client.publications[n:]), "carried to v2")
    moved = next(p for p in client.publications[n:] if p.version == 2 and unreachable_in(p))
    assert unreachable_in(moved)[0].range.start.character == col + 1

    # an edit inside another token (the typing fast path): its very first publication has it
    n = len(client.publications)
    t2 = text[:1] + " " + text[1:]
    hello = t2.index('"hello"')
    change(client, uri, 3, 0, hello + 1, hello + 1, "x")
    await until(lambda: any(p.version == 3 for p in client.publications[n:]), "v3")
    assert unreachable_in(next(p for p in client.publications[n:] if p.version == 3))
    # once the document is quiet it is computed again for v3, which no longer loads (the
    # merges make `hello`): no set, as `check` has none for a file that does not load
    await until(
        lambda: any(p.version == 3 and not unreachable_in(p) for p in client.publications[n:]), "recomputed for v3"
    )
    # v4: `hello` back, and `<|endoftext|>` renumbered: the new set names the new id
    n = len(client.publications)
    t3 = t2[: hello + 1] + "x" + t2[hello + 1 :]
    number = t3.index("50256", t3.index('"<|endoftext|>"'))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=4),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, number + 4), types.Position(0, number + 5)), text="7"
                ),
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, hello + 1), types.Position(0, hello + 2)), text=""
                ),
            ],
        )
    )
    await until(
        lambda: any(
            p.version == 4 and unreachable_in(p) and "(id 50257)" in unreachable_in(p)[0].message
            for p in client.publications[n:]
        ),
        "recomputed for v4",
    )


async def test_server_computes_nothing_when_the_code_is_off(off_client: LanguageClient, tmp_path):
    client = off_client
    path = corpus_file("gpt2-openai/encoder.json")
    open_text(client, path, path.read_text(encoding="utf-8"))
    await until(lambda: client.publications, "a first publication")
    # the same file with the code on publishes it once computed (the test above): once the
    # server is idle, nothing more was published
    await wait_idle(client)
    assert len(client.publications) == 1 and not unreachable_in(client.publications[0])


async def test_pull_client_is_told_to_pull_again(pull_client: LanguageClient):
    client = pull_client
    path = corpus_file("gpt2-openai/encoder.json")
    uri = open_text(client, path, path.read_text(encoding="utf-8"))
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
    )
    assert any(d.code == "utf8-fragment" for d in report.items)
    await until(lambda: client.refreshed, "a workspace/diagnostic/refresh")
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
    )
    assert [d.code for d in report.items].count("unreachable-token") == 1
    assert client.publications == []  # pulled, never pushed


async def test_pull_client_without_refresh_gets_the_set_with_its_next_pull(pull_only_client: LanguageClient):
    """A client that pulls but cannot be asked to pull again (Neovim 0.11) is never pushed
    to (pushed or pulled, never both); the set comes with its next pull, after an edit."""
    client = pull_only_client
    path = corpus_file("gpt2-openai/encoder.json")
    text = path.read_text(encoding="utf-8")
    uri = open_text(client, path, text)
    doc = types.TextDocumentIdentifier(uri)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(doc))
    assert any(d.code == "utf8-fragment" for d in report.items)
    version = 1
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    while True:  # type a character and take it back (the text ends as it began), then pull
        version += 1
        change(client, uri, version, 0, 1, 1, " ")
        version += 1
        change(client, uri, version, 0, 1, 2, "")
        await wait_idle(client)  # the quiet document's set is computed (a fixed 0.5 s pause took 20 s under load)
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(doc))
        codes = [d.code for d in report.items]
        if "unreachable-token" in codes or loop.time() > end:
            break
    assert codes.count("unreachable-token") == 1
    assert client.publications == [] and client.refreshed == 0


async def test_merges_edit_recomputes_the_vocab_json_beside_it(client: LanguageClient, tmp_path):
    """vocab.json and merges.txt both open: deleting the merge that builds `hello` makes the
    vocab.json's set grow by that token (the findings are on the vocabulary)."""
    vocab, merges = corpus_file("whisper-gpt2/vocab.json"), corpus_file("whisper-gpt2/merges.txt")
    vpath, mpath = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vpath.write_bytes(vocab.read_bytes())
    mpath.write_bytes(merges.read_bytes())
    vtext, mtext = vpath.read_text(encoding="utf-8"), mpath.read_text(encoding="utf-8")
    vuri = open_text(client, vpath, vtext)
    await until(lambda: any(p.uri == vuri and unreachable_in(p) for p in client.publications), "the first set")
    muri = mpath.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=muri, language_id="bpe-merges", version=1, text=mtext)
        )
    )
    await until(lambda: any(p.uri == muri for p in client.publications), "the merges file's findings")
    lines = mtext.split("\n")
    line = next(i for i, m in enumerate(lines) if "".join(m.split(" ")) == "hello" and not m.startswith("#"))
    n = len(client.publications)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=muri, version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)), text=""
                )
            ],
        )
    )
    await until(
        lambda: any(p.uri == vuri and len(unreachable_in(p)) == 2 for p in client.publications[n:]),
        "the vocab.json's set recomputed",
    )
    final = next(p for p in client.publications[n:] if p.uri == vuri and len(unreachable_in(p)) == 2)
    hello = next(d for d in unreachable_in(final) if d.message.startswith("`hello`"))
    assert hello.range.start.character == vtext.index('"hello"') and "no merge builds it" in hello.message
