"""What the server says when it refuses a file, and where: a broken file asked for by a
command is one line in the server's log (never a traceback), and a binary tokenizer file
opened as text is told to the user (window/showMessage) with the command that shows it.

The server's stderr reaches this process through pytest-lsp (its stderr forwarder), where
capfd reads it."""

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.harness import client  # noqa: F401

DATA = Path(__file__).parent.parent / "data" / "sentencepiece"
DECODED = "tokenizer-lsp.decodedVocabulary"


def gguf_file(folder: Path) -> Path:
    from tests.gguf_fixtures import converted, hf_folder, write_gguf

    return write_gguf(folder / "model.gguf", converted(hf_folder(folder / "hf")))


async def log_until(capfd, marker: str, seen: list[str], timeout: float = 20.0) -> str:
    """The server's stderr up to the line holding `marker` (it arrives after the answers)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while marker not in "".join(seen):
        if loop.time() > end:
            raise AssertionError(f"{marker!r} never logged; got:\n{''.join(seen)}")
        await asyncio.sleep(0.05)
        seen.append(capfd.readouterr().err)
    return "".join(seen)


async def refused(client, command: str, *uris: str) -> str:
    with pytest.raises(JsonRpcException) as e:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command=command, arguments=list(uris)))
    return str(e.value)


async def test_a_refused_broken_file_is_one_line_in_the_log(client: LanguageClient, tmp_path, capfd):
    gguf = gguf_file(tmp_path).read_bytes()
    cut_gguf = tmp_path / "cut.gguf"
    cut_gguf.write_bytes(gguf[: len(gguf) // 2])
    model = (DATA / "botchan_en_bpe_1000.model").read_bytes()
    cut_model = tmp_path / "cut.model"
    cut_model.write_bytes(model[: len(model) // 2])
    whole = tmp_path / "hf" / "tokenizer.json"
    cut_json = tmp_path / "tokenizer.json"
    cut_json.write_bytes(whole.read_bytes()[:3000])

    seen = [capfd.readouterr().err]
    messages = [
        await refused(client, DECODED, cut_gguf.as_uri()),
        await refused(client, DECODED, cut_model.as_uri()),
        await refused(client, "tokenizer-lsp.diff", cut_json.as_uri(), whole.as_uri()),
    ]
    # a marker after the refusals: the log lines before it are theirs
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=(tmp_path / "marker.json").as_uri(), language_id="json", version=1, text="{}")
        )
    )
    log = await log_until(capfd, "open marker.json", seen)

    assert "Traceback" not in log and "Exception occurred" not in log, log
    for name, message in zip(("cut.gguf", "cut.model", "tokenizer.json"), messages):
        lines = [line for line in log.splitlines() if name in line and "refused" in line]
        assert len(lines) == 1, (name, log)
        assert message.split(": ", 1)[-1] in lines[0]  # the reason the user was given


@pytest.mark.parametrize("kind", ["gguf", "model"])
async def test_a_binary_file_opened_as_text_is_told_with_its_command(client: LanguageClient, tmp_path, kind):
    path = gguf_file(tmp_path) if kind == "gguf" else DATA / "botchan_en_bpe_1000.model"
    # what an editor sends for a binary file it opens as text: its bytes decoded as UTF-8
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri, language_id="plaintext", version=1, text=path.read_bytes().decode("utf-8", "replace")
            )
        )
    )
    for _ in range(400):
        said = [m for m in client.messages if path.name in m.message]
        if said:
            break
        await asyncio.sleep(0.05)
    assert len(said) == 1, [m.message for m in client.messages]
    message = said[0].message
    assert "binary" in message and DECODED in message and f"tokenizer-lsp decode {path.name}" in message
    # what the message names works on that file
    r = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=DECODED, arguments=[uri]))
    assert r["rows"] > 0


async def test_a_decoded_view_under_the_binary_files_name_is_not_told(client: LanguageClient, tmp_path):
    """Neovim, Vim and Emacs show the view in a buffer named after the binary file: that
    buffer is the view, not the bytes."""
    path = DATA / "botchan_en_bpe_1000.model"
    r = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=DECODED, arguments=[path.as_uri()])
    )
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=path.as_uri(), language_id="tokenizerview", version=1, text=r["text"])
        )
    )
    # an answer after the didOpen: a message from it would have come before
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command=DECODED, arguments=[path.as_uri()]))
    assert not [m for m in client.messages if path.name in m.message]
