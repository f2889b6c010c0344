"""How work runs: the modes of the routing table (lsp/routes.py), the cancel token of a
background request, and the one function that sends work off the event loop.

The event loop reads every message and answers every request; nothing on it may take
long, or hovers wait. What takes long runs in a thread (`off_loop`): a job's own thread
(the indexer, the navigator: lsp/scheduler.py), the loop's default pool for what a
request the user waits for needs, or the background pool for commands that may take
seconds. A background request carries a `CancelToken`: `$/cancelRequest` trips it (pygls
cancels the request's task), and so does a newer version of a document it read (the
session binds the token to the version it gave out). A tripped request stops waiting at
once; work it started in a forked child is stopped through the token (`on_cancel`); a
thread already running finishes and its result is dropped.
"""

from __future__ import annotations

import asyncio
import contextvars
import enum
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pygls.exceptions import JsonRpcContentModified

from ..core import seams

log = logging.getLogger("tokenizer_lsp")


class Mode(enum.Enum):
    # on the event loop, in the order the messages came, before the next one is read: text
    # sync (the indexer relies on it) and what must be true before any request is answered
    SYNC = "sync"
    # a request the user waits for while typing (hover, hints, navigation): answered on the
    # loop from snapshots; the little thread work it needs goes to the loop's default pool
    LATENCY = "latency"
    # may take seconds (commands, large edits): a task with a cancel token, its thread work
    # in the background pool, so it never queues before a hover's
    BACKGROUND = "background"


BACKGROUND_THREADS = 2  # a diff and a listing at once; more would only share the 2 cores
_background: ThreadPoolExecutor | None = None


def _pool(mode: Mode):
    global _background
    if mode is not Mode.BACKGROUND:
        return None  # the loop's default pool
    if _background is None:
        _background = ThreadPoolExecutor(max_workers=BACKGROUND_THREADS, thread_name_prefix="background")
    return _background


# the token of the background request whose task is running (asyncio tasks copy it)
_current: contextvars.ContextVar[seams.CancelToken | None] = contextvars.ContextVar("request_token", default=None)


_running: set[seams.CancelToken] = set()  # the tokens of background requests not yet answered


def current_token() -> seams.CancelToken | None:
    """The cancel token of the background request being handled, if any."""
    return _current.get()


def answered(token: seams.CancelToken) -> bool:
    """Whether the request of this token has been answered (nothing to cancel any more)."""
    return token not in _running


async def off_loop(mode: Mode, token: seams.CancelToken | None, fn: Callable[..., Any], *args: Any, pool=None) -> Any:
    """fn(*args) in a thread: `pool` (a job's own) or the pool of `mode`. With a token, a
    trip ends the wait at once with seams.Cancelled (the thread's result is dropped), and
    the task awaiting this being cancelled trips the token."""
    loop = asyncio.get_running_loop()
    if token is None:
        return await loop.run_in_executor(pool if pool is not None else _pool(mode), fn, *args)
    token.check()
    running = loop.run_in_executor(pool if pool is not None else _pool(mode), fn, *args)
    tripped = _tripped(loop, token)
    try:
        await asyncio.wait((running, tripped), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        token.cancel()
        running.add_done_callback(_drop)
        raise
    finally:
        tripped.cancel()
    if not running.done():
        running.add_done_callback(_drop)
        raise seams.Cancelled()
    return running.result()


def _tripped(loop: asyncio.AbstractEventLoop, token: seams.CancelToken) -> asyncio.Future:
    """A future done once the token is tripped (from any thread)."""
    tripped = loop.create_future()

    def trip() -> None:
        if not tripped.done():
            tripped.set_result(None)

    def tell() -> None:
        try:
            loop.call_soon_threadsafe(trip)
        except RuntimeError:  # the loop is closed (the server is leaving): nobody waits
            pass

    token.on_cancel(tell)
    return tripped


def _drop(fut: asyncio.Future) -> None:
    if not fut.cancelled() and fut.exception() is not None and not isinstance(fut.exception(), seams.Cancelled):
        log.info("work of a cancelled request failed: %s", fut.exception())


def in_child_result(token: seams.CancelToken | None, fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) computed in a forked child where the platform has fork (core.seams.in_child),
    waited for in the calling thread; the token being tripped stops the child."""
    job = seams.in_child(fn, *args)
    stop = getattr(job, "cancel", None)
    if token is not None and stop is not None:
        token.on_cancel(stop)
    return job.result()


def background_request(handler: Callable) -> Callable:
    """A background request's handler, run with a cancel token of its own: tripped by
    `$/cancelRequest` (pygls cancels this task: the client is answered RequestCancelled)
    or by a newer version of a document it read (answered ContentModified: ask again)."""

    async def run(ls, params):
        loop = asyncio.get_running_loop()
        token = seams.CancelToken()
        _running.add(token)
        reset = _current.set(token)
        try:
            task = asyncio.ensure_future(handler(ls, params))  # copies the context: its token
        finally:
            _current.reset(reset)
        tripped = _tripped(loop, token)
        try:
            await asyncio.wait((task, tripped), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            token.cancel()
            task.cancel()
            log.info("%s cancelled: its work is stopped", _what(params, handler))
            raise
        finally:
            tripped.cancel()
            _running.discard(token)
        if task.done() and not (token.cancelled and _was_cancelled(task)):
            return task.result()
        task.cancel()
        log.info("%s: a document it read changed; its work is stopped", _what(params, handler))
        raise JsonRpcContentModified("the document changed while this was computed: ask again")

    run.__name__ = run.__qualname__ = getattr(handler, "__qualname__", "background_request")
    run.__wrapped__ = handler
    return run


def _what(params, handler) -> str:
    """A request as the log names it: the command, else the handler's module."""
    command = getattr(params, "command", None)
    return command if isinstance(command, str) else getattr(handler, "__module__", "a request").rpartition(".")[2]


def _was_cancelled(task: asyncio.Future) -> bool:
    return task.cancelled() or isinstance(task.exception(), seams.Cancelled)
