"""A background request's cancel token (lsp/work.py): a newer version of a document it read
and `$/cancelRequest` (pygls cancels its task) trip it; the thread work it waits for stops
being waited for at once, and work in a forked child is killed. Every wait here is on an
event the work itself sets: no timing."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest
from pygls.exceptions import JsonRpcContentModified
from tokenizer_lsp.core import seams
from tokenizer_lsp.core.text.edits import Change
from tokenizer_lsp.lsp import work
from tokenizer_lsp.lsp.session import Session
from tokenizer_lsp.runtime import forked

URI, OTHER = "file:///t/tokenizer.json", "file:///t/vocab.json"


class _Ls:
    def __init__(self) -> None:
        self.session = Session()
        self.session.open(URI, 1, "{}")
        self.session.open(OTHER, 1, "{}")


def _blocking():
    """(work that waits until released, its `started` and `release` events)."""
    started, release = threading.Event(), threading.Event()

    def blocked() -> str:
        started.set()
        release.wait()
        return "done"

    return blocked, started, release


async def _started(event: threading.Event) -> None:
    await asyncio.get_running_loop().run_in_executor(None, event.wait)


def test_a_newer_version_cancels_a_request_that_read_the_older():
    blocked, started, release = _blocking()
    seen = []

    async def handler(ls, params):
        version, _ = await ls.session.current_text(URI)
        seen.append(version)
        return await work.off_loop(work.Mode.BACKGROUND, work.current_token(), blocked)

    async def main():
        ls = _Ls()
        task = asyncio.ensure_future(work.background_request(handler)(ls, None))
        await _started(started)
        ls.session.change(URI, 2, [Change("{ }")])
        with pytest.raises(JsonRpcContentModified):
            await task
        release.set()
        assert seen == [1]
        # the next request reads the new version, and is answered
        blocked2, started2, release2 = _blocking()
        release2.set()

        async def again(ls, params):
            version, _ = await ls.session.current_text(URI)
            return version, await work.off_loop(work.Mode.BACKGROUND, work.current_token(), blocked2)

        assert await work.background_request(again)(ls, None) == (2, "done")

    asyncio.run(main())


def test_a_change_elsewhere_cancels_nothing():
    blocked, started, release = _blocking()

    async def handler(ls, params):
        await ls.session.current_text(URI)
        return await work.off_loop(work.Mode.BACKGROUND, work.current_token(), blocked)

    async def main():
        ls = _Ls()
        task = asyncio.ensure_future(work.background_request(handler)(ls, None))
        await _started(started)
        ls.session.change(OTHER, 2, [Change("[]")])  # another document
        ls.session.change(URI, 1, [Change("{}")])  # not newer than what it read
        assert not task.done()
        release.set()
        assert await task == "done"

    asyncio.run(main())


def test_closing_the_document_cancels_the_request():
    blocked, started, release = _blocking()

    async def handler(ls, params):
        await ls.session.current_text(URI)
        return await work.off_loop(work.Mode.BACKGROUND, work.current_token(), blocked)

    async def main():
        ls = _Ls()
        task = asyncio.ensure_future(work.background_request(handler)(ls, None))
        await _started(started)
        ls.session.close(URI)
        with pytest.raises(JsonRpcContentModified):
            await task
        release.set()

    asyncio.run(main())


def test_cancel_request_trips_the_token():
    """pygls answers $/cancelRequest by cancelling the request's task: the token it
    carries is tripped, so what it started stops too."""
    blocked, started, release = _blocking()
    tokens = []

    async def handler(ls, params):
        tokens.append(work.current_token())
        return await work.off_loop(work.Mode.BACKGROUND, work.current_token(), blocked)

    async def main():
        task = asyncio.ensure_future(work.background_request(handler)(_Ls(), None))
        await _started(started)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        assert tokens[0].cancelled and work.answered(tokens[0])

    asyncio.run(main())


def test_off_loop_ends_the_wait_once_tripped():
    blocked, started, release = _blocking()

    async def main():
        token = seams.CancelToken()
        waiting = asyncio.ensure_future(work.off_loop(work.Mode.BACKGROUND, token, blocked))
        await _started(started)
        token.cancel()  # as from another thread: the wait ends though the thread still runs
        with pytest.raises(seams.Cancelled):
            await waiting
        release.set()

    asyncio.run(main())


def test_off_loop_without_a_token_is_the_plain_call():
    async def main():
        return await work.off_loop(work.Mode.LATENCY, None, sum, [1, 2, 3])

    assert asyncio.run(main()) == 6


def _forever_in_a_child(parent: int) -> str:
    while os.getpid() != parent:  # in the child: never done
        time.sleep(1)
    return "computed in the parent"


def test_the_in_process_reference_is_not_computed_once_cancelled():
    job = seams.InProcess(_forever_in_a_child, os.getpid())
    job.cancel()
    with pytest.raises(seams.Cancelled):
        job.result()


@pytest.mark.skipif(not forked.can_fork(), reason="no fork on this platform")
def test_a_cancelled_forked_child_is_killed_not_computed_here():
    job = forked.Forked(_forever_in_a_child, os.getpid())
    pid = job.pid
    job.cancel()
    with pytest.raises(seams.Cancelled):
        job.result(timeout=60.0)  # the killed child's pipe ends at once
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped
