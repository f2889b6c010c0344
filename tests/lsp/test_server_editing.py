"""LSP sessions on hand-made and real files: edits, robustness, every format, settings."""

import asyncio
import json
import subprocess
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import ROOT, corpus_file
from tests.lsp.harness import (  # noqa: F401
    change,
    diagnostics_for_version,
    find,
    hover,
    ident,
    make_fixture,
    open_doc,
)
from tests.lsp.harness import shared_client as client  # noqa: F401 (one server for the module)
from tests.lsp_idle import wait_idle

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

EXAMPLE = ROOT / "examples" / "tokenizer.json"


default_client = make_fixture()
utf8_client = make_fixture(("utf-8", "utf-16"))
pull_client = make_fixture(init_options={"diagnostics": {"maxPerFile": 0}}, pull=True)
plain_client = make_fixture(hover_format=(types.MarkupKind.PlainText,), refresh=False, pull=False)
ws_client = make_fixture(
    init_options={
        "inlayHints": {"mode": "whitespace"},
        "diagnostics": {"severity": {"utf8-fragment": "warning"}, "debounceMs": 10},
    },
    shared=True,
)
# a server of its own: its test changes the settings, which would carry over to the next test
settings_client = make_fixture(init_options={"diagnostics": {"maxPerFile": 0}})


async def test_edit_breaks_then_repairs_json(client: LanguageClient, tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    first = await open_doc(client, uri, text)
    fragments = sum(d.code == "utf8-fragment" for d in first)
    assert fragments > 0
    line, col = find(text, '"ĠâĪ"')
    h = await hover(client, uri, line, col + 1)
    assert "`20 E2 88`" in h.contents.value
    # delete the closing quote of a key: the JSON breaks
    change(client, uri, 2, (line, col + 4), (line, col + 5), "")
    broken = await diagnostics_for_version(client, uri, 2)
    broken = [d for d in broken if d.code != "summary"]
    assert broken[0].code == "json-syntax" and broken[0].severity == types.DiagnosticSeverity.Error
    assert broken[0].range.start.line == line
    # hovers keep answering from the last good index while the JSON is broken, except on
    # the edited token itself, whose text the index no longer knows
    h = await hover(client, uri, line - 1, col + 1)
    assert h is not None and "id 287" in h.contents.value
    assert await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line, col + 1))) is None
    # put it back: the findings return
    change(client, uri, 3, (line, col + 4), (line, col + 4), '"')
    repaired = await diagnostics_for_version(client, uri, 3)
    assert sum(d.code == "utf8-fragment" for d in repaired) == fragments


async def test_edit_inside_a_token_updates_findings(client: LanguageClient, tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    first = await open_doc(client, uri, text)
    line, col = find(text, '"en": ')
    # rename the token "en" to "eX": merges that produce "en" now reference a missing result
    change(client, uri, 2, (line, col + 2), (line, col + 3), "X")
    after = await diagnostics_for_version(client, uri, 2)
    missing = [d for d in after if d.code == "merge-result-missing"]
    assert missing and all("`en`" in d.message for d in missing)
    assert len(after) > len(first)


async def test_non_tokenizer_json_gets_nothing(client: LanguageClient, tmp_path):
    uri = (tmp_path / "package.json").as_uri()
    text = json.dumps({"name": "x", "vocab": {"Ġa": 1}, "dependencies": {"Ġb": "1.0"}}, indent=2)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await wait_idle(client)
    assert uri not in client.diagnostics
    assert await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(2, 5))) is None
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, 0), types.Position(9, 0)))
    )
    assert not hints


async def test_robustness(client: LanguageClient, tmp_path):
    cases = {
        "garbage/tokenizer.json": "\x00\x01\ufffd\x7f binary \x02{[",
        "empty/tokenizer.json": "",
        "truncated/tokenizer.json": EXAMPLE.read_text(encoding="utf-8")[:5000],
        "surrogate/vocab.json": '{"\\ud800": 0, "a": 1}',
        "long/vocab.json": json.dumps({f"Ġtok{i}": i for i in range(60000)}, ensure_ascii=False),
    }
    for rel, text in cases.items():
        uri = (tmp_path / rel).as_uri()
        diags = await open_doc(client, uri, text)
        if rel.startswith("long"):
            assert diags == [] or all(d.code != "json-syntax" for d in diags)
        else:
            assert [d.code for d in diags if d.code != "summary"][:1] == ["json-syntax"], rel
    # the server still serves the long one-line file: hover far into the line
    long_text = cases["long/vocab.json"]
    uri = (tmp_path / "long/vocab.json").as_uri()
    col = long_text.index('"Ġtok59999"') + 3
    h = await hover(client, uri, 0, col)
    assert h is not None and "id 59999" in h.contents.value and h.range.start.character == col - 3
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, col - 2000), types.Position(0, col + 20)))
    )
    assert hints and hints[-1].label == "␣tok59999"


async def test_close_clears_diagnostics(client: LanguageClient, tmp_path):
    uri = (tmp_path / "tokenizer.json").as_uri()
    await open_doc(client, uri, EXAMPLE.read_text(encoding="utf-8"))
    client.text_document_did_close(types.DidCloseTextDocumentParams(ident(uri)))
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert params.uri == uri and list(params.diagnostics) == []


async def test_push_client_is_not_offered_pull(client: LanguageClient):
    assert client.init_result.capabilities.diagnostic_provider is None


async def test_pull_client_gets_findings_by_pull_only(pull_client: LanguageClient, tmp_path):
    """Never both: a client that pulls (Neovim 0.10+) shows pushed and pulled findings side
    by side, so it gets them by pull alone."""
    client = pull_client
    assert client.init_result.capabilities.diagnostic_provider is not None
    uri = (tmp_path / "tokenizer.json").as_uri()
    text = EXAMPLE.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(ident(uri)))
    done = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", "--format", "json", str(EXAMPLE)],
        capture_output=True,
        text=True,
    )
    expected = [
        (f["code"], f["range"]["start"]["line"], f["range"]["start"]["character"]) for f in json.loads(done.stdout)
    ]
    got = [(d.code, d.range.start.line, d.range.start.character) for d in report.items if d.code != "summary"]
    assert got == expected and expected
    # a pull right after an edit answers for the new version, not the old one
    line, col = find(text, '"en": ')
    change(client, uri, 2, (line, col + 2), (line, col + 3), "X")
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(ident(uri)))
    assert any(d.code == "merge-result-missing" for d in report.items)
    await wait_idle(client)  # the edit's build and the jobs after it are done
    assert client.published == {}  # nothing was pushed


async def test_encoder_json_one_line_with_escapes(client: LanguageClient):
    path = corpus_file("gpt2-openai/encoder.json")
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    diags = await open_doc(client, uri, text)
    assert sum(d.code == "utf8-fragment" for d in diags) == 344
    col = text.index('"\\u0120the"')
    h = await hover(client, uri, 0, col + 3)
    assert "`20 74 68 65`" in h.contents.value and "id 262" in h.contents.value
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, col), types.Position(0, col + 2000)))
    )
    assert hints[0].label == "␣the" and hints[0].position == types.Position(0, col + len('"\\u0120the"'))
    assert all(h.position.line == 0 for h in hints) and len(hints) > 20


async def test_merges_and_tiktoken_hover(client: LanguageClient):
    merges = corpus_file("whisper-gpt2/merges.txt")
    text = merges.read_text(encoding="utf-8")
    uri = merges.as_uri()
    diags = await open_doc(client, uri, text, language="bpe-merges")
    assert list(diags) == []
    h = await hover(client, uri, 1, 0)  # "Ġ t", rank 0
    assert "`20`" in h.contents.value and "merge rank 0" in h.contents.value and "id 220" in h.contents.value
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(1, 0), types.Position(2, 0)))
    )
    assert [h.label for h in hints] == ["␣"] and hints[0].position == types.Position(1, 1)
    tk = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    ttext = tk.read_text(encoding="utf-8")
    turi = tk.as_uri()
    tdiags = await open_doc(client, turi, ttext, language="tiktoken")
    assert sum(d.code == "utf8-fragment" for d in tdiags) == 1562
    h = await hover(client, turi, 0, 1)
    assert "`21`" in h.contents.value and "rank 0" in h.contents.value
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(turi), types.Range(types.Position(0, 0), types.Position(10, 0)))
    )
    assert len(hints) == 10 and hints[0].label == "!" and hints[0].position == types.Position(0, 4)


async def test_utf8_position_encoding(utf8_client: LanguageClient, tmp_path):
    text = '{\n  "é😀": 0,\n  "âĪ": 1\n}\n'
    uri = (tmp_path / "vocab.json").as_uri()
    diags = await open_doc(utf8_client, uri, text)
    frag = [d for d in diags if d.code == "utf8-fragment"]
    assert frag[-1].range.start == types.Position(2, 2) and frag[-1].range.end == types.Position(2, 2 + 1 + 4 + 1)
    # "é😀" is outside the byte alphabet (😀): its range in UTF-8 bytes is 1 + 2 + 4 + 1 long
    nbl = [d for d in diags if d.code == "not-byte-level"]
    assert nbl[0].range.end.character - nbl[0].range.start.character == 8


async def test_settings_from_initialization_options(ws_client: LanguageClient, tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    diags = await open_doc(ws_client, uri, text)
    frag = [d for d in diags if d.code == "utf8-fragment"]
    assert frag and all(d.severity == types.DiagnosticSeverity.Warning for d in frag)
    await wait_idle(ws_client)  # the index answers the hints (a hover on "{" never comes: it waited 10 s)
    hints = await ws_client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, 0), types.Position(len(text.split("\n")), 0)))
    )
    assert hints and all(("␣" in h.label) or ("\\" in h.label) for h in hints)


async def test_plain_client_without_refresh(plain_client: LanguageClient, tmp_path):
    """A client like Emacs' eglot: plain-text hovers, no inlay hint refresh, no pull
    diagnostics. It asks for hints at once after opening: the answer waits for the index."""
    assert plain_client.init_result.capabilities.diagnostic_provider is None
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    plain_client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    hints = await plain_client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, 0), types.Position(len(text.split("\n")), 0)))
    )
    assert len(hints) > 100
    line, col = find(text, '"ĠâĪ"')
    h = await plain_client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line, col + 1)))
    assert h.contents.kind == types.MarkupKind.PlainText
    assert "`" not in h.contents.value and "**" not in h.contents.value and "20 E2 88" in h.contents.value


async def test_settings_change_without_restart(settings_client: LanguageClient, tmp_path):
    client = settings_client
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    first = await open_doc(client, uri, text)
    assert all(d.severity == types.DiagnosticSeverity.Hint for d in first if d.code == "utf8-fragment")
    await wait_idle(client)  # every job of the open is done before the settings change
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "tokenizerLsp": {
                    "inlayHints": {"mode": "off"},
                    "diagnostics": {"severity": {"utf8-fragment": "error", "id-gap": "off"}},
                }
            }
        )
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    frags = [d for d in params.diagnostics if d.code == "utf8-fragment"]
    assert len(frags) == sum(d.code == "utf8-fragment" for d in first)
    assert all(d.severity == types.DiagnosticSeverity.Error for d in frags)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(0, 0), types.Position(400, 0)))
    )
    assert not hints
    # removing the severity (VS Code sends the whole section again) restores the default
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"tokenizerLsp": {"inlayHints": {"mode": "all"}, "diagnostics": {"severity": {}}}}
        )
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert all(d.severity == types.DiagnosticSeverity.Hint for d in params.diagnostics if d.code == "utf8-fragment")
    assert any(d.code == "id-gap" for d in params.diagnostics) == any(d.code == "id-gap" for d in first)


@pytest.mark.parametrize("rel", ["examples", "llama2/tokenizer.json"])
async def test_burst_of_edits_while_reindexing(ws_client: LanguageClient, tmp_path, rel):
    """Changes keep arriving while earlier ones are applied and indexed (debounce 10 ms;
    a line break makes a full re-parse): the last version's diagnostics equal those of
    the same text opened afresh."""
    import random

    rng = random.Random(7)
    path = EXAMPLE if rel == "examples" else corpus_file(rel)
    lines = path.read_text(encoding="utf-8").split("\n")
    uri = (tmp_path / "tokenizer.json").as_uri()
    await open_doc(ws_client, uri, "\n".join(lines))
    version = 1
    for _ in range(40):
        i = rng.randrange(len(lines))
        line = lines[i]
        if rng.random() < 0.2 and line.endswith(","):  # a line break between entries
            end = len(line.encode("utf-16-le")) // 2
            change(ws_client, uri, version + 1, (i, end), (i, end), "\n")
            lines[i : i + 1] = [line, ""]
        elif line.lstrip().startswith('"'):  # a character inside the first literal of the line
            col = line.index('"') + 1
            change(ws_client, uri, version + 1, (i, col), (i, col), "q")
            lines[i] = line[:col] + "q" + line[col:]
        else:
            continue
        version += 1
        await asyncio.sleep(rng.random() * 0.015)
    edited = await diagnostics_for_version(ws_client, uri, version, timeout=60)
    fresh_uri = (tmp_path / "fresh" / "tokenizer.json").as_uri()
    fresh = await open_doc(ws_client, fresh_uri, "\n".join(lines))
    assert [(d.code, d.range, d.message) for d in edited] == [(d.code, d.range, d.message) for d in fresh]


async def test_hover_and_hints_follow_edits_the_index_has_not_seen(client: LanguageClient, tmp_path):
    """A line inserted above breaks the JSON: the last good index is one line behind the
    text, and hovers and hints must still land on the token under the cursor."""
    text = EXAMPLE.read_text(encoding="utf-8")
    uri = (tmp_path / "tokenizer.json").as_uri()
    await open_doc(client, uri, text)
    line, col = find(text, '"ĠâĪ"')
    # once the navigation lookups are built too (the hover then tells of merges)
    for _ in range(200):
        before = await hover(client, uri, line, col + 1)
        if "used by" in before.contents.value:
            break
        await asyncio.sleep(0.05)
    change(client, uri, 2, (0, 1), (0, 1), '\n  "x": ,')
    assert [d.code for d in await diagnostics_for_version(client, uri, 2) if d.code != "summary"][:1] == ["json-syntax"]
    h = await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line + 1, col + 1)))
    assert h is not None and h.contents.value == before.contents.value
    assert h.range.start == types.Position(line + 1, col)
    # on the new text itself the old index knows nothing
    assert await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(1, 4))) is None
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(ident(uri), types.Range(types.Position(line + 1, 0), types.Position(line + 2, 0)))
    )
    assert [(h.position.line, h.position.character, h.label) for h in hints] == [
        (line + 1, col + len('"ĠâĪ"'), "␣\\xE2\\x88")
    ]
    # an edit inside a token: until re-indexed, no hover claims the old token's content
    change(client, uri, 3, (line + 1, col + 2), (line + 1, col + 2), "q")
    h = await client.text_document_hover_async(types.HoverParams(ident(uri), types.Position(line + 1, col + 1)))
    assert h is None or "q" in h.contents.value


async def test_default_limit_keeps_a_summary_of_everything(default_client: LanguageClient):
    path = corpus_file("qwen3/tokenizer.json")
    diags = await open_doc(default_client, path.as_uri(), path.read_text(encoding="utf-8"))
    # 1000 in all, the summary included: VS Code drops any beyond 1000
    assert len(diags) == 1000 and diags[0].code == "summary"
    assert "1448 tokens are UTF-8 fragments" in diags[0].message and "first 999 of 1448" in diags[0].message
    assert all(d.code == "utf8-fragment" for d in diags[1:])


async def test_merges_follow_the_vocabulary_beside_them(client: LanguageClient, tmp_path):
    """Editing the open vocab.json (unsaved) re-checks the open merges.txt beside it."""
    src = ROOT / "examples" / "gpt2-style"
    for name in ("vocab.json", "merges.txt"):
        (tmp_path / name).write_bytes((src / name).read_bytes())
    merges_text = (tmp_path / "merges.txt").read_text(encoding="utf-8")
    muri = (tmp_path / "merges.txt").as_uri()
    assert not [
        d for d in await open_doc(client, muri, merges_text, language="bpe-merges") if d.code.startswith("merge-")
    ]
    vtext = (tmp_path / "vocab.json").read_text(encoding="utf-8")
    vuri = (tmp_path / "vocab.json").as_uri()
    await open_doc(client, vuri, vtext)
    # rename a token that the first merge uses as its left part
    first = next(l for l in merges_text.split("\n")[1:] if l)
    left = first.split(" ")[0]
    line, col = find(vtext, json.dumps(left) + ":")  # stored with \u escapes, as GPT-2's
    change(client, vuri, 2, (line, col + 1), (line, col + 1), "QQ")
    await diagnostics_for_version(client, vuri, 2)
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while loop.time() < end:
        now = client.diagnostics.get(muri, [])
        if any(d.code == "merge-unknown-token" for d in now):
            break
        await asyncio.sleep(0.05)
    assert any(d.code == "merge-unknown-token" and d.range.start.line == 1 for d in client.diagnostics[muri])
