"""The seams where optional speed-ups plug in; plain Python until `runtime.install()`.

The core must give the same answers with or without them: each default here is the
reference behaviour, and the runtime's replacements are tested against it (fork absent,
failing, the child dying or timing out; copies made by memmove or by join).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

# Below this many items (tokens + merges) running work in a forked child costs more than it saves.
MIN_PARALLEL_WORK = 100_000


class DetachedWorkLost(Exception):
    """Work beside failed after its caller had let go of the arguments (detach): the
    caller computes it again from what it holds now."""


class Cancelled(Exception):
    """The work was for a version a newer one replaced: dropped, not finished."""


class CancelToken:
    """Told from another thread that the work it goes with is no longer wanted: work in
    stages checks it between them; work in a forked child registers how to stop itself (on_cancel)."""

    __slots__ = ("_lock", "_stops", "cancelled")

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._stops: list[Callable[[], None]] = []
        self.cancelled = False

    def cancel(self) -> None:
        with self._lock:
            if self.cancelled:
                return
            self.cancelled, stops, self._stops = True, self._stops, []
        for stop in stops:
            stop()

    def on_cancel(self, stop: Callable[[], None]) -> None:
        with self._lock:
            if not self.cancelled:
                self._stops.append(stop)
                return
        stop()

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled()


class InProcess:
    """Runs fn(*args) when the result is asked for: the reference for `in_child`."""

    __slots__ = ("args", "cancelled", "fn")

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.fn, self.args = fn, args
        self.cancelled = False

    def result(self) -> Any:
        if self.cancelled:
            raise Cancelled()
        return self.fn(*self.args)

    def cancel(self) -> None:
        """Not wanted any more (any thread): result() raises Cancelled if not yet begun
        (work in progress here cannot be stopped; a forked child is killed)."""
        self.cancelled = True

    def detach(self) -> None:
        """Let go of the arguments (a whole index, while an edit makes the next one):
        here that means computing now."""
        value = self.fn(*self.args)
        self.fn, self.args = (lambda: value), ()


class InProcessStages:
    """Runs the generator function fn(*args) here, one of its values per next_stage(): the
    reference for `stages_in_child`. `shared` names objects the caller holds (the text):
    only a process that sends its stages back by copy has to tell them apart."""

    __slots__ = ("_stages", "cancelled")

    def __init__(self, fn: Callable[..., Iterator[Any]], *args: Any, shared: tuple = ()) -> None:
        self._stages = fn(*args)
        self.cancelled = False

    def next_stage(self) -> Any:
        if self.cancelled:
            raise Cancelled()
        return next(self._stages)

    def cancel(self) -> None:
        """The stages not taken yet are not wanted (any thread): next_stage raises Cancelled."""
        self.cancelled = True

    def close(self) -> None:
        self._stages.close()


def plain_splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    """data[:start] + new + data[end:]."""
    view = memoryview(data)
    return b"".join((view[:start], new, view[end:]))


def no_op() -> None:
    return None


# Work that may run in parallel with the caller: in_child(fn, *args).result() == fn(*args);
# after .detach() it holds no argument, and .result() raises DetachedWorkLost where the
# reference would have computed fn(*args) again; after .cancel() (any thread) .result()
# raises Cancelled (a forked child is killed).
in_child: Callable[..., Any] = InProcess
# The same for a generator function, each value as soon as it is made: the k-th
# next_stage() of stages_in_child(fn, *args, shared=objs) == the k-th value of fn(*args).
stages_in_child: Callable[..., Any] = InProcessStages
# A new version of a document's bytes.
splice: Callable[[bytes, int, int, bytes], bytes] = plain_splice
# Give memory freed by a dropped index back to the system.
release_memory: Callable[[], None] = no_op
# `with waited_for():` around work a user waits on while nothing else is served (a
# document's first index: no older one answers hovers meanwhile): the work in a forked child runs
# at the caller's own priority, not below it. The reference has nothing beside: no-op.
waited_for: Callable[[], AbstractContextManager] = nullcontext


def plain_isolated(fn: Callable[..., Any], *args: Any) -> Any:
    """Run untrusted work (a chat template's renders) where a runaway cannot stall the
    caller's other work. The default runs it here: the sandbox's own deadline still stops
    it. The server replaces it (runtime.forked.isolated) with a forked child, so a template
    that loops for its whole deadline never holds the server's interpreter."""
    return fn(*args)


isolated: Callable[..., Any] = plain_isolated


def reset() -> None:
    """Back to the plain reference behaviour (tests): every seam, `isolated` included (left
    forked, each later chat-template check in the process paid a fork)."""
    global in_child, stages_in_child, splice, release_memory, waited_for, isolated
    in_child, stages_in_child, splice, release_memory = InProcess, InProcessStages, plain_splice, no_op
    waited_for, isolated = nullcontext, plain_isolated
