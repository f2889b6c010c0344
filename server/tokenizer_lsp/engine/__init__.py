"""The helper process that runs the heavy engines (HF tokenizers, tiktoken) for the server.

Loading a tokenizer into `tokenizers` costs several times the file (about 370 MB for
gemma3): the language server keeps that out of its own memory by asking a helper process
(`python -m tokenizer_lsp.engine.worker`, client in lsp/engine_client.py) that starts on
first use and exits when idle (DEFAULT_IDLE_S, or $TOKENIZER_LSP_ENGINE_IDLE_S seconds).
A tokenizer.json's unreachable set needs no engine: engine/reachability_child.py.

Messages both ways are frames: an 8-byte big-endian length, a 4-byte count of out-of-band
buffers and their 8-byte lengths, then a pickle (it carries bytes as they are; both ends are
this package), then the buffers. A document's text goes as such a buffer (`large`): written
from the server's own bytes, never copied into a pickle first (a 30 MB text copied twice
was the server's peak memory). Nothing here imports an engine.
"""

from __future__ import annotations

import os
import pickle
import struct

_HEADER = struct.Struct(">Q")
_COUNT = struct.Struct(">I")
OUT_OF_BAND = 1 << 16  # bytes longer than this travel beside the pickle
IDLE_ENV = "TOKENIZER_LSP_ENGINE_IDLE_S"
DEFAULT_IDLE_S = (
    5.0  # an engine's memory is given back within 10 s of its last use (docs/architecture.md, "Threads and processes")
)


class Closed(Exception):
    """The other end closed the pipe (EOF)."""


def large(value):
    """`value`, marked to travel beside the pickle when it is long bytes."""
    return pickle.PickleBuffer(value) if isinstance(value, bytes) and len(value) > OUT_OF_BAND else value


def write_frame(fd: int, message) -> None:
    buffers: list[pickle.PickleBuffer] = []
    body = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    head = _HEADER.pack(len(body)) + _COUNT.pack(len(raws)) + b"".join(_HEADER.pack(r.nbytes) for r in raws)
    for part in (head + body, *raws):
        view = memoryview(part)
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
    (count,) = _COUNT.unpack(_read_exact(fd, _COUNT.size))
    lengths = [_HEADER.unpack(_read_exact(fd, _HEADER.size))[0] for _ in range(count)]
    body = _read_exact(fd, size)
    return pickle.loads(body, buffers=[_read_exact(fd, n) for n in lengths])


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
