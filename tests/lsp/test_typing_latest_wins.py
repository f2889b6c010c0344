"""Latest wins while typing (issue 24): a burst of keystrokes ends with the last version's
diagnostics and nothing older after them; hovers on other tokens of a one-line vocab.json
keep answering from the last index during the burst; a long soak on a vocab.json with its
merges.txt and added_tokens.json beside it keeps its hovers.

Expected facts are computed here, not by the server: a token's bytes with the GPT-2 byte
map (built below as GPT-2's encoder.py builds it), its id from json.loads, and the last
version's diagnostics from the same text opened afresh in the same server.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import ROOT, corpus_file, gpt2_byte_of
from tests.lsp.harness import PUBLICATION_POLL_S, capabilities

EXAMPLE = ROOT / "examples" / "tokenizer.json"
GPT2_STYLE = ROOT / "examples" / "gpt2-style"
ENTRY = re.compile(r'"((?:[^"\\]|\\.)+)":\s*(-?\d+)')


def gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's bytes_to_unicode (openai/gpt-2 encoder.py), inverted."""
    return gpt2_byte_of()


BYTE_OF = gpt2_byte_decoder()


def token_bytes_hex(token: str) -> str:
    return " ".join(f"{BYTE_OF[ch]:02X}" for ch in token)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
async def client(lsp_client: LanguageClient):
    # every publication in the order it arrived: (uri, version, diagnostics)
    lsp_client.arrivals = []

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        return None

    default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def recording(params):
        lsp_client.arrivals.append((params.uri, params.version, params.diagnostics))
        return default(params)

    lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(), initialization_options={"diagnostics": {"maxPerFile": 0, "debounceMs": 20}}
        )
    )
    yield
    await lsp_client.shutdown_session()


async def published(client, uri: str, version: int, timeout: float = 60.0) -> list:
    """The diagnostics of exactly this version, once they have arrived."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        for u, v, diags in client.arrivals:
            if u == uri and v == version:
                return diags
        if loop.time() > end:
            raise AssertionError(f"no diagnostics for version {version}")
        await asyncio.sleep(PUBLICATION_POLL_S)  # arrivals are recorded: polled (harness.py says why)


def change(client, uri: str, version: int, start, end, text: str) -> None:
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


def hover_at(client, uri: str, line: int, character: int):
    return client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
    )


async def first_hover(client, uri: str, line: int, character: int):
    for _ in range(400):  # the hover lookups are built after the first diagnostics
        h = await hover_at(client, uri, line, character)
        if h is not None:
            return h
        await asyncio.sleep(0.05)
    raise AssertionError("no hover after the open")


def utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def one_line_entries(text: str) -> list[tuple[int, int, str, int]]:
    """(column of the key's first character, of its closing quote, key, id) of every entry
    of a one-line vocab.json whose key has no escape (its text is what the file says)."""
    out, at, col = [], 0, 0
    for m in ENTRY.finditer(text):
        col += utf16(text[at : m.start() + 1])
        at = m.start() + 1
        if "\\" not in m.group(1):
            out.append((col, col + utf16(m.group(1)), m.group(1), int(m.group(2))))
    return out


def one_line_vocab(tmp_path, source: str):
    """A one-line vocab.json: the example tokenizer's vocabulary, or a corpus file."""
    folder = tmp_path / "v"
    folder.mkdir()
    if source == "examples":
        vocab = json.loads(EXAMPLE.read_text(encoding="utf-8"))["model"]["vocab"]
        text = json.dumps(vocab, ensure_ascii=False)
    else:
        text = corpus_file(source).read_text(encoding="utf-8")
    assert "\n" not in text.rstrip("\n")
    (folder / "vocab.json").write_text(text, encoding="utf-8")
    return folder / "vocab.json", text


@pytest.mark.parametrize("source", ["examples", "whisper-gpt2/vocab.json"])
async def test_hovers_outside_the_edit_answer_during_a_burst_in_a_one_line_file(client, tmp_path, source):
    path, text = one_line_vocab(tmp_path, source)
    vocab = json.loads(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await published(client, uri, 1)
    entries = [e for e in one_line_entries(text) if all(ch in BYTE_OF for ch in e[2])]
    rng = random.Random(24)
    mid = len(entries) // 2
    col, end, key, _ = entries[mid]
    await first_hover(client, uri, 0, col + 1)
    others = [e for k, e in enumerate(entries) if abs(k - mid) > 3]
    version, typed, answered = 1, 0, []
    for k in range(120):
        version += 1
        change(client, uri, version, (0, end + typed), (0, end + typed), "q")
        typed += 1
        if k % 6 == 5:
            ocol, _, okey, oid = rng.choice(others)
            shift = typed if ocol > col else 0  # a token after the typed one moved right
            h = await hover_at(client, uri, 0, ocol + shift + 1)
            assert h is not None, f"no hover on {okey!r} while typing (version {version})"
            assert vocab[okey] == oid
            assert f"id {oid}" in h.contents.value and f"`{token_bytes_hex(okey)}`" in h.contents.value
            answered.append(okey)
    assert len(answered) == 20
    # and the typed token itself, once its version is indexed: what the file now says
    await published(client, uri, version)
    h = await first_hover(client, uri, 0, col + 1)
    assert f"`{token_bytes_hex(key + 'q' * typed)}`" in h.contents.value


async def test_a_long_burst_ends_with_the_last_version_only(client, tmp_path):
    """Hundreds of keystrokes, some while builds run (a round trip every 25 lets the
    server start one): the last version is published, nothing older comes after it, no
    publication ever goes back in versions, and its diagnostics are those of its text."""
    path, text = one_line_vocab(tmp_path, "examples")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await published(client, uri, 1)
    entries = one_line_entries(text)
    col, end, key, _ = entries[len(entries) // 2]
    await first_hover(client, uri, 0, col + 1)
    version, current = 1, key
    for k in range(400):
        version += 1
        if k % 7 == 6:  # a backspace
            change(client, uri, version, (0, col + utf16(current) - 1), (0, col + utf16(current)), "")
            current = current[:-1]
        else:
            letter = "zqé"[k % 3]  # é stands for the byte E9: a UTF-8 fragment while it ends the token
            change(client, uri, version, (0, col + utf16(current)), (0, col + utf16(current)), letter)
            current += letter
        if k % 25 == 24:
            await hover_at(client, uri, 0, 1)  # a round trip: builds may start between
    last = version
    final = await published(client, uri, last)
    at_last = len(client.arrivals)
    # one more version, published: between the two, nothing of a version before `last`
    version += 1
    change(client, uri, version, (0, col + utf16(current)), (0, col + utf16(current)), "z")
    current += "z"
    await published(client, uri, version)
    versions = [v for u, v, _ in client.arrivals if u == uri]
    after = [v for u, v, _ in client.arrivals[at_last:] if u == uri]
    assert after and all(v > last for v in after)
    assert versions == sorted(versions), "a publication went back in versions"
    # the last burst version's findings are those of its text, opened afresh
    burst_text = text[:col] + current[:-1] + text[end:]
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "vocab.json").write_text(burst_text, encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=(fresh / "vocab.json").as_uri(), language_id="json", version=1, text=burst_text)
        )
    )
    expected = await published(client, (fresh / "vocab.json").as_uri(), 1)
    assert [(d.code, d.range, d.message) for d in final] == [(d.code, d.range, d.message) for d in expected]


async def test_a_soak_beside_merges_and_added_tokens_keeps_the_hover(client, tmp_path):
    """1000 one-character edits (words typed at the end of keys and deleted again) on a
    vocab.json with merges.txt and added_tokens.json beside it; then a key no edit touched
    answers its hover, with its bytes and id."""
    folder = tmp_path / "model"
    shutil.copytree(GPT2_STYLE, folder)
    text = (folder / "vocab.json").read_text(encoding="utf-8")
    vocab = json.loads(text)
    (folder / "added_tokens.json").write_text(json.dumps({"<|soak|>": max(vocab.values()) + 1}))
    uri = (folder / "vocab.json").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await published(client, uri, 1)
    entries = [e for e in one_line_entries(text) if all(ch in BYTE_OF for ch in e[2]) and len(e[2]) > 1]
    assert len(entries) > 20
    rng = random.Random(5)
    still, touched = entries[0], entries[1:]
    await first_hover(client, uri, 0, still[0] + 1)
    version, edits = 1, 0
    while edits < 1000:
        col, end, key, _ = rng.choice(touched)
        word = "".join(rng.choice("qxz") for _ in range(rng.randint(3, 6)))
        for j, ch in enumerate(word):
            version += 1
            change(client, uri, version, (0, end + j), (0, end + j), ch)
        for j in reversed(range(len(word))):
            version += 1
            change(client, uri, version, (0, end + j), (0, end + j + 1), "")
        edits += 2 * len(word)
        if version % 50 < 12:
            await hover_at(client, uri, 0, still[0] + 1)  # a round trip now and then
    await published(client, uri, version)
    h = await hover_at(client, uri, 0, still[0] + 1)
    assert h is not None
    assert f"id {vocab[still[2]]}" in h.contents.value and f"`{token_bytes_hex(still[2])}`" in h.contents.value
