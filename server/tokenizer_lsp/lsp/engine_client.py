"""The server's side of the engine helper process (engine/worker.py).

One EngineClient per server (`ls.engine`). The worker starts on first use with the
server's own interpreter, is started again when it died or left after being idle (5 s,
engine/__init__.py), and is spoken to from a thread of its own, so the event loop (hovers)
never waits for it. A request that takes too long ends the worker and raises EngineError
with what timed out.

The unreachable set of a tokenizer.json is computed without the worker where the server
can fork: in a short-lived child of the server (engine/reachability_child.py), which never loads the
engine and never runs beside another child of the server. Memory, not speed: the worker
loaded `tokenizers` for it beside the server's index and its navigation child (gemma3's
tree: 806 MB, where `Tokenizer.from_file` needs 371).

`key` names a document version, e.g. (uri, version): the worker keeps the last two
tokenizers it loaded by key, and the text is sent only when the worker lacks it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor

from ..core.behaviour.folder_added import folder_stamp
from ..core.behaviour.load import companion_path_of
from ..core.behaviour.loaded import LoadError
from ..engine import Closed, large, read_frame, write_frame
from ..engine.reachability_child import NoFork, ReachabilityChild, Released
from ..runtime import processes
from .work import Mode, off_loop

log = logging.getLogger("tokenizer_lsp")

ENCODE_TIMEOUT_S = 120.0  # includes loading a large file into a fresh worker
UNREACHABLE_TIMEOUT_S = 600.0
RENDER_TIMEOUT_S = 60.0  # the sandbox stops a template at 5 s; loading the tokenizer adds to it


class EngineError(Exception):
    """The helper process failed (crashed, timed out): not the file's fault."""


class EngineClient:
    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engine")
        self._held: list = []  # keys the running worker is believed to hold (it says when not)
        self.starts = 0  # how many workers were started (tests, logs)
        self._paused = 0  # pause() calls not yet resumed
        self._answered: int | None = None  # the pid of the worker that has answered a request
        self._busy = False  # a request is in the worker (set and read under _state)
        self._state = threading.Lock()
        self._reach_child: ReachabilityChild | None = None  # made on first use: it hooks the server's forks
        # a thread of its own: an encode never waits while a set waits for the server's other
        # children to finish
        self._reach_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reach")

    # ---- the API ----------------------------------------------------------------------------

    async def encode(
        self,
        key,
        data: bytes,
        path: str | None,
        companion: bytes | None,
        text: str,
        special: bool = False,
        companion_path: str | None = None,
        pattern: str | None = None,
    ) -> dict:
        """`core.behaviour.encode.encode` of text with the tokenizer in `data` (`pattern`: the
        split regex of a .tiktoken file that is no known encoding); LoadError when the file
        cannot be loaded, EngineError when the worker fails."""
        return await self._call(
            "encode",
            key,
            data,
            path,
            companion,
            ENCODE_TIMEOUT_S,
            companion_path,
            pattern=pattern,
            text=text,
            special=special,
            tokenizer_path=path,
        )

    async def unreachable(
        self, key, data: bytes | list, path: str | None, companion: bytes | None, companion_path: str | None = None
    ) -> list:
        """`core.behaviour.reachability.compute.unreachable_tokens` of the tokenizer in `data`. The
        text may come in a one-item list, which is emptied once the worker has it: a 30 MB
        text is not kept alive for the seconds the computation takes (the document may have
        moved on meanwhile); a worker that dies before answering is then an EngineError.
        A tokenizer.json with nothing beside it is read in a forked child instead (the
        module docstring), which shares the text with this process while it works."""
        handed = data if isinstance(data, list) else [data]
        del data
        child_tried = False
        if companion is None and handed and handed[0] is not None:
            # taken out of the list at once, as the worker's way does; kept here only while
            # a child shares it (it starts again when another child stopped it)
            text = handed[0]
            handed.clear()
            try:
                found = await off_loop(Mode.BACKGROUND, None, self._beside_set, text, path, pool=self._reach_thread)
            except Released:
                raise EngineError("the unreachable set was for a version since replaced") from None
            except NoFork:
                found = None
            except TimeoutError as e:
                raise EngineError(f"the unreachable set: {e}") from None
            else:
                child_tried = True
            if found is not None:
                return found
            handed.append(text)
            del text
        # the worker: a vocab.json with its merges, a .tiktoken file, or a file the engine
        # must load (told so it does not read the file's shape again)
        return await self._call(
            "unreachable",
            key,
            handed,
            path,
            companion,
            UNREACHABLE_TIMEOUT_S,
            companion_path,
            **({"engine_only": True} if child_tried else {}),
        )

    def _beside_set(self, data: bytes, path: str | None) -> list | None:
        if self._reach_child is None:
            self._reach_child = ReachabilityChild()
        return self._reach_child.compute(data, path, UNREACHABLE_TIMEOUT_S)

    async def load_error(
        self, key, data: bytes, path: str | None, companion: bytes | None, companion_path: str | None = None
    ) -> str | None:
        """Why the tokenizer in `data` cannot be loaded, or None when it loads."""
        try:
            await self._call("load", key, data, path, companion, ENCODE_TIMEOUT_S, companion_path)
        except LoadError as e:
            return str(e)
        return None

    async def render(self, path: str, request: dict, overrides: dict[str, str] | None = None) -> dict:
        """cli.render.render_object in the worker (a chat template is untrusted code: it runs
        there, off the server's loop and interpreter): the object, or {"failure", "status"}."""
        return await self._call(
            "render", None, None, None, None, RENDER_TIMEOUT_S, source=path, request=request, overrides=overrides or {}
        )

    async def ping(self) -> int:
        """The worker's process id (starting it if needed)."""
        return (await self._call("ping", None, None, None, None, 30.0))["pid"]

    def pause(self) -> None:
        """Stop the worker, and the children it forked, until resume(): while the server
        indexes a new version. Its work is a set for a version already replaced, and at nice
        10 beside the server's own checking child (nice 10 too), with the engine's threads,
        it took two thirds of the cores: a re-parse of gemma3 took 1.8 s instead of 0.7.
        Calls nest. Only on Linux, and only a worker that has answered once: a stopped
        process runs no watchdog, so it must have armed PR_SET_PDEATHSIG (at its start) to
        die with a server that dies meanwhile, rather than stay stopped forever.

        A worker that holds a loaded engine and is not working is ended instead (it starts
        again on the next request), and an unreachable set computed in a forked child is
        given up (`release`): the build's own child must not run beside their memory."""
        self.release()
        self._paused += 1
        if self._paused == 1:
            self._signal("SIGSTOP")

    def release(self) -> None:
        """Give back the memory the engine holds without losing anyone's answer: end a worker
        that holds a loaded tokenizer and has no request in hand, and stop an unreachable set
        being computed in a forked child (its caller gets EngineError and asks again for the
        version that replaces it). Call it before a build's child starts."""
        child = self._reach_child
        if child is not None:
            child.release()
        with self._state:
            if self._busy or not self._held or self._proc is None:
                return
            proc, self._proc = self._proc, None
            self._held = []
        self._end(proc)
        log.info("engine worker %s released (a build starts)", proc.pid)

    def resume(self) -> None:
        self._paused = max(0, self._paused - 1)
        if self._paused == 0:
            self._signal("SIGCONT")

    def _signal(self, name: str) -> None:
        proc = self._proc
        if not processes.can_pause() or proc is None or proc.pid != self._answered or proc.poll() is not None:
            return
        processes.signal_helper(proc.pid, name)

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def close(self) -> None:
        if self._reach_child is not None:
            self._reach_child.release()
        self._stop()

    # ---- one request at a time, in the engine thread -------------------------------------------

    async def _call(
        self, op: str, key, data, path, companion, timeout: float, companion_path=None, pattern=None, **fields
    ):
        # the companion, pattern and the folder's added_tokens.json and configs are part of what
        # was loaded (a merges file's vocabulary may change alone)
        if isinstance(data, list):  # handed over (see `unreachable`)
            handed, size = data, len(data[0])
        else:
            handed, size = [data], len(data) if data is not None else 0
        del data
        wkey = (
            key,
            size,
            zlib.crc32(companion) if companion is not None else None,
            pattern,
            folder_stamp(path) if companion is not None else None,
        )
        load = {
            "data": handed,
            "path": path,
            "companion": companion,
            "companion_path": companion_path,
            "pattern": pattern,
        }
        return await off_loop(Mode.BACKGROUND, None, self._request, op, wkey, load, timeout, fields, pool=self._thread)

    def _request(self, op: str, wkey, load: dict, timeout: float, fields: dict):
        with self._state:
            self._busy = True
        try:
            return self._exchange(op, wkey, load, timeout, fields)
        finally:
            with self._state:
                self._busy = False

    def _exchange(self, op: str, wkey, load: dict, timeout: float, fields: dict):
        message = {"op": op, "key": wkey, **fields}
        send_text = wkey not in self._held
        for _attempt in range(3):
            proc = self._running()
            if send_text and op not in ("ping", "render"):  # a render reads the folder itself
                if not load["data"]:
                    raise EngineError(
                        f"the tokenizer engine stopped while working ({op}); it starts again on the next request"
                    )
                msg = {**message, **{k: large(v[0] if k == "data" else v) for k, v in load.items()}}
            else:
                msg = message
            expired = threading.Event()

            def expire(proc=proc, expired=expired) -> None:
                expired.set()
                proc.kill()  # the blocked read below then ends at EOF

            timer = threading.Timer(timeout, expire)
            timer.start()
            try:
                write_frame(proc.stdin.fileno(), msg)
                del msg
                if op == "unreachable" and send_text:
                    load["data"].clear()  # the worker has it (a list the caller handed over)
                reply = read_frame(proc.stdout.fileno())
            except (BrokenPipeError, Closed, OSError):
                self._stop()
                if expired.is_set():
                    raise EngineError(
                        f"the tokenizer engine did not answer within {timeout:.0f} s ({op}); "
                        "it was stopped and starts again on the next request"
                    ) from None
                # it had just left (idle) or crashed: a fresh one gets the text again
                log.info("engine worker %s gone; starting another", proc.pid)
                send_text = True
                continue
            finally:
                timer.cancel()
            self._answered = proc.pid  # past its start: it dies with this process
            if reply.get("missing"):
                send_text = True
                continue
            if op not in ("ping", "render"):
                self._remember(wkey)
            if "load_error" in reply:
                raise LoadError(reply["load_error"])
            if "error" in reply:
                raise EngineError(f"the tokenizer engine failed: {reply['error']}")
            return reply["result"]
        raise EngineError(f"the tokenizer engine keeps failing ({op}); see the server log")

    def _remember(self, wkey) -> None:
        if wkey in self._held:
            self._held.remove(wkey)
        self._held.append(wkey)
        del self._held[:-2]

    def _running(self) -> subprocess.Popen:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            return proc
        self._stop()
        env = dict(os.environ)
        # the worker imports what the server imports, wherever that came from (a venv, a
        # bundled library folder put on sys.path at start)
        paths = [p for p in sys.path if p]
        if env.get("PYTHONPATH"):
            paths.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(paths)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tokenizer_lsp.engine.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            env=env,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),  # Windows: no console flashes up
            **processes.helper_popen_options(),
        )
        self._held = []
        self.starts += 1
        log.info("engine worker started (pid %s)", self._proc.pid)
        return self._proc

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        self._held = []
        if proc is not None:
            self._end(proc)

    @staticmethod
    def _end(proc: subprocess.Popen) -> None:
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


async def companion_bytes(session, data: bytes, path: str | None) -> tuple[str | None, bytes | None]:
    """(path, text) of the file a vocab.json or merges file loads with (found beside it as
    `check` and the CLI find it): the editor's text when it is open, else the file on disk."""
    other = companion_path_of(data, path)
    if other is None:
        return None, None
    text = session.open_text(other)
    if text is not None:
        return other, text

    def read() -> bytes | None:
        try:
            with open(other, "rb") as f:
                return f.read()
        except OSError:
            return None

    return other, await off_loop(Mode.BACKGROUND, None, read)
