"""When documents are (re)indexed: debounce, one indexer thread, paired files re-checked.

Text flows one way: the client's changes are queued on the document, the indexer thread
applies them and builds an index (core), the findings are rendered and published (push
clients) or kept for the next pull, then the lookups hovers need are built and the index
starts serving. Nothing here answers a request.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types

from ..core import hooks
from ..core.files import VOCAB_NAMES, companion_vocab_path, load_vocab_file
from ..core.index import DocumentIndex, collector_paused, load_vocabulary
from ..core.model_folder.config_doc import is_config_name
from ..core.model_folder.folder import TOKENIZER_NAMES
from ..core.staged_build import build_index_beside
from ..core.text.edits import apply_changes
from .paired import closed_config_diagnostics, config_folder, config_snapshots
from .progress import indexing_progress
from .render.diagnostics import diagnostics_for
from .session import DocumentState, Session
from .unreachable import CarriedDiagnostics, Unreachable

log = logging.getLogger("tokenizer_lsp")
SETTLE_S = 1.0  # quiet time after an edit before navigation lookups are rebuilt
FIRST_SETTLE_S = 0.2  # ... and after a document opens (hovers and hints come first)
CONFIG_SETTLE_S = 0.5  # quiet time after a tokenizer edit before its folder's configs are re-checked


class Scheduler:
    def __init__(self, session: Session, server) -> None:
        self.session = session
        self.server = server  # sends notifications and requests to the client
        # one worker: indexes are built one at a time, off the event loop
        self.indexer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="indexer")
        # navigation lookups take a second or two on large files: a thread of their own, so
        # the next edit's re-index never queues behind them
        self.navigator = ThreadPoolExecutor(max_workers=1, thread_name_prefix="navigator")
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.unreachable = Unreachable(self)  # unreachable-token, after the other findings
        self._config_texts: dict[str, bytes | None] = {}  # the config texts others were checked with
        self._closed_shown: dict[str, bool] = {}  # closed config files with findings published
        self._config_timers: dict[str, asyncio.TimerHandle] = {}  # folder -> pending re-check

    # ---- entry points ------------------------------------------------------------------

    def schedule(self, doc: DocumentState, delay: float) -> None:
        loop = asyncio.get_running_loop()
        old = self._timers.pop(doc.uri, None)
        if old:
            old.cancel()
        doc.set_busy(True)
        self._timers[doc.uri] = loop.call_later(delay, lambda: asyncio.ensure_future(self._reindex(doc.uri)))

    def forget(self, doc: DocumentState) -> None:
        timer = self._timers.pop(doc.uri, None)
        if timer:
            timer.cancel()
        if doc.was_tokenizer and not self.session.capabilities.pull_diagnostics:
            self.publish(doc.uri, [])
        self.vocabulary_changed(doc.path)  # the merges beside it now read the file

    def vocabulary_changed(self, path: str | None) -> None:
        """A vocab.json or encoder.json changed (edited, closed, or on disk): the merges
        files beside it are checked again against it."""
        self.configs_changed(path)
        if not path or os.path.basename(path) not in VOCAB_NAMES:
            return
        for doc in self.session.beside(path):
            if doc.index is not None and doc.index.format == "merges.txt":
                doc.pending = None  # a re-parse, not the unchanged index again
                self.schedule(doc, delay=0)

    def configs_changed(self, path: str | None) -> None:
        """A tokenizer file or a model config file changed: the open config files beside it
        are checked again (a config's ids are held to the tokens another one names)."""
        if not path or not (is_config_name(path) or os.path.basename(path) in TOKENIZER_NAMES):
            return
        if is_config_name(path):
            text = self.session.open_text(path)
            if text is not None and self._config_texts.get(path) is text:
                return  # re-checked, not edited: the others stand (and no ping-pong)
            self._config_texts[path] = text
        # every keystroke in a tokenizer.json lands here: checking the folder's configs against
        # it each time cost 1 s per edit on qwen3 (the indexer thread busy meanwhile); once the
        # edits settle is soon enough for files beside it
        folder = os.path.dirname(os.path.abspath(path))
        old = self._config_timers.pop(folder, None)
        if old is not None:
            old.cancel()
        delay = 0 if is_config_name(path) else CONFIG_SETTLE_S
        self._config_timers[folder] = asyncio.get_running_loop().call_later(
            delay, self._recheck_configs, folder, path)

    def _recheck_configs(self, folder: str, path: str) -> None:
        self._config_timers.pop(folder, None)
        for doc in self.session.beside(path):
            if is_config_name(doc.path):
                doc.pending = None
                self.schedule(doc, delay=0)
        if not self.session.capabilities.pull_diagnostics:  # a pulling client asks for open files only
            asyncio.ensure_future(self._publish_closed_configs(path))

    async def _publish_closed_configs(self, path: str) -> None:
        """The config files beside an open tokenizer that are not open themselves are
        checked too, after its own diagnostics, and published on their own URIs."""
        try:
            found = await asyncio.get_running_loop().run_in_executor(  # never queued before an edit
                None, closed_config_diagnostics, self.session, path)
        except Exception:  # a config file must not take the tokenizer's server down
            log.exception("checking the config files beside %s failed", path)
            return
        for config, uri, diags in found:
            if self.session.open_text(config) is None and (diags or self._closed_shown.get(uri)):
                self.publish(uri, diags)
                self._closed_shown[uri] = bool(diags)

    def refresh_all(self) -> None:
        for doc in list(self.session.documents.values()):
            if doc.index is not None and doc.index.is_tokenizer:
                self.schedule(doc, delay=0)
        self.refresh_hints()

    # ---- to the client -----------------------------------------------------------------

    def publish(self, uri: str, diagnostics: list[dict], version: int | None = None) -> None:
        params: dict = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.server.protocol.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

    def refresh_hints(self) -> None:
        if self.session.capabilities.inlay_hint_refresh:
            self.server.workspace_inlay_hint_refresh(None)

    def _findings_ready(self, doc: DocumentState, diags: list[dict], version: int, caused_here: bool) -> None:
        """Push to clients that do not pull; a pulling client asks itself, and is told to
        ask again when another file's change moved these findings."""
        pulled = self.session.capabilities.pull_diagnostics
        # kept for the client's pulls: a client that is pushed to never asks (1000 of them
        # are 1 MB, and a second version of them at each edit)
        doc.diagnostics = diags if pulled else []
        if not pulled:
            self.publish(doc.uri, diags, version)
        elif not caused_here and self.session.capabilities.diagnostic_refresh:
            self.server.workspace_diagnostic_refresh(None)

    # ---- indexing ----------------------------------------------------------------------

    async def _reindex(self, uri: str) -> None:
        self._timers.pop(uri, None)
        doc = self.session.documents.get(uri)
        if doc is None:
            return
        # a large document's first index is shown as work-done progress, begun before its
        # first diagnostics; the client's answer to the create is never waited for here
        progress = None if doc.index is not None or doc.reindexing else indexing_progress(
            self.server, self.session.capabilities.work_done_progress, doc.data, doc.path, uri)
        doc.reindexing += 1
        try:
            async with doc.indexing:
                await self._reindex_doc(uri, doc, progress)
        finally:
            if progress is not None:
                progress.end()
            doc.reindexing -= 1
            doc.set_busy(uri in self._timers or doc.reindexing > 0)

    async def _reindex_doc(self, uri: str, doc: DocumentState, progress=None) -> None:
        version, data, queued = doc.version, doc.data, doc.queued
        doc.queued = []
        caused_here = bool(queued) or doc.index is None
        loop = asyncio.get_running_loop()
        base, edits = doc.index, doc.pending
        started = time.perf_counter()
        # the engine helper process waits meanwhile: it competes for the cores with the
        # build's own child, and whatever it computes is of an older version
        self.server.engine.pause()
        try:
            idx, diags, data, edits = await loop.run_in_executor(
                self.indexer, self._build, data, queued, doc.path, doc.was_tokenizer, base, edits,
                progress.step_threadsafe if progress else None, self.unreachable.carrying(doc))
        except Exception:  # a bug in one document must not take the server down
            log.exception("indexing %s failed", uri)
            doc.queued[:0] = queued
            return
        finally:
            self.server.engine.resume()
        doc.data = data  # the text with `queued` applied; changes since then are in doc.queued
        log.info("%s v%s: %s, %d findings in %.0f ms", uri.rsplit("/", 1)[-1], version,
                 idx.format or "not a tokenizer file", len(diags), (time.perf_counter() - started) * 1e3)
        if self.session.documents.get(uri) is not doc or doc.version != version:
            # stale: a newer version is queued; its edits will apply on top of `base`
            doc.pending = edits
            return
        doc.pending = []
        doc.index = idx
        doc.indexed_version = version
        if idx.is_tokenizer or doc.was_tokenizer:
            doc.was_tokenizer = True
            diags = await self.unreachable.carried(doc, idx, diags, version)
            self._findings_ready(doc, diags, version, caused_here)
            self.unreachable.want(doc)
        if idx is not base:
            self.vocabulary_changed(doc.path)
        if idx.doc is None or (idx.salvaged and doc.good is not None):
            return  # salvaged: serves only when there is no whole index to map from
        if progress is not None:
            progress.step("hover lookups", 70)
        await loop.run_in_executor(self.indexer, self._prepare_lookups, idx)
        if not idx.salvaged:
            doc.set_good(idx, version)  # until now hovers kept answering from the previous one
            # no gc.freeze() here or after a build: with the navigation thread running, it
            # froze garbage cycles holding whole indexes (qwen3 peak 7.9x -> 12.6x the file)
        if self.session.documents.get(uri) is doc:
            self.refresh_hints()
        if doc.good is idx or (idx.salvaged and doc.good is None):
            self._want_navigation(doc, idx, version)
        await self.unreachable.indexed(doc, idx, version)

    # ---- navigation lookups --------------------------------------------------------------
    # Built last, apart from the re-index lock, one document at a time, for the newest
    # index only (a queue of them would keep every typed version's text alive), and not
    # again for what a typed character derived from the same parse: ordinals and ranks
    # carry over, positions come from each index's own tables.

    @staticmethod
    def _carried(doc: DocumentState, idx: DocumentIndex, version: int | None) -> bool:
        """Whether the lookups of idx's parse are built: then they are carried to it."""
        nav = doc.navigable
        if nav is None or nav.parse_id != idx.parse_id or nav.navigation is None:
            return False
        idx.navigation = nav.navigation
        doc.set_navigable(idx, version)
        return True

    def _want_navigation(self, doc: DocumentState, idx: DocumentIndex, version: int) -> None:
        if self._carried(doc, idx, version):
            return
        nav = doc.navigable
        if nav is not None and nav.parse_id != idx.parse_id:
            # a new parse: the old one's lookups would keep a second whole index alive
            # while the new ones are built (2 s on gemma3); requests wait for those instead
            doc.navigable = doc.navigable_version = None  # and the edits kept for mapping to it
            doc.navigation_ready.clear()
        doc.navigation_target = (idx, version)
        if not doc.navigating:
            doc.navigating = True
            asyncio.ensure_future(self._navigate(doc))

    async def _navigate(self, doc: DocumentState) -> None:
        from ..core.navigation import navigation_job

        loop = asyncio.get_running_loop()
        try:
            while doc.navigation_target is not None and self.session.documents.get(doc.uri) is doc:
                idx, version = doc.navigation_target
                doc.navigation_target = None
                # when the document is quiet (after an edit: a burst of them settled), so that
                # a build never keeps an index the next edits replaced alive beside new ones
                del idx
                while True:
                    if doc.busy:
                        await doc.settled.wait()
                    await asyncio.sleep(SETTLE_S if doc.navigation_built else FIRST_SETTLE_S)
                    if not doc.busy:
                        break
                if doc.navigation_target is not None or doc.version != version:
                    continue
                idx = doc.good if doc.good is not None else doc.index
                if idx is None:
                    continue
                if self._carried(doc, idx, doc.good_version if doc.good is idx else doc.indexed_version):
                    continue  # typed into while the lookups of its parse were built
                parse_id = idx.parse_id
                try:
                    # started beside, then waited for without the index: the edits of
                    # those seconds must not find this version's text still alive
                    job = await loop.run_in_executor(self.navigator, navigation_job, idx)
                    del idx
                    try:
                        navigation = await loop.run_in_executor(self.navigator, job.result)
                    except hooks.BesideFailed:
                        navigation = await self._navigation_here(doc, parse_id)
                    del job
                except Exception:
                    log.exception("navigation lookups of %s failed", doc.uri)
                    continue
                doc.navigation_built = True
                serving = doc.good if doc.good is not None else doc.index
                if serving is None or serving.parse_id != parse_id:
                    continue  # re-parsed since: that parse's lookups are on their way
                if navigation is None:
                    doc.navigation_ready.set()  # nothing to navigate: nobody should wait for it
                    continue
                serving.navigation = navigation  # typed since the build began: still its parse
                doc.set_navigable(serving, doc.good_version if doc.good is serving else doc.indexed_version)
                # its id table too (`#123` symbols), built on first use
                await loop.run_in_executor(self.navigator, self._id_table, serving)
                del serving, navigation
                await self._read_configs_beside(doc)
        finally:
            doc.navigating = False

    async def _read_configs_beside(self, doc: DocumentState) -> None:
        """References name a token's config entries too: the config files beside a
        tokenizer file are read now (off the event loop, kept while unchanged), not by the
        first references request (gemma3's tokenizer_config.json: 0.1 s)."""
        try:
            await config_snapshots(self.server, doc.path)
        except Exception:  # a request that needs them reads them itself
            log.exception("reading the config files beside %s failed", doc.uri)

    def _build(self, data, queued, path: str | None, assume: bool, base=None, edits=None, step=None,
               carrying=None):
        """(index, diagnostics, text, byte edits from base's text) after applying `queued`;
        `step(message, percentage)` is told when the checks start. `carrying`: the last
        unreachable-token set, rendered with the findings when the index can place it
        (rendered once, not once without it and again with it)."""
        with collector_paused():
            if queued:
                lines = base.lines if base is not None and base.data is data else None
                data, applied = apply_changes(data, queued, self.session.encoding, lines)
                edits = None if applied is None or edits is None else edits + applied
            idx = self._build_index(data, path, assume, base, edits)
            if step is not None:
                step("checking", 40)
            if not idx.is_tokenizer:
                diags = []
            elif carrying and self.unreachable.placeable(idx):
                diags = CarriedDiagnostics(self.unreachable.render(idx, carrying))
            else:
                diags = diagnostics_for(idx, self.session.settings, self.session.encoding)
            return idx, diags, data, edits

    @staticmethod
    def _prepare_lookups(idx: DocumentIndex) -> None:
        with collector_paused():
            idx.prepare_lookups()
        hooks.release_memory()  # the parsed vocab and merges were just dropped

    async def _navigation_here(self, doc: DocumentState, parse_id: int):
        """The lookups built in this process (the child building them failed), from the
        index serving now when it is still of that parse."""
        idx = doc.good if doc.good is not None else doc.index
        if idx is None or idx.parse_id != parse_id:
            return None
        await asyncio.get_running_loop().run_in_executor(self.navigator, self._prepare_navigation, idx)
        return idx.navigation

    @staticmethod
    def _prepare_navigation(idx: DocumentIndex) -> None:
        with collector_paused():
            idx.prepare_navigation()

    @staticmethod
    def _id_table(idx: DocumentIndex) -> None:
        with collector_paused():
            idx.token_of_id(0)
        hooks.release_memory()  # the lookups came as a pickle of several MB, now freed

    def _build_index(self, data, path: str | None, assume: bool, base, edits) -> DocumentIndex:
        if base is not None and edits == [] and base.data is data:
            return base  # nothing changed (e.g. new settings): the findings stand
        if base is not None and edits:
            try:
                idx = base.edited(edits, data)
            except Exception:  # the fast path is an optimisation: a bug in it costs a re-parse
                log.exception("applying an edit to the index failed; re-parsing")
                idx = None
            if idx is not None:
                return idx
        # built beside: the parse's small objects would pin the interpreter's arenas here
        return build_index_beside(data, path, lambda: self._companion(path), assume)

    def _companion(self, path: str | None):
        """The vocabulary beside a merges file: the editor's text when it is open (saved or
        not, it is what the user sees), else the file on disk. For a model config file, the
        tokenizer file and the other config files beside it."""
        if is_config_name(path):
            return config_folder(self.session, path)
        other = companion_vocab_path(path) if path else None
        if other is None:
            return None
        text = self.session.open_text(other)
        if text is not None:
            return load_vocabulary(text, other)
        return load_vocab_file(other)
