"""Indexing a document: its queued changes applied, an index built, its findings published,
then the lookups hovers need. Latest wins (rust-analyzer's revisions; docs/architecture.md):

- one build at a time per document, and at most one more wanted: a debounce timer that
  fires while a build runs marks it to go round once more, it never queues a task (each
  queued task was a build of its own after a long one: 30 builds of one version);
- an edit that arrives while a build runs cancels it (a forked build child is killed), and
  the build checks between its stages; the text the queued changes made is kept, and the
  byte edits from the serving index to it stay coalesced (one per place typed at), so the
  next build is one step of the typing fast path however many keystrokes came;
- nothing is published for a version a newer one replaced.

After a burst of any length, fresh diagnostics come one debounce plus one build after the
last keystroke. Hovers meanwhile answer from the last index, mapped through the edits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from ...core import seams

# imported with the server, not on first use: the first keystroke imported the typing fast
# path on the indexer thread (compiling it, without a cached .pyc, holds the interpreter:
# the first hover after it took 8 ms), and each re-parse's forked child imported the
# format plug-ins again (30 ms of every re-parse)
from ...core.formats import decoded_view  # noqa: F401
from ...core.formats.json import incremental  # noqa: F401
from ...core.index.document import DocumentIndex, collector_paused
from ...core.index.staged import build_index_in_child
from ...core.text.edits import apply_changes, coalesced
from ..progress import indexing_progress
from ..render.diagnostics import diagnostics_for
from ..work import Mode, off_loop

log = logging.getLogger("tokenizer_lsp")


@dataclass
class _Flight:
    """One document's indexing: its debounce timer, the running task and its build's token."""

    timer: asyncio.TimerHandle | None = None
    task: asyncio.Future | None = None
    token: seams.CancelToken | None = None  # the running build's, until its index is adopted
    again: bool = False  # the timer fired while a build ran: one more round after it
    rebuild: bool = False  # built again even when the text did not change (settings did)


class Indexing:
    def __init__(
        self,
        session,
        publisher,
        executor,
        engine_paused: Callable[[], AbstractContextManager],
        unreachable,
        companion: Callable,
        on_published: Callable,
        on_serving: Callable,
        progress_server=None,
    ) -> None:
        self.session = session
        self.publisher = publisher
        self.executor = executor  # one thread: builds never run two at a time
        self.engine_paused = engine_paused
        self.unreachable = unreachable  # the last unreachable set, rendered with a build's findings
        self.companion = companion  # path -> what a file is checked with (its vocabulary, its folder)
        self.on_published = on_published  # (doc, idx, base): after a version's findings went out
        self.on_serving = on_serving  # (doc, idx, version): coroutine, once its lookups serve
        self.progress_server = progress_server
        self._flights: dict[str, _Flight] = {}

    # ---- when ---------------------------------------------------------------------------

    def schedule(self, doc, delay: float, rebuild: bool = False) -> None:
        """A build of doc's newest text after `delay` (an edit: the debounce), replacing any
        build due or running; `rebuild`: also when its text has not changed since the last."""
        f = self._flights.setdefault(doc.uri, _Flight())
        f.rebuild = f.rebuild or rebuild
        if f.timer is not None:
            f.timer.cancel()
        doc.jobs.set_busy(True)
        if f.token is not None:
            f.token.cancel()  # building a version this call replaced
        f.timer = asyncio.get_running_loop().call_later(delay, self._fire, doc)

    def forget(self, doc) -> None:
        f = self._flights.pop(doc.uri, None)
        if f is None:
            return
        if f.timer is not None:
            f.timer.cancel()
        if f.token is not None:
            f.token.cancel()

    def pending(self, doc) -> bool:
        """A build is due or running."""
        f = self._flights.get(doc.uri)
        return f is not None and (f.timer is not None or f.task is not None)

    def busy(self) -> bool:
        """Any document's build due (its debounce timer pending) or running."""
        return any(f.timer is not None or f.task is not None for f in self._flights.values())

    def _fire(self, doc) -> None:
        f = self._flights.get(doc.uri)
        if f is None:
            return
        f.timer = None
        if f.task is not None:
            f.again = True
            return
        f.task = asyncio.ensure_future(self._run(doc, f))

    async def _run(self, doc, f: _Flight) -> None:
        try:
            while self.session.documents.get(doc.uri) is doc:
                f.again = False
                doc.jobs.reindexing = 1
                await self._once(doc, f)
                if not f.again:
                    break
        except Exception:  # a bug in one document must not take the server down
            log.exception("indexing %s failed", doc.uri)
        finally:
            f.task = f.token = None
            doc.jobs.reindexing = 0
            doc.jobs.set_busy(f.timer is not None)

    # ---- one build --------------------------------------------------------------------------

    async def _once(self, doc, f: _Flight) -> None:
        uri = doc.uri
        # the changes stay queued until their text is stored: text.data with text.queued applied
        # is the client's text at every moment (commands read it: Session.current_text)
        version, data, queued = doc.text.version, doc.text.data, list(doc.text.queued)
        if (
            not queued
            and doc.jobs.pending == []
            and doc.served.index is not None
            and doc.served.indexed_version == version
            and not f.rebuild
        ):
            return  # built already (the timer of an edit the last round took in)
        f.rebuild = False
        doc.jobs.built_from = version  # edits after this one are mapped apart from those before
        caused_here = bool(queued) or doc.served.index is None
        base, edits = doc.served.index, doc.jobs.pending
        token = f.token = seams.CancelToken()
        # a large document's first index is shown as work-done progress, begun before its
        # first diagnostics; the client's answer to the create is never waited for here
        progress = (
            None
            if doc.served.index is not None or self.progress_server is None
            else indexing_progress(
                self.progress_server, self.session.capabilities.work_done_progress, doc.text.data, doc.path, uri
            )
        )
        started = time.perf_counter()
        try:
            with self.engine_paused():
                data, edits = await off_loop(
                    Mode.BACKGROUND, None, self._apply, data, queued, base, edits, pool=self.executor
                )
                # the queued changes are applied whatever happens next: the next build starts
                # here (a re-parse asked for meanwhile stays asked for)
                del doc.text.queued[: len(queued)]
                doc.text.data, doc.jobs.pending = data, edits if doc.jobs.pending is not None else None
                if doc.text.version != version or token.cancelled:
                    return  # superseded before it began
                try:
                    idx, diags = await off_loop(
                        Mode.BACKGROUND,
                        None,
                        self._index,
                        data,
                        doc.path,
                        doc.served.was_tokenizer,
                        base,
                        edits,
                        progress.step_threadsafe if progress else None,
                        self.unreachable.carrying(doc),
                        token,
                        pool=self.executor,
                    )
                except seams.Cancelled:
                    log.info("%s v%s: dropped (v%s came)", uri.rsplit("/", 1)[-1], version, doc.text.version)
                    return
            del data
            log.info(
                "%s v%s: %s, %d findings in %.0f ms",
                uri.rsplit("/", 1)[-1],
                version,
                idx.format or "not a tokenizer file",
                len(diags),
                (time.perf_counter() - started) * 1e3,
            )
            if self.session.documents.get(uri) is not doc or doc.text.version != version or token.cancelled:
                return  # superseded: its edits stay pending from `base` (coalesced)
            f.token = None  # adopted: its lookups are finished, whatever comes (the next build's base)
            doc.jobs.pending = []
            doc.served.index = idx
            doc.served.indexed_version = version
            if idx.is_tokenizer or doc.served.was_tokenizer:
                doc.served.was_tokenizer = True
                diags = await self.unreachable.carried(doc, idx, diags, version)
                if doc.text.version == version:  # not replaced while the set was placed
                    self.publisher.findings(doc, diags, version, caused_here)
            del diags
            self.on_published(doc, idx, base)
            if idx.doc is None or (idx.salvaged and doc.served.good is not None):
                return  # salvaged: serves only when there is no whole index to map from
            if progress is not None:
                progress.step("hover lookups", 70)
            await off_loop(Mode.BACKGROUND, None, _prepare_lookups, idx, pool=self.executor)
            if not idx.salvaged:
                doc.served.set_good(idx, version)  # until now hovers kept answering from the previous one
                # no gc.freeze() here or after a build: with the navigation thread running, it
                # froze garbage cycles holding whole indexes (qwen3 peak 7.9x -> 12.6x the file)
            await self.on_serving(doc, idx, version)
        finally:
            if progress is not None:
                progress.end()

    def _apply(self, data: bytes, queued, base, edits):
        """(text with `queued` applied, byte edits from base's text to it, coalesced; None when
        only a re-parse will do)."""
        if not queued:
            return data, edits
        with collector_paused():
            lines = base.lines if base is not None and base.data is data else None
            data, applied = apply_changes(data, queued, self.session.encoding, lines)
            if applied is None or edits is None or base is None:
                return data, None if applied is None or edits is None else edits + applied
            return data, coalesced(edits + applied, base.data)

    def _index(
        self, data: bytes, path: str | None, assume: bool, base, edits, step, carrying, token: seams.CancelToken
    ):
        """(index, diagnostics) of data; `step(message, percentage)` is told when the checks
        start. `carrying`: the last unreachable-token set, rendered with the findings when the
        index can place it (rendered once, not once without it and again with it)."""
        # a first index: the user waits for it and no older one serves meanwhile, so what
        # is built beside runs at the server's own priority (seams.waited_for)
        with collector_paused(), seams.waited_for() if base is None else nullcontext():
            idx = self._build_index(data, path, assume, base, edits, token)
            token.check()
            if step is not None:
                step("checking", 40)
            if not idx.is_tokenizer:
                return idx, []
            if carrying and self.unreachable.placeable(idx):
                return idx, self.unreachable.render_carried(idx, carrying)
            return idx, diagnostics_for(idx, self.session.settings, self.session.encoding)

    def _build_index(self, data: bytes, path: str | None, assume: bool, base, edits, token) -> DocumentIndex:
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
        token.check()
        # built beside: the parse's small objects would pin the interpreter's arenas here
        return build_index_in_child(data, path, lambda: self.companion(path), assume, cancel=token)


def _prepare_lookups(idx: DocumentIndex) -> None:
    with collector_paused():
        idx.prepare_lookups()
    seams.release_memory()  # the parsed vocab and merges were just dropped
