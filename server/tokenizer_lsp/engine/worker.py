"""The engine helper process: `python -m tokenizer_lsp.engine.worker`.

Reads framed requests on stdin and answers each on stdout (see engine/__init__.py), one
at a time. Requests are dicts with an "op":

- {"op": "ping"} -> {"result": {"pid": ...}}
- {"op": "load", "key", "data", "path", "companion", "companion_path", "pattern"}
- {"op": "encode", "key", "text", "special", [the load fields]}
- {"op": "unreachable", "key", [the load fields], ["engine_only": true: the file's shape was
  read already (engine/reachability_child.py) and needs the engine]}
- {"op": "render", "source", "request", "overrides"} -> the `render --ids --format json` object,
  or {"failure", "status"}: a chat template runs here, never in the server (it may run for
  the sandbox's 5 s; hovers go on meanwhile)

A request without "data" for a key this process does not hold gets {"missing": true} (the
client then sends the text: a 30 MB file crosses the pipe once per version). Answers are
{"result": ...}, {"load_error": message} (the file cannot be loaded: the user's problem)
or {"error": message} (a bug: the process lives on). The last two tokenizers loaded are
kept by key. It exits at EOF on stdin (the server is gone) and after TOKENIZER_LSP_ENGINE_IDLE_S
seconds (default 5) without a request, which gives the memory back: the next request starts
another (lsp/engine_client.py). It imports the engines on its first request, not at its start:
a worker started for a ping and never asked anything holds 10 MB, not 30.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import traceback
from collections import OrderedDict

from . import Closed, idle_seconds, read_frame, write_frame

KEEP = 2  # tokenizers kept loaded (each can be several hundred MB)
log = logging.getLogger("tokenizer_lsp.engine")


class Worker:
    def __init__(self) -> None:
        self.loaded: OrderedDict = OrderedDict()  # key -> LoadedTokenizer | LoadError
        self.content_keys: dict = {}  # key -> its content's key in the unreachable cache

    def handle(self, request: dict) -> dict:
        op = request.get("op")
        if op == "ping":
            return {"result": {"pid": os.getpid()}}
        if op == "render":
            from ..cli.render import RenderFailure, render_object

            try:
                return {
                    "result": render_object(
                        request["source"], request["request"], overrides=request.get("overrides") or None
                    )
                }
            except RenderFailure as e:
                return {"result": {"failure": str(e), "status": e.status}}
        if op not in ("load", "encode", "unreachable"):
            return {"error": f"unknown op {op!r}"}
        from ..core.behaviour.loaded import LoadError

        if op == "unreachable":
            found = self._cached_set(request)
            if found is None and not request.get("engine_only"):
                found = self._by_structure(request)
            if found is not None:
                return {"result": found}
        loaded = self._loaded(request)
        if loaded is None:
            return {"missing": True}
        if isinstance(loaded, LoadError):
            return {"load_error": str(loaded)}
        if op == "load":
            return {"result": {"kind": loaded.kind, "source": loaded.source}}
        if op == "encode":
            from ..core.behaviour.encode import encode

            return {
                "result": encode(loaded, request["text"], bool(request.get("special")), request.get("tokenizer_path"))
            }
        from ..core.behaviour.reachability.compute import unreachable_tokens

        started = time.perf_counter()
        found = unreachable_tokens(loaded)
        log.info("%d unreachable tokens computed in %.0f ms", len(found), (time.perf_counter() - started) * 1e3)
        return {"result": self._kept(request, found)}

    def _by_structure(self, request: dict) -> list | None:
        """The set read off the merges (core/behaviour/reachability/fast.py) when the file
        has that shape: the model is never loaded for it."""
        if "data" not in request or request.get("companion") is not None:
            return None
        from ..core.behaviour.reachability.fast import unreachable_by_structure

        started = time.perf_counter()
        found = unreachable_by_structure(request["data"], request.get("path"))
        if found is None:
            return None
        log.info(
            "%d unreachable tokens read off the merges in %.0f ms", len(found), (time.perf_counter() - started) * 1e3
        )
        return self._kept(request, found)

    def _kept(self, request: dict, found: list) -> list:
        """found, kept on disk for this content (however it was computed)."""
        from ..core.behaviour.reachability import cache as reachability_cache

        key = self.content_keys.get(request.get("key"))
        if key is not None:
            reachability_cache.write(key, found)
        return found

    def _cached_set(self, request: dict) -> list | None:
        """The set kept on disk for this content (core/behaviour/reachability/cache.py):
        a file opened again as it was never loads the engine."""
        from ..core.behaviour.reachability import cache as reachability_cache

        wkey = request.get("key")
        if "data" in request:
            self.content_keys[wkey] = reachability_cache.key_of(
                request["data"], request.get("path"), request.get("companion"), request.get("pattern")
            )
            while len(self.content_keys) > 4 * KEEP:
                self.content_keys.pop(next(iter(self.content_keys)))
        key = self.content_keys.get(wkey)
        return reachability_cache.read(key) if key is not None else None

    def _loaded(self, request: dict):
        key = request.get("key")
        if key in self.loaded and "data" not in request:
            self.loaded.move_to_end(key)
            return self.loaded[key]
        if "data" not in request:
            return None
        from ..core.behaviour.load import load_tokenizer
        from ..core.behaviour.loaded import LoadError

        self.loaded.pop(key, None)
        while len(self.loaded) >= KEEP:  # drop the oldest before loading: never three at once
            self.loaded.popitem(last=False)
        started = time.perf_counter()
        try:
            value = load_tokenizer(
                request["data"],
                request.get("path"),
                request.get("companion"),
                request.get("pattern"),
                companion_path=request.get("companion_path"),
            )
        except LoadError as e:
            value = e
        log.info(
            "%s loaded in %.0f ms",
            os.path.basename(request.get("path") or "a tokenizer"),
            (time.perf_counter() - started) * 1e3,
        )
        self.loaded[key] = value
        return value


BACKGROUND_NICENESS = 10  # as the server's forked checking child (runtime/forked.py)


def _background() -> None:
    """Let the scheduler prefer the server (hovers) and its navigation child: a second of
    BPE on two rayon threads at the default priority starved both (navigation ready 8.3 s
    instead of 2.3 s on qwen3, hover p99 24 ms). Set before any thread starts: the rayon
    threads inherit it."""
    if hasattr(os, "nice"):
        try:
            os.nice(BACKGROUND_NICENESS)
        except OSError:
            pass


def _die_with(parent: int) -> None:
    """End at once when the server dies, also in the middle of a long request (its stdin's
    EOF is read only between requests): Linux kills this process itself; elsewhere the
    watchdog sees the parent change."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError, TypeError):
        pass
    if os.getppid() != parent:  # it died before that took effect
        os._exit(0)


def main() -> int:
    parent = os.getppid()
    _die_with(parent)
    _background()
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s tokenizer-lsp engine: %(message)s"
    )
    # answers go to the original stdout; anything a library prints goes to stderr instead
    out = os.dup(1)
    os.dup2(2, 1)
    inp = sys.stdin.fileno()
    from .. import runtime

    runtime.install()  # forked children for the checks a load runs (core.seams.in_child)
    worker = Worker()
    idle = Idle(idle_seconds(), parent, holding=lambda: bool(worker.loaded))
    while True:
        try:
            request = read_frame(inp, idle.start)
        except Closed:
            return 0  # the server is gone
        try:
            reply = worker.handle(request if isinstance(request, dict) else {})
        except Exception as e:  # noqa: BLE001 (logged: one bad request never ends the process)
            log.error(
                "request %s failed:\n%s",
                request.get("op") if isinstance(request, dict) else "?",
                traceback.format_exc(),
            )
            reply = {"error": f"{type(e).__name__}: {e}"}
        del request
        try:
            write_frame(out, reply)
        except BrokenPipeError:
            return 0
        idle.done()


EMPTY_IDLE_S = 2.0  # a worker that holds no tokenizer (started for a ping) leaves sooner


class Idle:
    """Ends the process after `seconds` without a request (EMPTY_IDLE_S at most while
    `holding()` says no tokenizer is loaded: the server pings a worker it may not need, and
    its 10 MB counted in the tree's peak beside the server's own children). A watchdog
    thread rather than a select() timeout: pipes cannot be selected on Windows."""

    def __init__(self, seconds: float, parent: int | None = None, holding=None) -> None:
        self.seconds, self.parent = seconds, parent
        self.holding = holding if holding is not None else (lambda: True)
        self.busy = False
        self.since = time.monotonic()
        threading.Thread(target=self._watch, name="idle", daemon=True).start()

    def start(self) -> None:
        self.busy = True

    def done(self) -> None:
        self.since = time.monotonic()
        self.busy = False

    def limit(self) -> float:
        return self.seconds if self.holding() else min(self.seconds, EMPTY_IDLE_S)

    def _watch(self) -> None:
        while True:
            time.sleep(max(0.05, min(0.5, self.seconds / 4)))
            if self.parent is not None and os.name != "nt" and os.getppid() != self.parent:
                os._exit(0)  # the server died (no PR_SET_PDEATHSIG outside Linux)
            limit = self.limit()
            if not self.busy and time.monotonic() - self.since > limit:
                log.info("idle for %.0f s: exiting", limit)
                logging.shutdown()
                os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
