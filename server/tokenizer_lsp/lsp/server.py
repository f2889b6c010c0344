"""Wiring: the pygls server, its session and scheduler, and the routes of lsp/routes.py.

Nothing is decided here. The protocol's overrides are made from the routing table: every
notification is a plain method that calls its handler (SYNC) or starts it as a task
(BACKGROUND), never one of pygls' own (its text sync keeps a second copy of every text
and splits lines where LSP does not; it keeps a future for every notification handled by
a coroutine or a generator, about 2 KB per keystroke for as long as the server runs), and
so is a request pygls would answer itself (workspace/executeCommand: pygls knows only
@server.command functions). The other requests are pygls features.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import re
import sys

import orjson
from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .. import __version__
from . import precompiled_converters
from .engine_client import EngineClient
from .lsp_types import JsonResult
from .routes import ROUTES, Route, is_notification
from .scheduler import Scheduler
from .session import Session
from .work import Mode, background_request

log = logging.getLogger("tokenizer_lsp")

# answered with their one-line message, no traceback in the log: a refusal (its handler has
# logged it) and a request whose document changed while it ran (it is asked again)
_QUIET_ERRORS = (JsonRpcInvalidParams, JsonRpcContentModified)


class TokenizerProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        # pull diagnostics only for clients that ask for them; the others get them pushed
        if not self._server.session.capabilities.pull_diagnostics:
            result.capabilities.diagnostic_provider = None
        # pygls lists only commands registered with @server.command: ours are one table
        result.capabilities.execute_command_provider = ROUTES[types.WORKSPACE_EXECUTE_COMMAND].options
        return result

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args) -> None:
        """Leave at once: freeing a large index object by object takes longer than
        clients wait (Emacs kills the server after 100 ms)."""
        code = 0 if self._shutdown else 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)

    def _send_handler_result(self, future, *, msg_id):
        # pygls logs every error answer with its traceback (15 lines in the log for a cut
        # GGUF); a refusal, whose handler has logged its one line, is answered without
        if not future.cancelled() and isinstance(future.exception(), _QUIET_ERRORS):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=future.exception().to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _send_response(self, msg_id, result=None, error=None):
        # a large answer already in JSON form (tens of thousands of references) skips the
        # lsprotocol objects and cattrs: they cost more than finding the answer
        if error is None and isinstance(result, JsonResult):
            self._result_types.pop(msg_id, None)
            self.notify_json_message({"jsonrpc": "2.0", "id": msg_id, "result": result.data})
            return
        super()._send_response(msg_id, result, error)

    def notify_json(self, method: str, params: dict) -> None:
        """A notification whose params are already plain JSON data (no cattrs pass)."""
        self.notify_json_message({"jsonrpc": "2.0", "method": method, "params": params})

    def notify_json_message(self, message: dict) -> None:
        """A message that is already plain JSON data."""
        if self.writer is None:
            return
        try:
            body = orjson.dumps(message)
        except TypeError:  # e.g. a lone surrogate, which orjson refuses
            body = json.dumps(message).encode("utf-8")
        head = b"Content-Length: %d\r\n\r\n" % len(body)
        # a large body (references of `▁`: 5 MB) is written after its header, not copied
        # behind it first; a small one goes in one write
        for part in (head, body) if len(body) > 1 << 20 else (head + body,):
            res = self.writer.write(part)
            if inspect.isawaitable(res):
                asyncio.ensure_future(res)


def _spawn(coro) -> None:
    task = asyncio.ensure_future(coro)
    task.add_done_callback(_log_failure)


def _log_failure(task: asyncio.Future) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("handler failed", exc_info=task.exception())


# method -> the name of pygls' own protocol method for it
_PYGLS_OWN = {f.method_name: name for name, f in vars(LanguageServerProtocol).items() if hasattr(f, "method_name")}


def overridden(method: str) -> bool:
    """Whether the protocol handles the method by an override made from its route (else
    it is a pygls feature). pygls' initialize does the handshake and calls ours as a feature."""
    return method != types.INITIALIZE and (is_notification(method) or method in _PYGLS_OWN)


def _override(method: str, route: Route):
    """The protocol's method for a route (the module docstring)."""
    handler = route.handler
    if is_notification(method):
        if route.mode is Mode.SYNC:

            def notified(self, params) -> None:
                handler(self._server, params)

        else:

            def notified(self, params) -> None:
                _spawn(handler(self._server, params))

        made = notified
    else:
        run = background_request(handler) if route.mode is Mode.BACKGROUND else handler

        async def requested(self, params):
            return await run(self._server, params)

        made = requested
    made.__name__ = made.__qualname__ = _PYGLS_OWN.get(method) or "lsp_" + re.sub(r"\W", "_", method)
    made.route = route  # what it was made from (tests/unit/test_routes.py)
    return lsp_method(method)(made)


for _method, _route in ROUTES.items():
    if overridden(_method):
        _made = _override(_method, _route)
        setattr(TokenizerProtocol, _made.__name__, _made)


class TokenizerServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tokenizer-lsp", __version__, protocol_cls=TokenizerProtocol)
        self.session = Session()
        self.scheduler = Scheduler(self.session, self)
        self.engine = EngineClient()  # HF tokenizers / tiktoken, in a helper process
        for method, route in ROUTES.items():
            if not overridden(method):
                handler = background_request(route.handler) if route.mode is Mode.BACKGROUND else route.handler
                self.feature(method, route.options)(handler)


def _forget_generated_sources() -> None:
    """attrs keeps the source text of every method it generates in linecache, for
    tracebacks only: lsprotocol's ~600 classes hold 0.6 MB of the server's memory with it."""
    import linecache

    for name in [n for n in linecache.cache if n.startswith("<attrs generated")]:
        linecache.cache.pop(name, None)


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087, stdio_loop=None) -> None:
    """Serve LSP; `stdio_loop(server)` replaces pygls' stdio loop (see runtime.stdio)."""
    server = TokenizerServer()
    precompiled_converters.prepare(server.protocol, ROUTES)  # before the first message (its docstring)
    _forget_generated_sources()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if tcp:
        server.start_tcp(host, port)
    elif stdio_loop is not None:
        stdio_loop(server)
    else:
        server.start_io()
