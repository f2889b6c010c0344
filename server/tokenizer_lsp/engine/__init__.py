"""The helper process that runs the heavy engines (HF tokenizers, tiktoken) for the server.

Loading a tokenizer into `tokenizers` costs several times the file (about 370 MB for
gemma3): the language server keeps that out of its own memory by asking a helper process
(`python -m tokenizer_lsp.engine.worker`, client in lsp/engine_client.py) that starts on
first use and exits when idle.

Messages both ways are frames: an 8-byte big-endian length, then a pickle (it carries
bytes as they are; both ends are this package). Nothing here imports an engine.
"""

from __future__ import annotations

import os
import pickle
import struct

_HEADER = struct.Struct(">Q")
IDLE_ENV = "TOKENIZER_LSP_ENGINE_IDLE_S"
DEFAULT_IDLE_S = 60.0


class Closed(Exception):
    """The other end closed the pipe (EOF)."""


def write_frame(fd: int, message) -> None:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(body)) + body)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_frame(fd: int, started=None):
    """The next message on fd (blocking; Closed at EOF); `started()` is called once its
    header has come. Plain reads, no select(): pipes cannot be selected on Windows, so
    timeouts are kept by whoever can end the other side."""
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    if started is not None:
        started()
    return pickle.loads(_read_exact(fd, size))


def _read_exact(fd: int, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise Closed()
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def idle_seconds() -> float:
    try:
        return float(os.environ.get(IDLE_ENV, DEFAULT_IDLE_S))
    except ValueError:
        return DEFAULT_IDLE_S
