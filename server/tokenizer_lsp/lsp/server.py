"""pygls wiring: document store, scheduling, and thin handlers over the index."""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import logging
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote, urlparse

import orjson
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .. import __version__
from ..runtime import malloc as memory, stdio as transport
from ..core.files import VOCAB_NAMES, companion_vocab_path, load_vocab_file
from .session import Change, OpenDocument, apply_changes
from ..core.text.position_map import Span, range_to_new, span_of, to_new, to_old
from .render.diagnostics import diagnostics_for
from .render.hover import hover_markdown
from .render.hints import hints_in
from .render.pieces import piece_at
from ..core.index import DocumentIndex, collector_paused, content_kind, name_kind
from .settings import Settings, parse_settings

log = logging.getLogger("tokenizer_lsp")


def uri_to_path(uri: str) -> str | None:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else (unquote(parsed.path) or None)


class TokenizerProtocol(LanguageServerProtocol):
    """Keeps document text ourselves (bytes per version) instead of pygls' workspace copy."""

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        self._server.open_document(params)
        yield from ()

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        self._server.change_document(params)
        yield from ()

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        # pull diagnostics only for clients that ask for them: a client that keeps pulled
        # and pushed diagnostics apart would otherwise show every finding twice
        if not self._server._client_supports("text_document.diagnostic"):
            result.capabilities.diagnostic_provider = None
        return result

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args):
        """Leave at once: freeing a large index object by object takes longer than
        clients wait (Emacs kills the server after 100 ms)."""
        code = 0 if self._shutdown else 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
        yield from ()

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
        res = self.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        if inspect.isawaitable(res):
            asyncio.ensure_future(res)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        self._server.close_document(params)
        yield from ()


class TokenizerServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tokenizer-lsp", __version__, protocol_cls=TokenizerProtocol)
        self.docs: dict[str, OpenDocument] = {}
        self.settings = Settings()
        self.init_options: dict = {}
        # one worker: indexes are built one at a time, off the event loop
        self.indexer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="indexer")
        self._timers: dict[str, asyncio.TimerHandle] = {}

    # ---- negotiated facts --------------------------------------------------------------

    @property
    def encoding(self) -> str:
        caps = self.protocol.server_capabilities
        enc = getattr(caps, "position_encoding", None) if caps else None
        return str(enc.value if hasattr(enc, "value") else enc or "utf-16")

    def _client_capability(self, path: str):
        node = self.protocol.client_capabilities
        for part in path.split("."):
            node = getattr(node, part, None) if node is not None else None
        return node

    def _client_supports(self, path: str) -> bool:
        return bool(self._client_capability(path))

    # ---- documents ---------------------------------------------------------------------

    def open_document(self, params: types.DidOpenTextDocumentParams) -> None:
        td = params.text_document
        log.info("open %s v%s", td.uri.rsplit("/", 1)[-1], td.version)
        data = transport.take_open_text(td.uri, td.version)
        if data is None:
            data = td.text.encode("utf-8", "surrogatepass")
        td.text = ""  # pygls keeps the message alive until the next one: drop the str now
        doc = OpenDocument(td.uri, uri_to_path(td.uri), td.version, data)
        self.docs[td.uri] = doc
        if td.language_id not in ("json", "jsonc", "tiktoken", "bpe-merges", "plaintext") and not (
            name_kind(doc.path) or content_kind(data, doc.path)
        ):
            return
        self._schedule(doc, delay=0)

    def change_document(self, params: types.DidChangeTextDocumentParams) -> None:
        doc = self.docs.get(params.text_document.uri)
        if doc is None:
            return
        changes = []
        version = params.text_document.version
        for c in params.content_changes:
            rng = getattr(c, "range", None)
            if rng is None:
                changes.append(Change(c.text))
                doc.record_edit(version, None)
            else:
                start, end = (rng.start.line, rng.start.character), (rng.end.line, rng.end.character)
                changes.append(Change(c.text, start, end))
                doc.record_edit(version, span_of(start, end, c.text, self.encoding))
        # applied by the indexer thread: a new copy of a large text is too slow for this loop
        doc.queued.extend(changes)
        doc.version = version
        self._schedule(doc, delay=self.settings.debounce_ms / 1000)

    def close_document(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.docs.pop(uri, None)
        timer = self._timers.pop(uri, None)
        if timer:
            timer.cancel()
        if doc is not None and doc.was_tokenizer:
            self.publish(uri, [])
        if doc is not None:
            self.vocabulary_changed(doc.path)  # the merges beside it now read the file

    def publish(self, uri: str, diagnostics: list[dict], version: int | None = None) -> None:
        params: dict = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.protocol.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

    def _schedule(self, doc: OpenDocument, delay: float) -> None:
        loop = asyncio.get_running_loop()
        old = self._timers.pop(doc.uri, None)
        if old:
            old.cancel()
        doc.set_busy(True)
        self._timers[doc.uri] = loop.call_later(delay, lambda: asyncio.ensure_future(self._reindex(doc.uri)))

    async def _reindex(self, uri: str) -> None:
        self._timers.pop(uri, None)
        doc = self.docs.get(uri)
        if doc is None:
            return
        doc.reindexing += 1
        try:
            async with doc.indexing:
                await self._reindex_doc(uri, doc)
        finally:
            doc.reindexing -= 1
            doc.set_busy(uri in self._timers or doc.reindexing > 0)

    async def _reindex_doc(self, uri: str, doc: OpenDocument) -> None:
        version, data, queued = doc.version, doc.data, doc.queued
        doc.queued = []
        loop = asyncio.get_running_loop()
        assume = doc.was_tokenizer
        base, edits = doc.index, doc.pending
        started = time.perf_counter()
        try:
            idx, diags, data, edits = await loop.run_in_executor(
                self.indexer, self._build, data, queued, doc.path, assume, base, edits)
        except Exception:  # a bug in one document must not take the server down
            log.exception("indexing %s failed", uri)
            doc.queued[:0] = queued
            return
        doc.data = data  # the text with `queued` applied; changes since then are in doc.queued
        log.info("%s v%s: %s, %d findings in %.0f ms", uri.rsplit("/", 1)[-1], version,
                 idx.format or "not a tokenizer file", len(diags), (time.perf_counter() - started) * 1e3)
        if self.docs.get(uri) is not doc or doc.version != version:
            # stale: a newer version is queued; its edits will apply on top of `base`
            doc.pending = edits
            return
        doc.pending = []
        doc.index = idx
        doc.indexed_version = version
        if idx.is_tokenizer:
            doc.was_tokenizer = True
        if idx.is_tokenizer or doc.published:
            doc.published = diags
            self.publish(uri, diags, version)
        if idx is not base:
            self.vocabulary_changed(doc.path)
        if idx.doc is not None and idx.syntax_error is not None:
            # salvaged from broken JSON: serves only when there is no whole index to map from
            if doc.good is None:
                await loop.run_in_executor(self.indexer, self._prepare_lookups, idx)
                if self.docs.get(uri) is doc and self._client_supports("workspace.inlay_hint.refresh_support"):
                    self.workspace_inlay_hint_refresh(None)
        elif idx.doc is not None:
            await loop.run_in_executor(self.indexer, self._prepare_lookups, idx)
            doc.set_good(idx, version)  # until now hovers kept answering from the previous one
            # millions of acyclic objects: keep the collector from rescanning them (a
            # full collection would stall hovers for half a second); refcounts free them
            gc.freeze()
            if self.docs.get(uri) is doc and self._client_supports("workspace.inlay_hint.refresh_support"):
                self.workspace_inlay_hint_refresh(None)

    def _build(self, data, queued, path: str | None, assume: bool, base=None, edits=None):
        """(index, diagnostics, text, byte edits from base's text) after applying `queued`."""
        with collector_paused():
            if queued:
                lines = base.lines if base is not None and base.data is data else None
                data, applied = apply_changes(data, queued, self.encoding, lines)
                edits = None if applied is None or edits is None else edits + applied
            idx, diags = self._build_index(data, path, assume, base, edits)
            # the new index is acyclic: keep the collector from walking it when it resumes
            gc.freeze()
            return idx, diags, data, edits

    @staticmethod
    def _prepare_lookups(idx: DocumentIndex) -> None:
        with collector_paused():
            idx.prepare_lookups()
        memory.release_free_memory()  # the parsed vocab and merges were just dropped

    def _build_index(self, data, path: str | None, assume: bool, base, edits):
        if base is not None and edits == [] and base.data is data:
            # nothing changed (e.g. new settings): the findings stand, only their rendering
            return base, diagnostics_for(base, self.settings, self.encoding) if base.is_tokenizer else []
        if base is not None and edits:
            try:
                idx = base.edited(edits, data)
            except Exception:  # the fast path is an optimisation: a bug in it costs a re-parse
                log.exception("applying an edit to the index failed; re-parsing")
                idx = None
            if idx is not None:
                return idx, diagnostics_for(idx, self.settings, self.encoding)

        def companion():
            other = companion_vocab_path(path) if path else None
            if other is None:
                return None
            # the editor's text of an open vocabulary, saved or not, is what the user sees
            text = self.open_text(other)
            if text is not None:
                found = DocumentIndex(text, other)
                return found.vocab if found.format == "vocab.json" else None
            return load_vocab_file(other)

        idx = DocumentIndex(data, path, companion=companion, assume_tokenizer=assume)
        diags = diagnostics_for(idx, self.settings, self.encoding) if idx.is_tokenizer else []
        return idx, diags

    def open_text(self, path: str) -> bytes | None:
        for doc in list(self.docs.values()):
            if doc.path and os.path.abspath(doc.path) == os.path.abspath(path):
                return doc.data
        return None

    def vocabulary_changed(self, path: str | None) -> None:
        """A vocab.json or encoder.json changed (edited, closed, or on disk): the merges
        files beside it are checked again against it."""
        if not path or os.path.basename(path) not in VOCAB_NAMES:
            return
        folder = os.path.dirname(os.path.abspath(path))
        for doc in list(self.docs.values()):
            if (doc.path and doc.path != path and doc.index is not None and doc.index.format == "merges.txt"
                    and os.path.dirname(os.path.abspath(doc.path)) == folder):
                doc.pending = None  # a re-parse, not the unchanged index again
                self._schedule(doc, delay=0)

    def refresh_all(self) -> None:
        for doc in self.docs.values():
            if doc.index is not None and doc.index.is_tokenizer:
                self._schedule(doc, delay=0)
        if self._client_supports("workspace.inlay_hint.refresh_support"):
            self.workspace_inlay_hint_refresh(None)


server = TokenizerServer()


def _lsp_range(idx: DocumentIndex, start: int, end: int, encoding: str,
               spans: list[Span]) -> types.Range | None:
    """The range of [start, end) of the index's text in the client's current text."""
    a, b = idx.lines.positions([start, end], encoding)
    if spans:
        moved = range_to_new(a, b, spans)
        if moved is None:
            return None
        a, b = moved
    return types.Range(types.Position(*a), types.Position(*b))


@server.feature(types.INITIALIZE)
def on_initialize(ls: TokenizerServer, params: types.InitializeParams) -> None:
    ls.init_options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
    settings, problems = parse_settings(params.initialization_options)
    ls.settings = settings
    for p in problems:
        log.warning("settings: %s", p)


@server.feature(types.INITIALIZED)
async def on_initialized(ls: TokenizerServer, params: types.InitializedParams) -> None:
    await _pull_configuration(ls)
    if ls._client_supports("workspace.did_change_watched_files.dynamic_registration"):
        # vocabularies changed on disk (a checkout, another tool): re-check merges beside them
        watch = types.DidChangeWatchedFilesRegistrationOptions(watchers=[
            types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in VOCAB_NAMES])
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(id="tokenizer-lsp-vocabularies", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                   register_options=watch)]))
        except Exception as e:  # a client may refuse: merges then follow open buffers only
            log.info("file watching refused: %s", e)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def on_watched_files(ls: TokenizerServer, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = uri_to_path(change.uri)
        if path and ls.open_text(path) is None:  # an open one is followed through its edits
            ls.vocabulary_changed(path)


async def _pull_configuration(ls: TokenizerServer) -> None:
    if not ls._client_supports("workspace.configuration"):
        return
    try:
        result = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="tokenizerLsp")])
        )
    except Exception as e:  # a client may refuse; defaults then apply
        log.info("workspace/configuration failed: %s", e)
        return
    if result and isinstance(result[0], dict):
        _apply_settings(ls, result[0])


def _apply_settings(ls: TokenizerServer, raw) -> None:
    # the editor's configuration is the whole truth once it says anything: merging it over
    # initializationOptions would keep a severity the user has since removed
    section = raw.get("tokenizerLsp") if isinstance(raw, dict) and "tokenizerLsp" in raw else raw
    settings, problems = parse_settings(section if section else ls.init_options)
    for p in problems:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"tokenizer-lsp: {p}"))
    if settings != ls.settings:
        ls.settings = settings
        ls.refresh_all()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def on_configuration(ls: TokenizerServer, params: types.DidChangeConfigurationParams) -> None:
    raw = params.settings
    if isinstance(raw, dict) and isinstance(raw.get("tokenizerLsp"), dict):
        _apply_settings(ls, raw["tokenizerLsp"])
    elif isinstance(raw, dict) and raw.keys() & {"inlayHints", "diagnostics"}:
        _apply_settings(ls, raw)  # the section itself, unwrapped (Helix sends it so)
    else:
        await _pull_configuration(ls)


async def first_view(doc: OpenDocument | None, wait: bool = True, timeout: float = 10.0):
    """The serving index with the edits since its version; on a newly opened document,
    wait for its first one."""
    if doc is None:
        return None
    view = doc.view()
    if view is None and wait and doc.busy and doc.good is None:
        try:
            await asyncio.wait_for(doc.settled.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        view = doc.view()
    return view


def _plain(markdown: str) -> str:
    """For clients that asked for plain text hovers: no code-span fences or bold."""
    return re.sub(r"(`+) ?(.*?) ?\1", r"\2", markdown).replace("**", "")


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: TokenizerServer, params: types.HoverParams) -> types.Hover | None:
    view = await first_view(ls.docs.get(params.text_document.uri))
    if view is None:
        return None
    idx, spans = view
    enc = ls.encoding
    # the index may be some edits behind the text the client sees
    at = to_old((params.position.line, params.position.character), spans)
    if at is None:
        return None
    offset = idx.lines.offset(at[0], at[1], enc)
    piece = piece_at(idx, offset)
    if piece is None:
        return None
    rng = _lsp_range(idx, piece.start, piece.end, enc, spans)
    if rng is None:
        return None
    text = hover_markdown(idx, piece)
    formats = ls._client_capability("text_document.hover.content_format") or [types.MarkupKind.Markdown]
    kind = types.MarkupKind.Markdown if types.MarkupKind.Markdown in formats else types.MarkupKind.PlainText
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=text if kind == types.MarkupKind.Markdown else _plain(text)),
        range=rng,
    )


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
async def on_inlay_hint(ls: TokenizerServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    # a client that cannot be asked to refresh would never ask again after an empty answer
    wait = not ls._client_supports("workspace.inlay_hint.refresh_support")
    view = await first_view(ls.docs.get(params.text_document.uri), wait)
    if view is None:
        return []
    idx, spans = view
    enc = ls.encoding
    rng = params.range
    lo = to_old((rng.start.line, rng.start.character), spans, "start")
    hi = to_old((rng.end.line, rng.end.character), spans, "end")
    start, end = idx.lines.offset(lo[0], lo[1], enc), idx.lines.offset(hi[0], hi[1], enc)
    hints = hints_in(idx, start, end, ls.settings.inlay_hints)
    if spans:
        hints = [h for h in hints if _unedited(idx, h.offset, spans, enc)]
    positions = idx.lines.positions([h.offset for h in hints], enc)
    return [
        types.InlayHint(position=types.Position(*to_new(pos, spans)), label=h.label, tooltip=h.tooltip,
                        padding_left=True)
        for h, pos in zip(hints, positions)
    ]


def _unedited(idx: DocumentIndex, hint_at: int, spans: list[Span], enc: str) -> bool:
    """Whether the literal a hint follows is untouched by the edits since the index."""
    ref = idx.token_at(hint_at - 1)
    start = ref.start if ref is not None else hint_at
    a, b = idx.lines.positions([start, hint_at], enc)
    return range_to_new(a, (b[0], b[1] + 1), spans) is not None


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    # a merges file's findings depend on the vocab.json beside it
    types.DiagnosticOptions(identifier="tokenizer-lsp", inter_file_dependencies=True, workspace_diagnostics=False),
)
async def on_pull_diagnostics(ls: TokenizerServer, params: types.DocumentDiagnosticParams):
    doc = ls.docs.get(params.text_document.uri)
    # answer for the current version: wait (briefly) for an index that is still being built
    if doc is not None and doc.busy:
        try:
            await asyncio.wait_for(doc.settled.wait(), 20)
        except asyncio.TimeoutError:
            pass
    items = doc.published if doc is not None else []
    return types.RelatedFullDocumentDiagnosticReport(
        items=ls.protocol._converter.structure(items, list[types.Diagnostic])
    )


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> None:
    transport.install()
    memory.tune_malloc()
    # indexing runs in a worker thread; let the event loop (hovers) take the
    # interpreter back sooner than the default 5 ms
    sys.setswitchinterval(0.0005)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if tcp:
        server.start_tcp(host, port)
    else:
        transport.serve_stdio(server)
