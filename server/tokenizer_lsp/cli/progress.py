"""Progress on stderr for work that takes over a second, only when stderr is a terminal.

A timer thread writes `tokenizer-lsp: checking gemma3/tokenizer.json… 3s` on one line and
rubs it out when the work ends, so piped or redirected output never sees it. The work itself
is mostly long C calls (orjson, tokenizers) that release the interpreter often enough for a
thread that wakes twice a second.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

DELAY_S = 1.0


@contextmanager
def progress(what: str, stream=None):
    stream = stream or sys.stderr
    if not _is_terminal(stream):
        yield
        return
    done = threading.Event()
    shown = [False]
    start = time.monotonic()

    def tick() -> None:
        if done.wait(DELAY_S):
            return
        while not done.is_set():
            stream.write(f"\r\x1b[Ktokenizer-lsp: {what}… {time.monotonic() - start:.0f}s")
            stream.flush()
            shown[0] = True
            done.wait(0.5)

    t = threading.Thread(target=tick, name="cli-progress", daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()
        if shown[0]:
            stream.write("\r\x1b[K")
            stream.flush()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
