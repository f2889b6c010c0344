"""What the server knows between messages: documents, settings, client capabilities.

As in ruff's server: capabilities are resolved once at `initialize`; a handler asks the
session for a `Snapshot` of a document (an index that is complete, plus the edits the
client made since) and never sees scheduling state.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field

from pygls.uris import to_fs_path

from ..core.index.document import DocumentIndex
from ..core.navigation.build import Navigation
from ..core.text.edits import Change
from ..core.text.position_map import Span, applied_span, merged
from .settings import Settings
from .snapshot import Snapshot


def uri_to_path(uri: str) -> str | None:
    """A file URI as a local path (pygls' helper: `file:///c%3A/x` is `c:\\x` on Windows)."""
    try:
        return to_fs_path(uri)
    except Exception:  # an URI pygls cannot read: no path, no paired files
        return None


# Texts of large didOpens that the transport read straight to UTF-8 bytes, by (uri, version)
_prefetched: dict[tuple[str, int], bytes] = {}


def prefetch_text(uri: str, version: int, data: bytes) -> None:
    _prefetched.clear()  # taken at once by the didOpen handler; never pile up
    _prefetched[(uri, version)] = data


def take_prefetched_text(uri: str, version: int) -> bytes | None:
    return _prefetched.pop((uri, version), None)


def _get(node, path: str):
    for part in path.split("."):
        node = getattr(node, part, None) if node is not None else None
    return node


@dataclass(frozen=True)
class ResolvedClientCapabilities:
    """The client's capabilities this server acts on, read once at initialize."""

    pull_diagnostics: bool = False
    inlay_hint_refresh: bool = False
    diagnostic_refresh: bool = False
    configuration: bool = False
    watched_files: bool = False
    work_done_progress: bool = False
    hover_markdown: bool = True

    @classmethod
    def resolve(cls, caps) -> ResolvedClientCapabilities:
        formats = _get(caps, "text_document.hover.content_format")
        return cls(
            pull_diagnostics=bool(_get(caps, "text_document.diagnostic")),
            inlay_hint_refresh=bool(_get(caps, "workspace.inlay_hint.refresh_support")),
            diagnostic_refresh=bool(_get(caps, "workspace.diagnostics.refresh_support")),
            configuration=bool(_get(caps, "workspace.configuration")),
            watched_files=bool(_get(caps, "workspace.did_change_watched_files.dynamic_registration")),
            work_done_progress=bool(_get(caps, "window.work_done_progress")),
            hover_markdown=not formats or "markdown" in [getattr(f, "value", f) for f in formats],
        )


@dataclass
class DocumentState:
    """One open document: its bytes per version, the indexes built from them, and the
    edits the client made since the index that serves requests."""

    uri: str
    path: str | None
    version: int
    data: bytes
    index: DocumentIndex | None = None  # the newest index (any version)
    indexed_version: int | None = None
    good: DocumentIndex | None = None  # the newest whole index (serves while typing)
    good_version: int | None = None
    navigable: DocumentIndex | None = None  # the newest index with navigation lookups
    navigable_version: int | None = None
    # those lookups (core.navigation.build): they serve every index of navigable's parse
    # (what typing derives from it keeps its ordinals and ranks); held here, never in an index
    navigation: Navigation | None = None
    navigation_ready: asyncio.Event = field(default_factory=asyncio.Event)  # set when one is built
    # every edit received after good_version: (version it made, its span; None = whole text)
    history: list[tuple[int, Span | None]] = field(default_factory=list)
    diagnostics: list = field(default_factory=list)  # rendered for indexed_version
    was_tokenizer: bool = False
    # byte edits from `index`'s text to `data`; None when only a re-parse will do
    pending: list | None = field(default_factory=list)
    # changes received but not applied to `data` yet (the indexer thread applies them)
    queued: list[Change] = field(default_factory=list)
    reindexing: int = 0  # a build is running (lsp/jobs/indexing.py)
    built_from: int | None = None  # the version the latest build started from
    busy: bool = False  # a build is scheduled or running
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # set while not busy

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        if busy:
            self.settled.clear()
        else:
            self.settled.set()

    async def quiet_for(self, seconds: float) -> None:
        """Returns once no edit came for `seconds` and no build is due or running: a burst
        of typing has settled. An edit during the wait starts it again. (Looking at `busy`
        once after a sleep took the gap between two keystrokes for quiet: the unreachable
        set's child was forked, then killed, in the middle of typing, and its fork of the
        whole server stalled the hover that came with the next keystroke.)"""
        while True:
            if self.busy:
                await self.settled.wait()
            version = self.version
            await asyncio.sleep(seconds)
            if not self.busy and self.version == version:
                return

    def _serving(self) -> tuple[DocumentIndex, int | None] | None:
        idx = self.index
        current = idx is not None and idx.doc is not None and idx.lookups_ready
        good = self.good is not None and self.good.lookups_ready
        # what broken JSON salvaged is partial: the last whole index, carried through the
        # edits since, knows more (the tokens after the break too)
        if current and not (good and idx.salvaged):
            return idx, self.indexed_version
        if good:
            return self.good, self.good_version
        return None

    def snapshot(self, encoding: str, settings: Settings, navigation: bool = False) -> Snapshot | None:
        """The serving index and the edits from its text to the current one; None when
        there is none or a whole-text replacement since makes its positions meaningless.
        navigation: the newest index whose navigation lookups are built."""
        found = (
            self._serving()
            if not navigation
            else ((self.navigable, self.navigable_version) if self.navigable is not None else None)
        )
        if found is None:
            return None
        idx, version = found
        spans = []
        for v, span in self.history:
            if version is not None and v <= version:
                continue
            if span is None:
                return None
            spans.append(span)
        return Snapshot(idx, tuple(spans), encoding, settings, self.navigation_of(idx))

    def navigation_of(self, idx: DocumentIndex) -> Navigation | None:
        """The navigation lookups built for idx's parse, if any."""
        nav = self.navigable
        return self.navigation if nav is not None and nav.parse_id == idx.parse_id else None

    def mappable_span(self, start, end, text: str, encoding: str) -> Span | None:
        """The span of a change in the client's current text, clamped by the LSP rules
        against the serving index's text and the edits since; None (positions are not
        carried through it) when that cannot be told."""
        found = self._serving()
        if found is None:
            return None
        idx, version = found
        spans = [s for v, s in self.history if version is None or v > version]
        if any(s is None for s in spans):
            return None
        return applied_span(start, end, text, encoding, spans, idx.lines)

    def record_edit(self, version: int, span: Span | None) -> None:
        if self.history and span is not None:
            last_version, last = self.history[-1]
            # typing at one place: one span, unless a build took the text in between (its
            # index maps from there); a burst's hovers then map through one span, not 600
            if last is not None and last_version != self.built_from:
                both = merged(last, span)
                if both is not None:
                    self.history[-1] = (version, both)
                    return
        if len(self.history) >= 10000:  # broken for ages: stop mapping until it parses again
            self.history = [(version, None)]
        else:
            self.history.append((version, span))

    def set_good(self, idx: DocumentIndex, version: int) -> None:
        self.good, self.good_version = idx, version
        self._trim_history()

    def set_navigable(self, idx: DocumentIndex, version: int, navigation: Navigation) -> None:
        self.navigable, self.navigable_version, self.navigation = idx, version, navigation
        self.navigation_ready.set()
        self._trim_history()

    def _trim_history(self) -> None:
        """Keep the edits made since the oldest index that still serves something."""
        versions = [v for v in (self.good_version, self.navigable_version) if v is not None]
        oldest = min(versions) if versions else None
        if oldest is not None:
            self.history = [(v, s) for v, s in self.history if v > oldest]


class Session:
    """Open documents, settings and the client's resolved capabilities."""

    def __init__(self) -> None:
        self.documents: dict[str, DocumentState] = {}
        self.settings = Settings()
        self.init_options: dict = {}
        self.capabilities = ResolvedClientCapabilities()
        self.encoding = "utf-16"

    def snapshot(self, uri: str) -> Snapshot | None:
        doc = self.documents.get(uri)
        return doc.snapshot(self.encoding, self.settings) if doc is not None else None

    async def first_snapshot(self, uri: str, wait: bool = True, timeout: float = 10.0) -> Snapshot | None:
        """A snapshot; on a newly opened document, once its first index is complete."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        snap = doc.snapshot(self.encoding, self.settings)
        if snap is None and wait and doc.busy and doc.good is None:
            try:
                await asyncio.wait_for(doc.settled.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            snap = doc.snapshot(self.encoding, self.settings)
        return snap

    async def navigation_snapshot(self, uri: str, timeout: float = 20.0) -> Snapshot | None:
        """A snapshot of an index with navigation lookups; on a newly opened document, once
        they are built (they come after the diagnostics and the hover lookups)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        snap = doc.snapshot(self.encoding, self.settings, navigation=True)
        if snap is None and doc.navigable is None and (doc.busy or doc.good is not None):
            try:
                await asyncio.wait_for(doc.navigation_ready.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            snap = doc.snapshot(self.encoding, self.settings, navigation=True)
        return snap

    async def current_diagnostics(self, uri: str, timeout: float = 20.0) -> list[dict]:
        """The rendered findings of the document's current version (waiting for it)."""
        doc = self.documents.get(uri)
        if doc is None:
            return []
        if doc.busy:
            try:
                await asyncio.wait_for(doc.settled.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        return doc.diagnostics

    def open_text(self, path: str) -> bytes | None:
        """The editor's text of the document at `path`, when it is open."""
        want = os.path.abspath(path)
        for doc in list(self.documents.values()):
            if doc.path and os.path.abspath(doc.path) == want:
                return doc.data
        return None

    def beside(self, path: str) -> list[DocumentState]:
        """Open documents in the folder of `path`, other than it."""
        folder = os.path.dirname(os.path.abspath(path))
        return [
            d
            for d in list(self.documents.values())
            if d.path and d.path != path and os.path.dirname(os.path.abspath(d.path)) == folder
        ]
