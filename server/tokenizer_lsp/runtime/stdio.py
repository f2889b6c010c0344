"""LSP over stdio: faster parsing, stdin read on the event loop, small replies written
without letting go of the interpreter.

pygls parses every message body with the standard json module: a didOpen of a 33 MB
tokenizer.json then costs 0.4 s of the open-to-diagnostics time. orjson does it in
half that, and a large didOpen's text skips the str altogether (_split_did_open).
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import re
import stat
import threading
import warnings
from typing import Any

import orjson

from ..core.formats.json.layout import escaped
from . import read_ahead


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


_LARGE = 1 << 20
_TEXT_KEY = re.compile(rb'"text"\s*:\s*"')


def _split_did_open(body: bytes) -> tuple[Any, bytes] | None:
    """(the message with an empty text, the text as UTF-8) for a large didOpen.

    Parsing the text into a str and encoding it back costs time and, for a 33 MB file
    with characters outside the BMP, a 130 MB str. JSON string escapes other than \\u
    and \\/ are Python's own, so codecs.escape_decode turns the escaped UTF-8 straight
    into the file's bytes; with those two (rare: VS Code writes neither), orjson does it.
    """
    if b'"textDocument/didOpen"' not in body[:512] and b'"textDocument/didOpen"' not in body[-512:]:
        return None
    m = _TEXT_KEY.search(body)
    if m is None:
        return None
    start = m.end()
    end = len(body)
    for _ in range(32):  # the closing quote: the last one after which the rest still parses
        end = body.rfind(b'"', start, end)
        if end < 0:
            return None
        if escaped(body, end):
            continue
        try:
            obj = orjson.loads(body[:start] + body[end:])
        except orjson.JSONDecodeError:
            continue
        doc = obj.get("params", {}).get("textDocument", {}) if isinstance(obj, dict) else {}
        if not isinstance(doc, dict):
            return None
        # The rest can parse after a later quote too: with "languageId" after "text" (the
        # order of some clients), both `"text":""}}}` and `"text":"json"}}}` do (from the
        # quotes of "json"), and the text would take `", "languageId": "json` in. The text's
        # own closing quote is the first unescaped one after it opens: go on to any nearer.
        if doc.get("text") != "":
            continue
        before = _unescaped_quote_before(body, start, end)
        if before >= 0:
            end = before + 1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # \\u, \\/: not Python escapes
            try:
                text = codecs.escape_decode(memoryview(body)[start:end])[0]
            except (DeprecationWarning, ValueError):
                return None
        return obj, text
    return None


def _unescaped_quote_before(body: bytes, start: int, end: int, tries: int = 64) -> int:
    """The last unescaped quote in body[start:end] among its last `tries` quotes, or -1.
    A text's quotes are all escaped; a member after it whose string held more than `tries`
    escaped quotes would go unnoticed (no client adds members to a didOpen)."""
    for _ in range(tries):
        end = body.rfind(b'"', start, end)
        if end < 0 or not escaped(body, end):
            return end
    return -1


_WIDE = float(1 << 63)


def _wide_number(obj: Any) -> bool:
    """A float as large as an integer outside 64 bits, which orjson reads as a float where
    json keeps the exact int (an id of 2**64 + 1 would come back as another number)."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)
        elif type(o) is float and not -_WIDE < o < _WIDE:
            return True
    return False


def loads(body: bytes | str, object_hook=None) -> Any:
    if isinstance(body, (bytes, bytearray)) and len(body) >= _LARGE:
        split = _split_did_open(body)
        if split is not None:
            obj, text = split
            doc = obj["params"]["textDocument"]
            if isinstance(doc.get("uri"), str) and isinstance(doc.get("version"), int) and not _wide_number(obj):
                read_ahead.keep(doc["uri"], doc["version"], text)
                return _apply_hook(obj, object_hook) if object_hook else obj
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:  # e.g. lone surrogates, which json accepts
        return json.loads(body, object_hook=object_hook)
    if _wide_number(obj):  # maybe an integer beyond 64 bits, made a float: json reads it exactly
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


def _write_holding_interpreter():
    """libc write(2) called through ctypes.PyDLL, which keeps the interpreter (GIL) for
    the call; None where there is no such libc."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux") and sys.platform != "darwin":
        return None
    try:
        write = ctypes.PyDLL(None).write
    except (OSError, AttributeError):
        return None
    write.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
    write.restype = ctypes.c_ssize_t
    return write


class PipeWriter:
    """pygls' writer for stdout. A small message (a hover, a page of hints) goes out in
    one write(2) that keeps the interpreter: a write that releases it must win it back
    from the indexer thread afterwards, and every such wait lasts as long as whatever C
    call that thread is in (a few ms during a re-parse), which is one more delay per
    reply. Large messages take the usual path: a full pipe must not block the process
    with the interpreter held."""

    SMALL = 1 << 15

    def __init__(self, stdout) -> None:
        self._stdout = stdout
        self._write = _write_holding_interpreter()
        try:
            self._fd = stdout.fileno()
        except (AttributeError, OSError, ValueError):
            self._write = None

    def close(self) -> None:
        self._stdout.close()

    def write(self, data: bytes) -> None:
        if self._write is not None and len(data) <= self.SMALL:
            self._stdout.flush()  # nothing buffered may come after this message
            n = self._write(self._fd, data, len(data))
            if n == len(data):
                return
            data = data[n:] if n > 0 else data  # interrupted or would block: the usual way
        self._stdout.write(data)
        self._stdout.flush()


def _widen_pipe(fd: int) -> None:
    """A reply of several MB (`▁`'s 41k references: 5 MB) crosses a 64 KB pipe in 80
    hand-offs between the server and the client, each a wake-up of the other process; a
    1 MB pipe (Linux's default limit for unprivileged processes) needs 5."""
    import fcntl

    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None:
        return
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            fcntl.fcntl(fd, setsize, 1 << 20)
    except OSError:  # over the system's limit, or not ours to change: the default size stays
        pass


_CONTENT_LENGTH = re.compile(rb"content-length:\s*(\d+)\s*", re.IGNORECASE)


def serve_stdio(server) -> None:
    """Serve LSP on stdin/stdout, reading stdin on the event loop.

    pygls reads stdin in a thread pool: every message then passes the interpreter between
    that thread and the event loop several times, and each hand-off waits for the
    indexer thread to let go of it. A hover during a re-index took 15 ms that way. Its
    read loop also keeps the last message body (33 MB for a large didOpen) until the
    next message comes. When stdin is not a pipe (a file, /dev/null) a thread feeds the reader.
    """
    import asyncio
    import sys

    if sys.platform == "win32":  # pipes there need the proactor loop: keep pygls' reader
        server.start_io()
        return

    async def main() -> None:
        loop = asyncio.get_running_loop()
        # a high limit: messages of tens of MB must not pause the pipe on every read
        reader = asyncio.StreamReader(limit=1 << 28)
        mode = os.fstat(sys.stdin.fileno()).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
        else:  # a file, /dev/null, a terminal: no event-loop reader for those, so a thread
            threading.Thread(target=_feed, args=(loop, reader, sys.stdin.buffer), daemon=True).start()
        _widen_pipe(sys.stdout.fileno())
        server.protocol.set_writer(PipeWriter(sys.stdout.buffer))
        try:
            await _read_messages(reader, server)
        except (asyncio.IncompleteReadError, BrokenPipeError, ConnectionError):
            pass  # the client went away mid-message

    try:
        asyncio.run(main())
    except (KeyboardInterrupt, SystemExit):
        pass
    server.shutdown()


def _feed(loop, reader, stream) -> None:
    try:
        while chunk := stream.read1(1 << 16):
            loop.call_soon_threadsafe(reader.feed_data, chunk)
    except (OSError, ValueError):
        pass
    loop.call_soon_threadsafe(reader.feed_eof)


async def _read_messages(reader, server) -> None:
    from pygls.exceptions import JsonRpcException

    protocol = server.protocol
    length = 0
    while True:
        header = await reader.readline()
        if not header:
            return  # end of input
        m = _CONTENT_LENGTH.fullmatch(header)
        if m:
            length = int(m.group(1))
            continue
        if header.strip() or not length:
            continue  # another header (Content-Type), or a stray line
        body = await reader.readexactly(length)
        length = 0
        try:
            message = loads(body, object_hook=protocol.structure_message)
        except Exception as exc:
            # a request the client waits for gets an answer, even when it cannot be read
            _reply_error(protocol, body, exc)
            continue
        del body  # before handling: the index is built while the next read waits
        try:
            protocol.handle_message(message)
        except Exception as exc:
            logging.getLogger("tokenizer_lsp").exception("unable to handle a message")
            server.report_server_error(exc, JsonRpcException)


def _reply_error(protocol, body: bytes, exc: Exception) -> None:
    log = logging.getLogger("tokenizer_lsp")
    try:
        raw = orjson.loads(body)
    except orjson.JSONDecodeError:
        log.warning("a message that is not JSON was dropped: %s", exc)
        return
    if not (isinstance(raw, dict) and "id" in raw and "method" in raw):
        log.warning("a message that could not be read was dropped: %s", exc)
        return
    log.warning("invalid params for %s: %s", raw.get("method"), exc)
    protocol.notify_json_message(
        {
            "jsonrpc": "2.0",
            "id": raw["id"],
            "error": {"code": -32602, "message": f"invalid params for {raw.get('method')}: {exc}"},
        }
    )
