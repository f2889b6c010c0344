"""What runs for a document, and when: the coordinator of the jobs in lsp/jobs/.

Text flows one way: the client's changes are queued on the document; indexing
(jobs/indexing.py) applies them and builds an index, the publisher (publisher.py) sends its
findings or keeps them for the next pull, then the lookups hovers need are built and the
index serves. After that, each once edits settle and only for the newest version:
navigation lookups (jobs/navigation.py), the unreachable-token set (jobs/unreachable.py),
and the files beside it checked again (jobs/folder.py). Each job keeps its own state and
gets only what it needs (a publisher, an executor, a callback); this module wires them and
answers no request.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from ..core.detect import is_chat_template_name
from ..core.index.build import load_vocabulary
from ..core.index.files import companion_vocab_path, load_vocab_file
from ..core.model_folder.chat_template_file import anchor
from ..core.model_folder.config_doc import is_config_name
from .documents import DocumentState
from .jobs.folder import FolderChecks
from .jobs.indexing import Indexing
from .jobs.navigation import Navigation
from .jobs.unreachable import Unreachable
from .paired import config_folder, config_snapshots
from .publisher import Publisher
from .session import Session

log = logging.getLogger("tokenizer_lsp")
IDLE_POLL_S = 0.02  # how often idle() looks again while a job is busy


class Scheduler:
    def __init__(self, session: Session, server) -> None:
        self.session = session
        self.server = server  # sends notifications and requests to the client
        # one worker: indexes are built one at a time, off the event loop
        self.indexer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="indexer")
        # navigation lookups take a second or two on large files: a thread of their own, so
        # the next edit's re-index never queues behind them
        self.navigator = ThreadPoolExecutor(max_workers=1, thread_name_prefix="navigator")
        self.publisher = Publisher(session, server)
        self.unreachable = Unreachable(session, self.publisher, self.indexer, lambda: self.server.engine)
        self.folder = FolderChecks(session, self.publisher, self._reparse)
        self.navigation = Navigation(session, self.navigator, self._read_configs_beside)
        self.indexing = Indexing(
            session,
            self.publisher,
            self.indexer,
            self._engine_paused,
            self.unreachable,
            self._companion,
            self._published,
            self._serving,
            progress_server=server,
        )

    # ---- entry points (handlers) ------------------------------------------------------------

    def opened(self, doc: DocumentState) -> None:
        """A document just opened: indexed at once, and its folder's chat templates
        rendered meanwhile (jobs/folder.py)."""
        self.folder.tokenizer_opened(doc.path)
        self.schedule(doc, delay=0)

    def schedule(self, doc: DocumentState, delay: float, rebuild: bool = False) -> None:
        self.indexing.schedule(doc, delay, rebuild)

    def forget(self, doc: DocumentState) -> None:
        self.indexing.forget(doc)
        self.navigation.forget(doc)
        self.unreachable.forget(doc)
        self.publisher.closed(doc)
        self.folder.vocabulary_changed(doc.path, closed=True)  # the merges beside it now read the file

    def vocabulary_changed(self, path: str | None) -> None:
        self.folder.vocabulary_changed(path)

    def refresh_all(self) -> None:
        for doc in list(self.session.documents.values()):
            if doc.served.index is not None and doc.served.index.is_tokenizer:
                self.schedule(doc, delay=0, rebuild=True)  # the settings changed
        self.publisher.refresh_hints()

    def busy(self) -> bool:
        """Whether any job has work due or running. Publications are not counted: they are
        written to the client at once, so an answer sent after this is read after them."""
        return (
            self.indexing.busy()
            or self.unreachable.busy()
            or self.folder.busy()
            or any(self.navigation.running(doc) for doc in list(self.session.documents.values()))
        )

    async def idle(self) -> None:
        """Returns once no job has anything due or running (tokenizer-lsp/idle: what tests
        wait on instead of sleeping). A job hands work on to the next before it stops
        counting as busy; the second look, one loop pass later, lets callbacks scheduled in
        that same pass mark theirs."""
        while True:
            if not self.busy():
                await asyncio.sleep(0)
                if not self.busy():
                    return
            await asyncio.sleep(IDLE_POLL_S)

    # ---- between the jobs ---------------------------------------------------------------------

    def _reparse(self, doc: DocumentState) -> None:
        """What doc is checked with changed: built again at once, re-parsed."""
        doc.jobs.pending = None
        self.schedule(doc, delay=0, rebuild=True)

    def _published(self, doc: DocumentState, idx, base) -> None:
        if doc.served.was_tokenizer:
            self.unreachable.want(doc)
        if idx is not base:  # base None: the document's first index, its folder checked at once
            self.folder.vocabulary_changed(doc.path, opened=base is None)

    async def _serving(self, doc: DocumentState, idx, version: int) -> None:
        if self.session.documents.get(doc.uri) is doc:
            self.publisher.refresh_hints()
        if doc.served.good is idx or (idx.salvaged and doc.served.good is None):
            self.navigation.want(doc, idx, version)
        await self.unreachable.indexed(doc, idx, version)

    @contextmanager
    def _engine_paused(self):
        """The engine helper process waits while a version is built: it competes for the
        cores with the build's own child, and whatever it computes is of an older version."""
        engine = self.server.engine
        engine.pause()
        try:
            yield
        finally:
            engine.resume()

    async def _read_configs_beside(self, doc: DocumentState) -> None:
        """References name a token's config entries too: the config files beside a
        tokenizer file are read now (off the event loop, kept while unchanged), not by the
        first references request (gemma3's tokenizer_config.json: 0.1 s)."""
        try:
            await config_snapshots(self.server, doc.path)
        except Exception:  # a request that needs them reads them itself
            log.exception("reading the config files beside %s failed", doc.uri)

    def _companion(self, path: str | None):
        """The vocabulary beside a merges file: the editor's text when it is open (saved or
        not, it is what the user sees), else the file on disk. For a model config file, the
        tokenizer file and the other config files beside it."""
        if is_config_name(path):
            return config_folder(self.session, path)
        if is_chat_template_name(path):  # the tokenizer and configs of its model folder
            return config_folder(self.session, anchor(path))
        other = companion_vocab_path(path) if path else None
        if other is None:
            return None
        text = self.session.open_text(other)
        if text is not None:
            return load_vocabulary(text, other)
        return load_vocab_file(other)
