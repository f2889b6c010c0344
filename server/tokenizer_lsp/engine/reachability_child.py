"""Unreachable sets computed in a short-lived forked child of the server, never the engine.

For a tokenizer.json (core/behaviour/reachability/fast.py: every BPE model without a prefix
space; WordPiece, WordLevel and Unigram have none) the set needs no engine: a child forked
from the server reads it off the text the server already holds (its pages are shared, not
copied) and exits, giving all its memory back at once. The engine helper process
(engine/worker.py) loaded `tokenizers` for it beside the server's own index and its
navigation child: three copies of the vocabulary at once (gemma3: 806 MB, where
`Tokenizer.from_file` needs 371).

Memory, not time, decides when it runs:
- it starts only once no other child of the server is alive (a build, checks, navigation
  lookups), so that two children never hold their working memory together;
- when another child is about to be forked meanwhile, this one is killed first
  (runtime/forked.before_fork) and started again once that one is gone;
- `release()` (the server calls it when it starts indexing a new version) kills it for
  good: its answer would be for a replaced version, and the caller asks again for the new one.

Where there is no fork (Windows), `compute` says so (NoFork) and the caller asks the engine
helper process, which reads the set the same way before it would load the engine.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
import weakref

from ..core.behaviour.reachability import cache as reachability_cache
from ..runtime import forked

log = logging.getLogger("tokenizer_lsp")
QUIET_POLL_S = 0.05
RESTARTS = 8  # killed by other children's forks this often: then the engine helper's way
# The child runs only while the server has no other child and is not building (release()),
# so it takes at most one core of two beside the event loop: at the niceness of the server's
# other children (10) a loaded machine starved it (qwen3's set 30 s instead of 3), and its
# memory is held for as long as it works
NICENESS = 0


class NoFork(Exception):
    """This way cannot run here (no fork, or killed too often): ask the engine helper."""


class Released(Exception):
    """release() was called while the set was computed: its version has been replaced."""


def light_unreachable(data: bytes, path: str | None) -> list | None:
    """What the child computes: the set, or None when the file needs the engine. On one
    core (the engine's matching of added tokens would take both): the event loop keeps
    the other."""
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # read by tokenizers at each batch
    # no cyclic collection here: a pass walks (and so writes to, copying the pages of) every
    # object the server holds, which this child otherwise shares with it; what it makes
    # itself makes no cycles worth collecting, and all of it goes when it exits
    gc.disable()
    from ..core.behaviour.reachability.fast import unreachable_by_structure

    return unreachable_by_structure(data, path, other_models_empty=True)


class ReachabilityChild:
    """One computation at a time (the engine client's thread calls compute)."""

    def __init__(self) -> None:
        self._owner = os.getpid()
        self._pid = 0  # the child computing now
        self._lock = threading.Lock()
        self._released = False
        self._running = False
        self.children = 0  # children started (tests, logs)
        me = weakref.ref(self)  # the hook must not keep a closed client alive

        def other_fork() -> None:
            this = me()
            if this is not None:
                this._other_fork()

        forked.before_fork(other_fork)

    def compute(self, data: bytes, path: str | None, timeout: float) -> list | None:
        """The set of a tokenizer.json with no file beside it (from the disk cache when it
        holds it), or None when the engine must decide. Released, NoFork as above."""
        if not forked.can_fork():
            raise NoFork("no fork here")
        key = reachability_cache.key_of(data, path, None, None)
        found = reachability_cache.read(key)
        if found is not None:
            return found
        with self._lock:
            self._released, self._running = False, True
        try:
            found = self._in_child(data, path, timeout)
        finally:
            with self._lock:
                self._running = False
        if found is not None:
            reachability_cache.write(key, found)
        return found

    def _in_child(self, data: bytes, path: str | None, timeout: float) -> list | None:
        deadline = time.monotonic() + timeout
        restarts = 0
        while True:
            if self._released:
                raise Released()
            if time.monotonic() >= deadline:
                raise TimeoutError("the unreachable set took too long, or other work kept the server busy")
            try:
                started = time.perf_counter()
                found = forked.run_in_child(
                    light_unreachable,
                    data,
                    path,
                    timeout=max(1.0, deadline - time.monotonic()),
                    started=self._started,
                    niceness=NICENESS,
                    alone=True,
                )
                log.info("unreachable set computed in a forked child in %.0f ms", (time.perf_counter() - started) * 1e3)
                return found
            except forked.Busy:
                time.sleep(QUIET_POLL_S)  # another child is alive: after it
                continue
            except forked.ChildFailed as e:
                if self._released:
                    raise Released() from None
                restarts += 1
                if restarts > RESTARTS:
                    raise NoFork("the child was stopped too often") from None
                log.info("unreachable set: the child stopped (%s); again once the others are done", e)
            finally:
                with self._lock:
                    self._pid = 0

    def _started(self, pid: int) -> None:
        with self._lock:
            self._pid = pid
            self.children += 1
            released = self._released
        if released:
            self._kill(pid)

    def _other_fork(self) -> None:
        """Another child is about to start: this one's memory goes first."""
        if os.getpid() != self._owner:
            return  # inherited by a child that forks in turn: not ours to act on
        with self._lock:
            pid = self._pid
        if pid:
            self._kill(pid)

    def release(self) -> None:
        """Stop the computation for good (its version was replaced): compute raises Released."""
        with self._lock:
            if not self._running:
                return
            self._released = True
            pid = self._pid
        if pid:
            self._kill(pid)

    @staticmethod
    def _kill(pid: int) -> None:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
