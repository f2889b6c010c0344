"""The engine helper process waits while the server indexes a new version
(EngineClient.pause/resume, called around a build: lsp/jobs/indexing.py): on two cores its work (a set
for a version already replaced, with the engine's threads) took the cores from the build's
own child, and a re-parse of gemma3 took 1.8 s instead of 0.7."""

from __future__ import annotations

import asyncio
import os
import sys
from types import SimpleNamespace

import pytest
from tokenizer_lsp.lsp import scheduler as scheduling
from tokenizer_lsp.lsp.documents import DocumentState
from tokenizer_lsp.lsp.engine_client import EngineClient
from tokenizer_lsp.lsp.jobs import indexing
from tokenizer_lsp.lsp.session import Session

from tests.conftest import ROOT, process_state

EXAMPLE = ROOT / "examples" / "tokenizer.json"
URI = "file:///work/tokenizer.json"
linux_proc = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process states in /proc")


async def until(predicate, timeout: float = 10.0) -> bool:
    for _ in range(int(timeout / 0.01)):
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


def spy_signals(monkeypatch) -> list[str]:
    """The names of the signals the client really sends from now on (its kill() calls),
    recorded as they go out: what the tests wait on instead of sleeping."""
    import signal as signals

    from tokenizer_lsp.runtime import processes

    sent: list[str] = []
    real_kill, real_killpg = processes.os.kill, processes.os.killpg

    class Os:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def kill(pid, sig):
            sent.append(signals.Signals(sig).name)
            return real_kill(pid, sig)

        @staticmethod
        def killpg(pgid, sig):
            sent.append(signals.Signals(sig).name)
            return real_killpg(pgid, sig)

    monkeypatch.setattr(processes, "os", Os())  # undone after the test
    return sent


@linux_proc
async def test_pause_stops_the_worker_and_its_group_until_the_last_resume(monkeypatch):
    client = EngineClient()
    try:
        pid = await client.ping()
        if sys.version_info >= (3, 11):
            # its own process group: what it forks (a child reading the merges) stops with it
            assert os.getpgid(pid) == pid != os.getpgid(0)
        # ... but the server's session: Linux's autogroup weighs a session of its own as
        # much as the server's, whatever the worker's nice value
        assert os.getsid(pid) == os.getsid(0)
        sent = spy_signals(monkeypatch)
        client.pause()
        client.pause()
        assert await until(lambda: process_state(pid) == "T")
        client.resume()
        # one pause still holds it: no SIGCONT went out (a SIGCONT wakes a stopped process
        # within the kill() that sends it, so the state read now is the state it keeps)
        assert sent == ["SIGSTOP"] and process_state(pid) == "T"
        client.resume()
        assert await until(lambda: process_state(pid) != "T")
        # and it answers as before
        data = EXAMPLE.read_bytes()
        got = await client.encode(("e", 1), data, str(EXAMPLE), None, "hello")
        from tokenizers import Tokenizer

        assert got["ids"] == Tokenizer.from_file(str(EXAMPLE)).encode("hello", add_special_tokens=False).ids
        client.resume()  # one too many: nothing to undo, no error
        assert client.pid == pid
    finally:
        client.close()


@linux_proc
async def test_a_request_sent_while_paused_is_answered_after_resume():
    client = EngineClient()
    try:
        pid = await client.ping()
        client.pause()
        assert await until(lambda: process_state(pid) == "T")
        task = asyncio.ensure_future(client.ping())
        await asyncio.sleep(0)  # the request goes out to a process the kernel holds stopped
        assert process_state(pid) == "T" and not task.done()
        client.resume()
        assert await asyncio.wait_for(task, 30) == pid
    finally:
        client.close()


def test_pause_without_a_worker_does_nothing():
    client = EngineClient()
    client.pause()
    client.resume()
    assert client.pid is None and client.starts == 0


class RecordingEngine:
    """What the scheduler asks of the engine client, in order."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.paused = 0

    def pause(self) -> None:
        self.paused += 1
        self.calls.append("pause")

    def resume(self) -> None:
        self.paused -= 1
        self.calls.append("resume")

    async def ping(self) -> int:
        return 0

    async def unreachable(self, *args, **kwargs) -> list:
        return []


def scheduler_with(engine: RecordingEngine) -> tuple[scheduling.Scheduler, list]:
    session = Session()
    published: list = []
    server = SimpleNamespace(
        session=session,
        engine=engine,
        protocol=SimpleNamespace(notify_json=lambda method, params: published.append(params)),
        workspace_inlay_hint_refresh=lambda _: None,
        workspace_diagnostic_refresh=lambda _: None,
    )
    return scheduling.Scheduler(session, server), published


@pytest.mark.parametrize("fails", [False, True])
async def test_the_engine_waits_while_a_version_is_built(monkeypatch, fails):
    engine = RecordingEngine()
    scheduler, published = scheduler_with(engine)
    real_build = indexing.Indexing._index
    seen: list[int] = []

    def build(self, *args, **kwargs):
        seen.append(engine.paused)  # the indexer thread: paused by now
        if fails:
            raise RuntimeError("a bug in the build")
        return real_build(self, *args, **kwargs)

    monkeypatch.setattr(indexing.Indexing, "_index", build)
    data = EXAMPLE.read_bytes()
    doc = scheduler.session.documents[URI] = DocumentState(uri=URI, path=str(EXAMPLE), version=1, data=data)
    try:
        scheduler.schedule(doc, 0)
        await asyncio.wait_for(doc.jobs.settled.wait(), 30)
        assert seen == [1]
        assert engine.paused == 0 and engine.calls[:2] == ["pause", "resume"]
        # a build that fails still lets the engine go on; one that works publishes
        assert bool(published) is not fails
    finally:
        scheduler.indexer.shutdown(wait=True)
        scheduler.navigator.shutdown(wait=False)


@linux_proc
async def test_a_worker_not_yet_started_is_not_stopped(monkeypatch):
    """Before its first answer a worker may not have armed PR_SET_PDEATHSIG: stopped then,
    it would outlive a server that dies meanwhile."""
    client = EngineClient()
    try:
        proc = client._running()  # started, never asked anything
        sent = spy_signals(monkeypatch)
        client.pause()
        assert sent == [] and process_state(proc.pid) != "T"  # no SIGSTOP was sent
        client.resume()
        assert await client.ping() == proc.pid
    finally:
        client.close()


SERVER_DIES_WHILE_PAUSED = """
import asyncio, os, sys
from tokenizer_lsp.lsp.engine_client import EngineClient

async def main():
    client = EngineClient()
    pid = await client.ping()
    client.pause()
    print(pid, flush=True)
    os._exit(0)  # as the server's exit notification leaves, or a crash: no resume

asyncio.run(main())
"""


@linux_proc
def test_a_worker_stopped_when_its_server_dies_does_not_stay_behind():
    import subprocess
    import time

    out = subprocess.run(
        [sys.executable, "-c", SERVER_DIES_WHILE_PAUSED], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    pid = int(out.split()[0])
    deadline = time.monotonic() + 10
    while process_state(pid) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_state(pid) in (None, "Z")
