"""Background requests can be cancelled (lsp/work.py): `$/cancelRequest` for a slow command
is answered RequestCancelled at once, and a newer version of a document a command read
makes it answer ContentModified (never a result for the text the client no longer has);
the server serves on after both."""

import asyncio
import os
import shutil
import sys

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from tests.conftest import corpus_file, process_state
from tests.lsp.harness import change, diagnostics_for_version, find, make_fixture, open_doc
from tests.lsp.test_refusals_in_the_log import log_until
from tests.lsp_idle import IDLE, answered_idle, wait_idle

client = make_fixture()
DIFF = "tokenizer-lsp.diff"


def _send(client: LanguageClient, command: str, arguments: list, msg_id: str):
    """The request's future; its id is ours, for $/cancelRequest."""
    fut = client.protocol.send_request(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(command=command, arguments=arguments), msg_id=msg_id
    )
    return asyncio.wrap_future(fut)


def _live_children(pid: int) -> list[int]:
    """The server's child processes that are not zombies (read from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and process_state(int(entry)) not in (None, "Z"):
            out.append(int(entry))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's children from /proc")
async def test_cancel_request_stops_the_work_and_the_server_serves_on(client: LanguageClient, capfd):
    gemma, qwen = corpus_file("gemma3/tokenizer.json"), corpus_file("qwen3/tokenizer.json")
    llama2 = corpus_file("llama2/tokenizer.json")
    seen = [capfd.readouterr().err]
    # two large files read from disk and compared in a forked child: seconds of work
    slow = _send(client, DIFF, [str(gemma), str(qwen)], "slow-diff")
    # answered once the command has begun (tasks run in the order they were started)
    assert answered_idle(await client.protocol.send_request_async(IDLE, None))
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="slow-diff"))
    with pytest.raises(JsonRpcRequestCancelled):
        await slow
    # stopped, not left to finish: no child of the server computes it any more (a killed
    # one is at most a zombie until its thread reaps it)
    assert _live_children(client._server.pid) == []
    await log_until(capfd, f"{DIFF} cancelled: its work is stopped", seen)
    # serving on: a file compared with itself is the same
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=DIFF, arguments=[str(llama2), str(llama2)])
    )
    assert result["same"] is True
    await wait_idle(client)


async def test_a_newer_version_cancels_a_command_that_read_the_older(client: LanguageClient, tmp_path):
    src = corpus_file("llama2/tokenizer.json")
    gemma = corpus_file("gemma3/tokenizer.json")
    path = tmp_path / "tokenizer.json"
    shutil.copyfile(src, path)
    uri, text = path.as_uri(), path.read_text(encoding="utf-8")
    await open_doc(client, uri, text)
    await wait_idle(client)
    stale = _send(client, DIFF, [uri, str(gemma)], "stale-diff")
    # answered after the command's first step, which read version 1 (tasks run in the
    # order they were started): the change below comes after that read
    assert answered_idle(await client.protocol.send_request_async(IDLE, None))
    line, col = find(text, '"<unk>": 0')
    change(client, uri, 2, (line, col + 1), (line, col + 6), "<UNK>")
    with pytest.raises(JsonRpcException) as e:  # pygls' client knows no class for this code
        await stale
    assert e.value.code == JsonRpcContentModified.CODE  # -32801, LSP's ContentModified
    # the command asked again reads the new version (once it is indexed: a command waits
    # at most 5 s for an index under way, then answers the last one, and on a loaded
    # machine this one took 7 s; session.SETTLE_S)
    await diagnostics_for_version(client, uri, 2)
    stats = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="tokenizer-lsp.stats", arguments=[uri])
    )
    assert stats["version"] == 2
    await wait_idle(client)
