"""Faster parsing of incoming LSP messages.

pygls parses every message body with the standard json module: a didOpen of a 33 MB
tokenizer.json then costs 0.4 s of the open-to-diagnostics time. orjson does it in
half that. (Unescaping the text at the byte level to skip the str was tried: bytes.replace
over millions of escaped quotes is 4x slower than orjson plus encode.)
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def _apply_hook(obj: Any, hook) -> Any:
    """What json.loads(object_hook=hook) does: the hook on every object, innermost first."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)):
                obj[k] = _apply_hook(v, hook)
        return hook(obj)
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            if isinstance(v, (dict, list)):
                obj[i] = _apply_hook(v, hook)
    return obj


def loads(body: bytes | str, object_hook=None) -> Any:
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:  # e.g. lone surrogates, which json accepts
        return json.loads(body, object_hook=object_hook)
    return _apply_hook(obj, object_hook) if object_hook else obj


class JsonShim:
    """Stands in for the json module inside pygls.io_ (only loads differs)."""

    loads = staticmethod(loads)
    dumps = staticmethod(json.dumps)

    def __getattr__(self, name: str):
        return getattr(json, name)


def install() -> None:
    import pygls.io_

    pygls.io_.json = JsonShim()


def serve_stdio(server) -> None:
    """Serve LSP on stdin/stdout, reading stdin on the event loop.

    pygls reads stdin in a thread pool: every message then passes the interpreter between
    that thread and the event loop several times, and each hand-off waits for the
    indexer thread to let go of it. A hover during a re-index took 15 ms that way. When
    stdin is not a pipe (a file, a terminal on some systems), pygls' reader is used.
    """
    import asyncio
    import sys
    import threading

    from pygls.io_ import StdoutWriter, run_async

    async def main() -> bool:
        loop = asyncio.get_running_loop()
        # a high limit: messages of tens of MB must not pause the pipe on every read
        reader = asyncio.StreamReader(limit=1 << 28)
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
        except (ValueError, OSError):
            return False
        server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
        server._stop_event = threading.Event()
        try:
            await run_async(stop_event=server._stop_event, reader=reader, protocol=server.protocol,
                            error_handler=server.report_server_error)
        except (asyncio.IncompleteReadError, BrokenPipeError, ConnectionError):
            pass  # the client went away mid-message
        return True

    try:
        served = asyncio.run(main())
    except (KeyboardInterrupt, SystemExit):
        served = True
    if not served:
        server.start_io()
    else:
        server.shutdown()
