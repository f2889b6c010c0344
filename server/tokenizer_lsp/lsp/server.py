"""Wiring: the pygls server, its session and scheduler, and the routes of handlers/.

Nothing is decided here. The protocol subclass only replaces pygls' own text sync (it
keeps a second copy of every text and splits lines where LSP does not) by plain
functions: pygls keeps a future for every notification handled by a generator, about
2 KB per keystroke for as long as the server runs.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import sys

import orjson
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .. import __version__
from . import message_hooks
from .engine_client import EngineClient
from .handlers import ROUTES
from .handlers.lsp_types import JsonResult
from .scheduler import Scheduler
from .session import Session

log = logging.getLogger("tokenizer_lsp")


def _route(method: str):
    return ROUTES[method][0]


def _route_options(method: str):
    return ROUTES[method][1]


class TokenizerProtocol(LanguageServerProtocol):
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        _route(types.TEXT_DOCUMENT_DID_OPEN)(self._server, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        _route(types.TEXT_DOCUMENT_DID_CHANGE)(self._server, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        _route(types.TEXT_DOCUMENT_DID_CLOSE)(self._server, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_SAVE)
    def lsp_text_document__did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        return None  # the text is what the editor shows; saving changes nothing

    @lsp_method(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def lsp_workspace__did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        _spawn(_route(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(self._server, params))

    @lsp_method(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def lsp_workspace__did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        _route(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(self._server, params)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams):
        # pygls' own knows only @server.command functions: ours are one table
        result = yield _route(types.WORKSPACE_EXECUTE_COMMAND), (self._server, params), None
        return result

    @lsp_method(types.INITIALIZED)
    def lsp_initialized(self, params: types.InitializedParams) -> None:
        _spawn(_route(types.INITIALIZED)(self._server, params))

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        # pull diagnostics only for clients that ask for them; the others get them pushed
        if not self._server.session.capabilities.pull_diagnostics:
            result.capabilities.diagnostic_provider = None
        # pygls lists only commands registered with @server.command: ours are one table
        result.capabilities.execute_command_provider = _route_options(types.WORKSPACE_EXECUTE_COMMAND)
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
        if not future.cancelled() and isinstance(future.exception(), JsonRpcInvalidParams):
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


# handled by the protocol class above, not registered as features
_SYNC = {
    types.TEXT_DOCUMENT_DID_OPEN,
    types.TEXT_DOCUMENT_DID_CHANGE,
    types.TEXT_DOCUMENT_DID_CLOSE,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION,
    types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
    types.INITIALIZED,
    types.WORKSPACE_EXECUTE_COMMAND,
}


class TokenizerServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tokenizer-lsp", __version__, protocol_cls=TokenizerProtocol)
        self.session = Session()
        self.scheduler = Scheduler(self.session, self)
        self.engine = EngineClient()  # HF tokenizers / tiktoken, in a helper process
        for method, (handler, options) in ROUTES.items():
            if method not in _SYNC:
                self.feature(method, options)(handler)


def _forget_generated_sources() -> None:
    """attrs keeps the source text of every method it generates in linecache, for
    tracebacks only: lsprotocol's ~600 classes hold 0.6 MB of the server's memory with it."""
    import linecache

    for name in [n for n in linecache.cache if n.startswith("<attrs generated")]:
        linecache.cache.pop(name, None)


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087, stdio_loop=None) -> None:
    """Serve LSP; `stdio_loop(server)` replaces pygls' stdio loop (see runtime.stdio)."""
    server = TokenizerServer()
    message_hooks.prepare(server.protocol, {*ROUTES, *_SYNC})  # before the first message: lsp/message_hooks.py
    _forget_generated_sources()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if tcp:
        server.start_tcp(host, port)
    elif stdio_loop is not None:
        stdio_loop(server)
    else:
        server.start_io()
