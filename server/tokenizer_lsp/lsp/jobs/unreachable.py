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
tokenizer does. Latest wins: a set is computed only for the newest version, and one that
comes back for a version replaced meanwhile is dropped. The last set is kept here per
document as entries named by id and token and placed on every newer index through its own lookups until the next
one arrives, so a keystroke never makes the findings flicker. With the code turned off
(`diagnostics.severity`), nothing is computed. A set the disk cache holds for the text (the
file opened before: core/behaviour/reachability/cache.py) is read first and shown as soon as
the lookups can place it, since nothing is forked for it (it used to wait for the
navigation lookups: 8-16 s after opening qwen3 on a busy machine).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...core.behaviour.loaded import LoadError
from ...core.behaviour.reachability import cache as reachability_cache
from ...core.behaviour.reachability.findings import (
    CODE,
    UnreachableEntry,
    compact_entries,
    unreachable_findings,
    with_unreachable,
)
from ...core.index.document import DocumentIndex
from ..documents import DocumentState
from ..engine_client import EngineError, companion_bytes
from ..render.diagnostics import diagnostics_for
from ..work import Mode, off_loop
from .navigation import SETTLE_S

log = logging.getLogger("tokenizer_lsp")
# the files whose vocab entries can hold the findings (a merges file's are on its vocab.json)
COMPUTED_FOR = ("tokenizer.json", "vocab.json", "tiktoken")
NAVIGATION_WAIT_S = 20.0  # the first set waits this long at most for the navigation lookups


class CarriedDiagnostics(list):
    """Diagnostics rendered with the last unreachable set already on them."""

    __slots__ = ()


class _WithFindings:
    """An index seen with more findings (what diagnostics_for reads of it)."""

    __slots__ = ("data", "findings", "lines")

    def __init__(self, idx: DocumentIndex, findings) -> None:
        self.findings, self.lines, self.data = findings, idx.lines, idx.data


@dataclass
class _Reach:
    """One document's set: the last one (entries by id and token), the version it was
    computed for, the version last published with it, whether a task is computing one."""

    doc: object = None
    entries: list | None = None
    version: int | None = None
    shown: int | None = None
    running: bool = False


class Unreachable:
    def __init__(self, session, publisher, executor, engine: Callable) -> None:
        self.session = session
        self.publisher = publisher
        self.executor = executor  # the indexing thread: a render never runs beside a build
        self.engine = engine  # () -> the engine client (the helper process)
        self._reach: dict[str, _Reach] = {}

    def of(self, doc: DocumentState) -> _Reach:
        r = self._reach.get(doc.uri)
        if r is None or r.doc is not doc:
            r = self._reach[doc.uri] = _Reach(doc)
        return r

    def forget(self, doc: DocumentState) -> None:
        if self._reach.get(doc.uri) is not None and self._reach[doc.uri].doc is doc:
            del self._reach[doc.uri]

    def enabled(self) -> bool:
        return self.session.settings.level(CODE) != "off"

    def count(self, uri: str) -> int | None:
        """How many unreachable-token findings the server holds for the document (the last
        set computed, which the diagnostics carry through edits until the next); None until
        one is (the stats command)."""
        r = self._reach.get(uri)
        held = r.entries if r is not None and r.doc is self.session.documents.get(uri) else None
        return len(held) if isinstance(held, list) else None

    def why_uncounted(self, idx: DocumentIndex) -> str | None:
        """Why the server holds no count for the document (stats says it after "not
        computed"); None while it is computing one (the status bar asks again until then)."""
        if not self.enabled():
            return "unreachable-token is turned off (diagnostics.severity)"
        if idx.format in COMPUTED_FOR:
            return None
        return "the server computes them for tokenizer.json, vocab.json and .tiktoken files only"

    # ---- shown on an index ---------------------------------------------------------------

    def render(self, idx: DocumentIndex, entries: list[UnreachableEntry]) -> list[dict]:
        """All of idx's diagnostics with the unreachable set placed on it (indexer thread)."""
        merged = with_unreachable(idx.findings, unreachable_findings(idx, entries))
        return diagnostics_for(_WithFindings(idx, merged), self.session.settings, self.session.encoding)

    def carrying(self, doc: DocumentState) -> list[UnreachableEntry] | None:
        """The set a new index of doc will show, when there is one (read on the loop)."""
        entries = self.of(doc).entries
        return entries if entries and self.enabled() else None

    def render_carried(self, idx: DocumentIndex, entries: list[UnreachableEntry]) -> CarriedDiagnostics:
        return CarriedDiagnostics(self.render(idx, entries))

    @staticmethod
    def placeable(idx: DocumentIndex | None) -> bool:
        return idx is not None and idx.is_tokenizer and idx.lookups_ready

    def _showable(self, doc: DocumentState, idx: DocumentIndex | None) -> bool:
        return bool(self.of(doc).entries) and self.enabled() and self.placeable(idx)

    async def carried(self, doc: DocumentState, idx: DocumentIndex, diags: list[dict], version: int) -> list[dict]:
        """The diagnostics to publish for a new index: with the last set when this index can
        place it already (an edit inside a token keeps the lookups), else as they are (the
        set follows once the lookups are built: `indexed`)."""
        r = self.of(doc)
        if isinstance(diags, CarriedDiagnostics):  # rendered with the set by the build
            r.shown = version
            return list(diags)
        if not self._showable(doc, idx):
            return diags
        diags = await off_loop(Mode.BACKGROUND, None, self.render, idx, r.entries, pool=self.executor)
        r.shown = version
        return diags

    async def show(self, doc: DocumentState) -> None:
        """Publish the newest index's diagnostics again with the set added (push), or make
        them the next pull's answer and ask the client to pull (pull)."""
        r = self.of(doc)
        idx, version = doc.served.index, doc.served.indexed_version
        if idx is None or not idx.is_tokenizer or not idx.lookups_ready or not self.enabled():
            return
        if not r.entries and r.shown is None:
            return  # nothing shown, nothing to show
        if r.entries:
            diags = await off_loop(Mode.BACKGROUND, None, self.render, idx, r.entries, pool=self.executor)
        else:  # the last set was emptied: the findings without it
            diags = await off_loop(
                Mode.BACKGROUND,
                None,
                diagnostics_for,
                idx,
                self.session.settings,
                self.session.encoding,
                pool=self.executor,
            )
        del idx
        if (
            doc.served.indexed_version != version
            or doc.text.version != version
            or self.session.documents.get(doc.uri) is not doc
        ):
            return  # replaced meanwhile: the newer index is published with the set on it
        r.shown = version if r.entries else None
        # a client that pulls and cannot be asked to pull again (Neovim 0.11) gets the set
        # with its next pull (after an edit); pushing it beside would break "pushed or
        # pulled, never both" (docs/architecture.md, "Architecture invariants")
        self.publisher.findings(doc, diags, version, caused_here=False)

    # ---- computed ------------------------------------------------------------------------

    async def indexed(self, doc: DocumentState, idx: DocumentIndex, version: int) -> None:
        """An index's lookups are built: show the last set on it if its publication lacked
        it, and compute the set again when this version's is not known."""
        if idx.format == "merges.txt":
            self._merges_changed(doc, version)
        if self._showable(doc, idx) and self.of(doc).shown != version and doc.served.index is idx:
            await self.show(doc)
        self.want(doc)

    def want(self, doc: DocumentState) -> None:
        r = self.of(doc)
        if r.running or not self.enabled() or r.version == doc.served.indexed_version:
            return
        if doc.served.index is not None and doc.served.index.format == "merges.txt":
            return  # its vocab.json holds the set (version: see _merges_changed)
        r.running = True
        asyncio.ensure_future(self._run(doc, r))

    def busy(self) -> bool:
        """A set being computed, or waiting for edits to settle before it is."""
        return any(r.running for r in self._reach.values())

    def _merges_changed(self, doc: DocumentState, version: int) -> None:
        """A merges file's new version changes what the vocab.json beside it produces."""
        r = self.of(doc)
        before, r.version = r.version, version
        if before is None or before == version or not doc.path:
            return
        for other in self.session.others_in_folder(doc.path):
            if other.served.index is not None and other.served.index.format == "vocab.json":
                self.of(other).version = None
                self.want(other)

    async def _run(self, doc: DocumentState, r: _Reach) -> None:
        try:
            while self.session.documents.get(doc.uri) is doc and self.enabled():
                if r.version == doc.served.indexed_version:
                    return
                # the first set: at once (the engine works in its own process while this
                # one builds the lookups)
                if r.entries is not None:
                    # later sets: once the edits have settled, and then only for the
                    # newest version (never a queue of stale ones)
                    await doc.quiet_for(SETTLE_S)
                    if self.session.documents.get(doc.uri) is not doc or not self.enabled():
                        return
                if r.entries is None and r.version is None:
                    # a set kept on disk for this very text (the file opened before) needs no
                    # child: shown as soon as the lookups can place it, not after the
                    # navigation lookups (8-16 s after the open of qwen3 on a loaded machine)
                    version = doc.served.indexed_version
                    entries = await self._cached(doc)
                    current = self.session.documents.get(doc.uri) is doc and doc.text.version == version
                    if entries is not None and current and doc.served.indexed_version == version:
                        log.info(
                            "%s v%s: %d unreachable tokens, kept on disk",
                            doc.uri.rsplit("/", 1)[-1],
                            version,
                            len(entries),
                        )
                        r.entries, r.version = entries, version
                        await self.show(doc)
                        continue  # the loop's check: this version's set is known
                if r.entries is None:
                    # the first set after the navigation lookups: their forked child would
                    # end the set's own child 0.2 s into its work (one child at a time:
                    # engine/reachability_child.py); never waiting past NAVIGATION_WAIT_S
                    try:
                        await asyncio.wait_for(doc.served.navigation_ready.wait(), NAVIGATION_WAIT_S)
                    except asyncio.TimeoutError:
                        pass
                version = doc.served.indexed_version
                if version is None or r.version == version:
                    return
                if doc.text.version != version and r.entries is not None:
                    return  # not the newest text: never started (its index comes, and asks again)
                started = time.perf_counter()
                entries = await self._compute(doc, version)
                if entries is None or self.session.documents.get(doc.uri) is not doc:
                    return
                if doc.text.version != version and r.entries is not None:
                    log.info(
                        "%s v%s: unreachable set dropped (v%s came)",
                        doc.uri.rsplit("/", 1)[-1],
                        version,
                        doc.text.version,
                    )
                    continue  # replaced while computed: the last set stands until the newest one's
                log.info(
                    "%s v%s: %d unreachable tokens in %.0f ms",
                    doc.uri.rsplit("/", 1)[-1],
                    version,
                    len(entries),
                    (time.perf_counter() - started) * 1e3,
                )
                r.entries, r.version = entries, version
                await self.show(doc)
        except Exception:  # a bug here must not take the server down
            log.exception("unreachable tokens of %s failed", doc.uri)
        finally:
            r.running = False

    async def _cached(self, doc: DocumentState) -> list[UnreachableEntry] | None:
        """The set the disk cache holds for the indexed text, or None (nothing is started)."""
        idx = doc.served.index
        if idx is None or idx.format not in COMPUTED_FOR or idx.syntax_error is not None:
            return None
        data, path, fmt = idx.data, doc.path, idx.format
        del idx
        try:
            _, companion = await companion_bytes(self.session, data, path)
            # the key hashes the whole text: off the event loop (hashlib lets go of the GIL)
            entries = await off_loop(Mode.BACKGROUND, None, _kept_on_disk, data, path, companion)
        except Exception:  # noqa: BLE001 (a cache that cannot be read is no cache)
            return None
        if entries is None:
            return None
        return await off_loop(Mode.BACKGROUND, None, compact_entries, entries, fmt, pool=self.executor)

    async def _compute(self, doc: DocumentState, version: int) -> list[UnreachableEntry] | None:
        idx = doc.served.index
        if idx is None or idx.format not in COMPUTED_FOR or idx.syntax_error is not None:
            return []  # a broken file loads in no engine: no set, as `check` has none
        # the text alone, handed to the engine client, which lets it go once sent: neither a
        # second index nor an old text kept alive while the engine works
        text, path, fmt = [idx.data], doc.path, idx.format
        del idx
        try:
            companion_path, companion = await companion_bytes(self.session, text[0], path)
            # the client starts what computes it (a forked child, else the engine helper) itself
            entries = await self.engine().unreachable((doc.uri, version), text, path, companion, companion_path)
            # kept until the next set: compact, their messages written once (indexer thread)
            return await off_loop(Mode.BACKGROUND, None, compact_entries, entries, fmt, pool=self.executor)
        except LoadError:
            return []
        except EngineError as e:  # also a set given up for a build (engine.release()): normal
            log.info("unreachable tokens of %s: %s", doc.uri, e)
            return None


def _kept_on_disk(data: bytes, path: str | None, companion: bytes | None) -> list | None:
    """What the engine's ways (engine/reachability_child.py, engine/worker.py) would read first: the set
    kept for this content, under the same key."""
    return reachability_cache.read(reachability_cache.key_of(data, path, companion, None))
