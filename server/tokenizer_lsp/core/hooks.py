"""The seams where optional speed-ups plug in; plain Python until `runtime.install()`.

The core must give the same answers with or without them: each default here is the
reference behaviour, and the runtime's replacements are tested against it (fork absent,
failing, the child dying or timing out; copies made by memmove or by join).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Below this many items (tokens + merges) running work beside costs more than it saves.
MIN_PARALLEL_WORK = 100_000


class InProcess:
    """Runs fn(*args) when the result is asked for: the reference for `beside`."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.fn, self.args = fn, args

    def result(self) -> Any:
        return self.fn(*self.args)


def plain_splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    """data[:start] + new + data[end:]."""
    view = memoryview(data)
    return b"".join((view[:start], new, view[end:]))


def no_op() -> None:
    return None


# Work that may run in parallel with the caller: beside(fn, *args).result() == fn(*args).
beside: Callable[..., Any] = InProcess
# A new version of a document's bytes.
splice: Callable[[bytes, int, int, bytes], bytes] = plain_splice
# Give memory freed by a dropped index back to the system.
release_memory: Callable[[], None] = no_op


def reset() -> None:
    """Back to the plain reference behaviour (tests)."""
    global beside, splice, release_memory
    beside, splice, release_memory = InProcess, plain_splice, no_op
