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

import os
import pickle
import select
import sys
import time
from collections.abc import Callable
from typing import Any

NICENESS = 10


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


class Forked:
    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.fn, self.args = fn, args
        self.pid = 0
        self.fd = -1
        if not hasattr(os, "fork") or sys.platform == "win32":
            return
        parent = os.getpid()
        try:
            r, w = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:  # EAGAIN, ENOMEM: the pipe must not outlive the attempt (one per check)
            os.close(r)
            os.close(w)
            return
        if pid == 0:  # child: compute, send, leave without running any cleanup
            status = 0
            try:
                os.close(r)
                _die_with(parent)
                # on two cores, this child and the indexer thread would leave none for the
                # event loop: let the scheduler prefer it (hovers) when it needs a core
                os.nice(NICENESS)
                payload = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
                view = memoryview(payload)
                while view:
                    n = os.write(w, view)
                    view = view[n:]
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        os.close(w)
        self.pid, self.fd = pid, r

    def result(self, timeout: float = 60.0) -> Any:
        if self.pid:
            try:
                # unpickled as it arrives: a result of several MB is never held twice (the
                # bytes and the objects), which would raise the server's peak memory
                return pickle.load(_PipeReader(self.fd, time.monotonic() + timeout))
            except Exception:  # died, timed out, corrupt: the same result computed here
                pass
            finally:
                self._reap()
        return self.fn(*self.args)

    def __del__(self) -> None:
        # a result never asked for (the caller raised in between): no zombie, no open pipe
        if self.pid:
            self._reap()

    def _reap(self) -> None:
        os.close(self.fd)
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass
        self.pid = 0
