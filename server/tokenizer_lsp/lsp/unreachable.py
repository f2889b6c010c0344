"""unreachable-token in the server: computed by the engine helper process, shown on top of
the other findings. For BPE files whose merges are ordered (qwen3, GPT-2 style) or ignored
(llama3) the helper reads the set off the merges' structure without loading the model
(core/behaviour/reachability_fast.py). The helper starts as the first publication goes out:
started with the session, its imports beside the first parse made qwen3's first
diagnostics 0.1 s later.

The other diagnostics of a version are published first, in their own publication; the
unreachable set comes after (a second publication, or a diagnostic refresh for clients that
pull). It is computed for the indexed version right after a document's first publication
(never before it: an engine loading the file beside the parse made the first diagnostics of
qwen3 come 0.1 s later, 0.38 s instead of 0.27, and reading its merges beside the parse,
even at the lowest priority, 0.2 s later), then again only once edits have settled
(SETTLE_S of quiet, as the navigation lookups), since any edit may change what the
tokenizer does. The last set is kept on the DocumentState as entries named
by id and token and placed on every newer index through its own lookups until the next
one arrives, so a keystroke never makes the findings flicker. With the code turned off
(`diagnostics.severity`), nothing is computed.
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..core.behaviour.loaded import LoadError
from ..core.behaviour.reachability_findings import (
    CODE,
    UnreachableEntry,
    compact_entries,
    unreachable_findings,
    with_unreachable,
)
from ..core.index import DocumentIndex
from .engine_client import EngineError, companion_bytes
from .render.diagnostics import diagnostics_for
from .session import DocumentState

log = logging.getLogger("tokenizer_lsp")
# the files whose vocab entries can hold the findings (a merges file's are on its vocab.json)
COMPUTED_FOR = ("tokenizer.json", "vocab.json", "tiktoken")


class CarriedDiagnostics(list):
    """Diagnostics rendered with the last unreachable set already on them."""

    __slots__ = ()


class _WithFindings:
    """An index seen with more findings (what diagnostics_for reads of it)."""

    __slots__ = ("data", "findings", "lines")

    def __init__(self, idx: DocumentIndex, findings) -> None:
        self.findings, self.lines, self.data = findings, idx.lines, idx.data


class Unreachable:
    def __init__(self, scheduler) -> None:
        self.scheduler = scheduler
        self.session = scheduler.session

    _warmed = False

    async def _warm(self) -> None:
        try:
            await self._engine_started()
        except Exception as e:  # noqa: BLE001 (the request that needs it says what failed)
            log.info("engine worker did not start: %s", e)
        finally:
            self._warmed = False

    async def _engine_started(self) -> None:
        """Start the helper process if it is not running (it lowers its own priority:
        engine/worker.py)."""
        await self.scheduler.server.engine.ping()

    def enabled(self) -> bool:
        return self.session.settings.level(CODE) != "off"

    # ---- shown on an index ---------------------------------------------------------------

    def render(self, idx: DocumentIndex, entries: list[UnreachableEntry]) -> list[dict]:
        """All of idx's diagnostics with the unreachable set placed on it (indexer thread)."""
        merged = with_unreachable(idx.findings, unreachable_findings(idx, entries))
        return diagnostics_for(_WithFindings(idx, merged), self.session.settings, self.session.encoding)

    def carrying(self, doc: DocumentState) -> list[UnreachableEntry] | None:
        """The set a new index of doc will show, when there is one (read on the loop)."""
        return doc.unreachable if doc.unreachable and self.enabled() else None

    @staticmethod
    def placeable(idx: DocumentIndex | None) -> bool:
        return idx is not None and idx.is_tokenizer and idx.lookups_ready

    def _showable(self, doc: DocumentState, idx: DocumentIndex | None) -> bool:
        return bool(doc.unreachable) and self.enabled() and self.placeable(idx)

    async def carried(self, doc: DocumentState, idx: DocumentIndex, diags: list[dict], version: int) -> list[dict]:
        """The diagnostics to publish for a new index: with the last set when this index can
        place it already (an edit inside a token keeps the lookups), else as they are (the
        set follows once the lookups are built: `indexed`)."""
        if doc.unreachable is None and self.enabled() and idx.format in COMPUTED_FOR and not self._warmed:
            # the helper process starts while this publication goes out, not after it
            self._warmed = True
            asyncio.ensure_future(self._warm())
        if isinstance(diags, CarriedDiagnostics):  # rendered with the set by the build
            doc.unreachable_shown = version
            return list(diags)
        if not self._showable(doc, idx):
            return diags
        loop = asyncio.get_running_loop()
        diags = await loop.run_in_executor(self.scheduler.indexer, self.render, idx, doc.unreachable)
        doc.unreachable_shown = version
        return diags

    async def show(self, doc: DocumentState) -> None:
        """Publish the newest index's diagnostics again with the set added (push), or make
        them the next pull's answer and ask the client to pull (pull)."""
        idx, version = doc.index, doc.indexed_version
        if idx is None or not idx.is_tokenizer or not idx.lookups_ready or not self.enabled():
            return
        if not doc.unreachable and doc.unreachable_shown is None:
            return  # nothing shown, nothing to show
        loop = asyncio.get_running_loop()
        if doc.unreachable:
            diags = await loop.run_in_executor(self.scheduler.indexer, self.render, idx, doc.unreachable)
        else:  # the last set was emptied: the findings without it
            diags = await loop.run_in_executor(self.scheduler.indexer, diagnostics_for, idx,
                                               self.session.settings, self.session.encoding)
        del idx
        if doc.indexed_version != version or self.session.documents.get(doc.uri) is not doc:
            return  # a newer index was published meanwhile, with the set already on it
        doc.unreachable_shown = version if doc.unreachable else None
        caps = self.session.capabilities
        doc.diagnostics = diags if caps.pull_diagnostics else []  # kept for pulls only
        if not caps.pull_diagnostics:
            self.scheduler.publish(doc.uri, diags, version)
        elif caps.diagnostic_refresh:
            self.scheduler.server.workspace_diagnostic_refresh(None)
        # else: a client that pulls and cannot be asked to pull again (Neovim 0.11) gets the
        # set with its next pull (after an edit); pushing it beside would break "pushed or
        # pulled, never both" (INTERFACE.md)

    # ---- computed ------------------------------------------------------------------------

    async def indexed(self, doc: DocumentState, idx: DocumentIndex, version: int) -> None:
        """An index's lookups are built: show the last set on it if its publication lacked
        it, and compute the set again when this version's is not known."""
        if idx.format == "merges.txt":
            self._merges_changed(doc, version)
        if self._showable(doc, idx) and doc.unreachable_shown != version and doc.index is idx:
            await self.show(doc)
        self.want(doc)

    def want(self, doc: DocumentState) -> None:
        if doc.reaching or not self.enabled() or doc.unreachable_version == doc.indexed_version:
            return
        if doc.index is not None and doc.index.format == "merges.txt":
            return  # its vocab.json holds the set (unreachable_version: see _merges_changed)
        doc.reaching = True
        asyncio.ensure_future(self._run(doc))

    def _merges_changed(self, doc: DocumentState, version: int) -> None:
        """A merges file's new version changes what the vocab.json beside it produces."""
        before, doc.unreachable_version = doc.unreachable_version, version
        if before is None or before == version or not doc.path:
            return
        for other in self.session.beside(doc.path):
            if other.index is not None and other.index.format == "vocab.json":
                other.unreachable_version = None
                self.want(other)

    async def _run(self, doc: DocumentState) -> None:
        from .scheduler import SETTLE_S

        try:
            while self.session.documents.get(doc.uri) is doc and self.enabled():
                if doc.unreachable_version == doc.indexed_version:
                    return
                # the first set: at once (the engine works in its own process while this
                # one builds the lookups)
                if doc.unreachable is not None:
                    # later sets: once the edits have settled, and then only for the
                    # newest version (never a queue of stale ones)
                    while True:
                        if doc.busy:
                            await doc.settled.wait()
                        await asyncio.sleep(SETTLE_S)
                        if not doc.busy:
                            break
                    if self.session.documents.get(doc.uri) is not doc or not self.enabled():
                        return
                version = doc.indexed_version
                if version is None or doc.unreachable_version == version:
                    return
                started = time.perf_counter()
                entries = await self._compute(doc, version)
                if entries is None or self.session.documents.get(doc.uri) is not doc:
                    return
                log.info("%s v%s: %d unreachable tokens in %.0f ms", doc.uri.rsplit("/", 1)[-1], version,
                         len(entries), (time.perf_counter() - started) * 1e3)
                doc.unreachable, doc.unreachable_version = entries, version
                await self.show(doc)
        except Exception:  # a bug here must not take the server down
            log.exception("unreachable tokens of %s failed", doc.uri)
        finally:
            doc.reaching = False

    async def _compute(self, doc: DocumentState, version: int) -> list[UnreachableEntry] | None:
        idx = doc.index
        if idx is None or idx.format not in COMPUTED_FOR or idx.syntax_error is not None:
            return []  # a broken file loads in no engine: no set, as `check` has none
        # the text alone, handed to the engine client, which lets it go once sent: neither a
        # second index nor an old text kept alive while the engine works
        text, path, fmt = [idx.data], doc.path, idx.format
        del idx
        try:
            companion_path, companion = await companion_bytes(self.session, text[0], path)
            await self._engine_started()
            entries = await self.scheduler.server.engine.unreachable((doc.uri, version), text, path, companion,
                                                                     companion_path)
            # kept until the next set: compact, their messages written once (indexer thread)
            return await asyncio.get_running_loop().run_in_executor(
                self.scheduler.indexer, compact_entries, entries, fmt)
        except LoadError:
            return []
        except EngineError as e:
            log.warning("unreachable tokens of %s: %s", doc.uri, e)
            return None
