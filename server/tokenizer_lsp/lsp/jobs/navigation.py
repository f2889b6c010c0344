"""Navigation lookups (definition, references, workspace symbols) of a document's index.

Built last, apart from the indexing thread, one document at a time, for the newest index
only (a queue of them would keep every typed version's text alive), once edits have settled,
and not again for what a typed character derived from the same parse: ordinals and ranks
carry over, positions come from each index's own tables. A version replaced while its
lookups were wanted is never started; lookups that come back for a parse no longer serving
are dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ...core import seams
from ...core.index.document import DocumentIndex, collector_paused
from ..work import Mode, off_loop

log = logging.getLogger("tokenizer_lsp")
SETTLE_S = 1.0  # quiet time after an edit before navigation lookups are rebuilt
FIRST_SETTLE_S = 0.2  # ... and after a document opens (hovers and hints come first)


@dataclass
class _Wanted:
    """One document's navigation job: the version wanted, and whether a task is on it."""

    version: int | None = None
    running: bool = False
    built_once: bool = False  # later builds wait for edits to settle


class Navigation:
    def __init__(self, session, executor, after: Callable[[object], Awaitable[None]]) -> None:
        self.session = session
        self.executor = executor  # a thread of its own: the next edit's build never queues behind
        self.after = after  # (doc): once a document's lookups serve
        self._wanted: dict[str, _Wanted] = {}

    def running(self, doc) -> bool:
        w = self._wanted.get(doc.uri)
        return w is not None and w.running

    def forget(self, doc) -> None:
        self._wanted.pop(doc.uri, None)

    @staticmethod
    def _carried(doc, idx: DocumentIndex, version: int | None) -> bool:
        """Whether the lookups of idx's parse are built: then they serve it too."""
        navigation = doc.served.navigation_of(idx)
        if navigation is None:
            return False
        doc.served.set_navigable(idx, version, navigation)
        return True

    def want(self, doc, idx: DocumentIndex, version: int) -> None:
        if self._carried(doc, idx, version):
            return
        nav = doc.served.navigable
        if nav is not None and nav.parse_id != idx.parse_id:
            doc.served.drop_navigation()  # a new parse: requests wait for its lookups
        w = self._wanted.setdefault(doc.uri, _Wanted())
        w.version = version
        if not w.running:
            w.running = True
            asyncio.ensure_future(self._navigate(doc, w))

    async def _settled(self, doc, w: _Wanted) -> None:
        """When the document is quiet (after an edit: a burst of them settled), so that a
        build never keeps an index the next edits replaced alive beside new ones."""
        await doc.quiet_for(SETTLE_S if w.built_once else FIRST_SETTLE_S)

    async def _navigate(self, doc, w: _Wanted) -> None:
        from ...core.navigation.build import navigation_job

        try:
            while w.version is not None and self.session.documents.get(doc.uri) is doc:
                version, w.version = w.version, None
                await self._settled(doc, w)
                if w.version is not None or doc.text.version != version:
                    continue  # superseded while waiting: never started
                base = doc.served.navigation_base()
                if base is None:
                    continue
                idx, built_version = base
                del base
                if self._carried(doc, idx, built_version):
                    continue  # typed into while the lookups of its parse were built
                parse_id = idx.parse_id
                try:
                    # started beside, then waited for without the index: the edits of
                    # those seconds must not find this version's text still alive
                    job = await off_loop(Mode.BACKGROUND, None, navigation_job, idx, pool=self.executor)
                    del idx
                    try:
                        navigation = await off_loop(Mode.BACKGROUND, None, job.result, pool=self.executor)
                    except seams.DetachedWorkLost:
                        navigation = await self._here(doc, parse_id)
                    del job
                except Exception:
                    log.exception("navigation lookups of %s failed", doc.uri)
                    continue
                w.built_once = True
                base = doc.served.navigation_base()
                if base is None or base[0].parse_id != parse_id:
                    continue  # re-parsed since: dropped, that parse's lookups are on their way
                serving = base[0]
                if navigation is None:
                    doc.served.navigation_ready.set()  # nothing to navigate: nobody should wait for it
                    continue
                # typed since the build began: still its parse, whose lookups these are
                doc.served.set_navigable(serving, base[1], navigation)
                del base
                # its id table too (`#123` symbols), built on first use
                await off_loop(Mode.BACKGROUND, None, _id_table, serving, pool=self.executor)
                del serving, navigation
                await self.after(doc)
        finally:
            w.running = False

    async def _here(self, doc, parse_id: int):
        """The lookups built in this process (the child building them failed), from the
        index serving now when it is still of that parse."""
        base = doc.served.navigation_base()
        if base is None or base[0].parse_id != parse_id:
            return None
        idx = base[0]
        del base
        return await off_loop(Mode.BACKGROUND, None, _build_here, idx, pool=self.executor)


def _build_here(idx: DocumentIndex):
    from ...core.navigation.build import build_navigation

    with collector_paused():
        return build_navigation(idx)


def _id_table(idx: DocumentIndex) -> None:
    with collector_paused():
        idx.token_of_id(0)
    seams.release_memory()  # the lookups came as a pickle of several MB, now freed
