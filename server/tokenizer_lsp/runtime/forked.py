"""Run one pure function in a forked child while the parent does other work.

The merge check (hash lookups for 500k merges) and the vocabulary checks are
independent and each take a good part of a second on the largest files; the machines
we target have two cores. A forked child sees the parsed vocabulary for free
(copy-on-write), computes, and sends back a small pickled result. Anything that goes
wrong (no fork on this platform, a crash, a timeout) falls back to running in-process.

Give the child the work that walks the parsed objects: in CPython even reading an
object writes its reference count, and while the child lives each first write to a
shared page faults in a copy. A parent that walked a 260k-token vocabulary after the
fork ran 30% slower, in page faults that also stall the event loop's thread.
"""

from __future__ import annotations

import io
import os
import pickle
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..core.seams import Cancelled, DetachedWorkLost

NICENESS = 10
_here = threading.local()  # .niceness: set by waited_for() for the children this thread forks
_forking = threading.Lock()  # a fork, its before_fork callbacks and its registration, one at a time
_live: set[int] = set()  # this process's forked children not yet reaped
_before_fork: list[Callable[[], None]] = []  # called in the parent before each fork


@contextmanager
def waited_for() -> Iterator[None]:
    """core.seams.waited_for: the children this thread forks meanwhile run at this process's
    own priority. NICENESS keeps a core for the event loop while a re-parse's child works
    (hovers answer from the older index); a document's first index has no older one, and at
    nice 10 its child got a sliver of a core whenever other work ran on the machine, while
    the user waited for its findings (`Tokenizer.from_file`, the bar, runs at nice 0)."""
    before = getattr(_here, "niceness", None)
    _here.niceness = 0
    try:
        yield
    finally:
        _here.niceness = before


def live_children() -> int:
    """How many children forked here are alive (not yet reaped)."""
    return len(_live)


def before_fork(callback: Callable[[], None]) -> None:
    """Have callback() called before each fork (in the forking thread): a holder of memory
    in another child (engine/reachability_child.py) lets it go before a build's child starts."""
    _before_fork.append(callback)


class Busy(Exception):
    """run_in_child(alone=True) while another child of this process is alive."""


def _kill(pid: int | None) -> None:
    """SIGKILL a child that may already be gone (reaped by its reader's thread)."""
    if pid:
        try:
            os.kill(pid, 9)
        except (ProcessLookupError, PermissionError):
            pass


class ChildFailed(Exception):
    """The child died, was killed, timed out or raised (run_in_child)."""


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32"


def _die_with(parent: int) -> None:
    """A child outlives nothing: when the server exits (or is killed) mid-check, the
    child gets SIGKILL (Linux); editors count a server's processes after they stop it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


class _PipeReader:
    """The read end of the child's pipe as a file for pickle.load, with one deadline."""

    def __init__(self, fd: int, deadline: float) -> None:
        self.fd, self.deadline = fd, deadline

    def _chunk(self, n: int) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            raise TimeoutError("the forked child took too long")
        return os.read(self.fd, n)

    def read(self, n: int = -1) -> bytes:
        parts, want = [], n
        while want != 0:
            chunk = self._chunk(1 << 20 if want < 0 else min(want, 1 << 20))
            if not chunk:
                break
            parts.append(chunk)
            if want > 0:
                want -= len(chunk)
        return b"".join(parts)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self) -> bytes:
        out = bytearray()
        while not out.endswith(b"\n"):
            c = self.read(1)
            if not c:
                break
            out += c
        return bytes(out)


def _fork(
    child: Callable[[int], None],
    niceness: int = NICENESS,
    alone: bool = False,
    started: Callable[[int], None] | None = None,
) -> tuple[int, int]:
    """(pid, read end of its pipe) of a child that runs child(write end) and exits at
    `niceness` (or its parent's, when higher); (0, -1) when there is no fork here or it
    failed. `alone`: only when no other child of this process is alive, else Busy.
    `started(pid)` is told before any other fork can happen (the before_fork callbacks of
    the next one see it)."""
    if not can_fork():
        return 0, -1
    wanted = getattr(_here, "niceness", None)
    if wanted is not None:
        niceness = min(niceness, wanted)
    with _forking:
        if alone and _live:
            raise Busy()
        for callback in list(_before_fork):
            try:
                callback()
            except Exception:  # noqa: BLE001, S110 (letting memory go is a courtesy: the fork goes on)
                pass
        parent = os.getpid()
        try:
            r, w = os.pipe()
        except OSError:
            return 0, -1
        try:
            pid = os.fork()
        except OSError:  # EAGAIN, ENOMEM: the pipe must not outlive the attempt (one per check)
            os.close(r)
            os.close(w)
            return 0, -1
        if pid == 0:  # child: compute, send, leave without running any cleanup
            status = 0
            try:
                _after_fork_in_child()
                os.close(r)
                _die_with(parent)
                # on two cores, this child and the indexer thread would leave none for the
                # event loop: let the scheduler prefer it (hovers) when it needs a core. At
                # NICENESS, not that much below a parent already there (the engine worker):
                # there it would starve behind the server's own children
                os.nice(max(0, niceness - os.nice(0)))
                child(w)
            except BaseException:  # noqa: BLE001 (the parent sees a failed child and computes it itself)
                status = 1
            finally:
                os._exit(status)
        os.close(w)
        _live.add(pid)
        if started is not None:
            started(pid)
    return pid, r


def _after_fork_in_child() -> None:
    """A child starts with no children and no callbacks of its parent's, and a fresh lock
    (the parent's was held by the forking thread, which does not exist here)."""
    global _forking
    _forking = threading.Lock()
    _live.clear()
    _before_fork.clear()


def _send(w: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(w, view)
        view = view[n:]


def _reap(pid: int, fd: int) -> None:
    os.close(fd)
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass
    _live.discard(pid)


def run_in_child(
    fn: Callable[..., Any],
    *args: Any,
    timeout: float = 600.0,
    started: Callable[[int], None] | None = None,
    niceness: int = NICENESS,
    alone: bool = False,
) -> Any:
    """fn(*args) computed in a forked child, with no fallback here: ChildFailed when there
    is no fork or the child fails (a caller that killed it, through the pid given to
    `started`, decides what then). For work whose memory must leave with the child.
    `alone`: Busy, without forking, while another child of this process is alive (checked
    and forked under one lock: no other child can start in between)."""
    pid, fd = _fork(
        lambda w: _send(w, pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)), niceness, alone, started
    )
    if not pid:
        raise ChildFailed("no fork here")
    try:
        return pickle.load(_PipeReader(fd, time.monotonic() + timeout))
    except Exception as e:  # noqa: BLE001 (died, killed, timed out, corrupt)
        raise ChildFailed(str(e) or type(e).__name__) from None
    finally:
        _reap(pid, fd)


class Forked:
    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.fn, self.args = fn, args
        self.cancelled = False
        self.pid, self.fd = _fork(lambda w: _send(w, pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)))

    def result(self, timeout: float = 60.0) -> Any:
        if self.pid and self.cancelled:
            self._reap()
        if self.pid:
            try:
                # unpickled as it arrives: a result of several MB is never held twice (the
                # bytes and the objects), which would raise the server's peak memory
                return pickle.load(_PipeReader(self.fd, time.monotonic() + timeout))
            except Exception:  # noqa: BLE001, S110 (died, timed out, corrupt: the same result computed here)
                pass
            finally:
                self._reap()
        if self.cancelled:  # killed by cancel(): not computed here either
            raise Cancelled()
        return self.fn(*self.args)

    def cancel(self) -> None:
        """The result is not wanted (any thread: a cancelled request, lsp/work.py): the
        child is killed now, and result() raises Cancelled rather than compute it here.
        The reader's thread reaps it (result), never this one under its feet."""
        self.cancelled = True
        _kill(self.pid)

    def detach(self) -> None:
        """Let go of the arguments: the child has its own copy of them. A child that
        then fails leaves nothing to compute the result from here (DetachedWorkLost)."""
        if not self.pid:  # no child: computed now, as InProcess does
            value = self.fn(*self.args)
            self.fn, self.args = (lambda: value), ()
        else:
            self.fn, self.args = _failed, ()

    def __del__(self) -> None:
        # a result never asked for (the caller raised in between): no zombie, no open pipe
        if self.pid:
            self._reap()

    def _reap(self) -> None:
        _reap(self.pid, self.fd)
        self.pid = 0


def _failed() -> Any:
    raise DetachedWorkLost("the child computing it failed after its arguments were let go of")


class _SharedPickler(pickle.Pickler):
    """Objects of `shared` (which the parent holds too) go by their place in it."""

    def __init__(self, file, shared: tuple) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = {id(o): k for k, o in enumerate(shared)}

    def persistent_id(self, obj):
        return self.shared.get(id(obj))


class _SharedUnpickler(pickle.Unpickler):
    def __init__(self, file, shared: tuple) -> None:
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid):
        return self.shared[pid]


class ForkedStages:
    """core.seams.stages_in_child in a forked child: each value of the generator is sent
    as soon as it is made (objects of `shared` by reference, not copied), and read by
    next_stage(). When the child fails at some stage, that stage and the later ones are
    computed here (the generator run again, the values already taken skipped)."""

    def __init__(self, fn: Callable[..., Iterator[Any]], *args: Any, shared: tuple = ()) -> None:
        self.fn, self.args, self.shared = fn, args, shared
        self.taken = 0
        self.here: Iterator[Any] | None = None
        self.cancelled = False

        def child(w: int) -> None:
            for value in fn(*args):
                buffer = io.BytesIO()
                _SharedPickler(buffer, shared).dump(value)
                _send(w, buffer.getbuffer())

        self.pid, self.fd = _fork(child)

    def next_stage(self, timeout: float = 60.0) -> Any:
        if self.cancelled:
            self.close()
            raise Cancelled()
        if self.pid:
            try:
                value = _SharedUnpickler(_PipeReader(self.fd, time.monotonic() + timeout), self.shared).load()
                self.taken += 1
                return value
            except Exception:  # noqa: BLE001 (died, timed out, corrupt: from here on, computed here)
                self.close()
                if self.cancelled:  # killed by cancel(): not computed here either
                    raise Cancelled() from None
        if self.here is None:
            self.here = self.fn(*self.args)
            for _ in range(self.taken):
                next(self.here)
        self.taken += 1
        return next(self.here)

    def cancel(self) -> None:
        """The stages not taken yet are not wanted (called from any thread): the child is
        killed now, so a build for a replaced version stops using a core at once; the
        reader sees its pipe end and raises Cancelled. The fd is closed by the reader's
        thread (close), never here under its feet."""
        self.cancelled = True
        _kill(self.pid)

    def close(self) -> None:
        if self.pid:
            _reap(self.pid, self.fd)
            self.pid = 0

    def __del__(self) -> None:
        self.close()


def isolated(fn: Callable[..., Any], *args: Any) -> Any:
    """core.seams.isolated in a forked child (a chat template's checks: pure, small result);
    in-process where there is no fork or the child fails, as the default does. The child has
    its own interpreter: the parent's event loop and hovers never wait for its GIL."""
    try:
        return run_in_child(fn, *args, timeout=30.0)  # niceness 10: the server keeps the cores first
    except ChildFailed:
        return fn(*args)
