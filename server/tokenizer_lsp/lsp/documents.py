"""An open document as three parts, each with one owner: its text, its served indexes, the jobs' flags.

- `DocumentText`: what the client has (didOpen/didChange write it; the indexer thread
  applies the queued changes);
- `ServedIndexes`: the indexes built of it and the edits since them, and the one place
  that says which index answers a request (`serving`);
- `JobFlags`: what the jobs of lsp/jobs/ keep on it for themselves (whether a build is
  due, what it started from).

Request handlers never see this module: they ask the session (lsp/session.py) for a
`Snapshot`, which is a served index and the edits since it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ..core.index.document import DocumentIndex
from ..core.navigation.build import Navigation
from ..core.text.edits import Change
from ..core.text.position_map import Span, applied_span, merged
from .settings import Settings
from .snapshot import Snapshot


@dataclass
class DocumentText:
    """The client's text: `data` with the `queued` changes applied (a build applies them
    in the indexer thread and stores the result in `data`)."""

    version: int
    data: bytes
    queued: list[Change] = field(default_factory=list)


@dataclass
class JobFlags:
    """The jobs' own state of a document (lsp/jobs/indexing.py)."""

    # byte edits from served.index's text to text.data; None when only a re-parse will do
    pending: list | None = field(default_factory=list)
    reindexing: int = 0  # a build is running
    built_from: int | None = None  # the version the latest build started from
    busy: bool = False  # a build is scheduled or running
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # set while not busy

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        if busy:
            self.settled.clear()
        else:
            self.settled.set()


@dataclass
class ServedIndexes:
    """The indexes built of a document and which of them answers."""

    index: DocumentIndex | None = None  # the newest index (any version)
    indexed_version: int | None = None
    good: DocumentIndex | None = None  # the newest whole index with its lookups (serves while typing)
    good_version: int | None = None
    navigable: DocumentIndex | None = None  # the newest index with navigation lookups
    navigable_version: int | None = None
    # those lookups (core.navigation_build): they serve every index of navigable's parse
    # (what typing derives from it keeps its ordinals and ranks); held here, never in an index
    navigation: Navigation | None = None
    navigation_ready: asyncio.Event = field(default_factory=asyncio.Event)  # set when one is built
    # every edit received after good_version: (version it made, its span; None = whole text)
    history: list[tuple[int, Span | None]] = field(default_factory=list)
    diagnostics: list = field(default_factory=list)  # rendered for indexed_version (pull clients)
    was_tokenizer: bool = False

    # ---- which index answers: the one place that says it ------------------------------------

    def serving(self, lookups: bool = True, tokenizer: bool = False) -> tuple[DocumentIndex, int | None] | None:
        """(index, its version) that answers a request: the newest one, unless

        - it is what broken JSON salvaged and a whole one exists (the salvage is partial:
          the last whole index, carried through the edits since, knows the tokens after the
          break too);
        - its hover lookups are still being built (its vocabulary is swapped for the compact
          one meanwhile: read then, it once counted 0 tokens) and the last whole one can
          answer. `lookups=False` (a command that reads only the vocabulary) takes it when
          there is no whole one;
        - `tokenizer`: it is no tokenizer file (a command about the vocabulary).

        Then the last whole index answers, or none."""
        idx = self.index
        good = self.good is not None and (self.good.lookups_ready or not lookups)
        if (
            idx is not None
            and idx.doc is not None
            and (idx.is_tokenizer or not tokenizer)
            and not (idx.salvaged and good)
            and (idx.lookups_ready or not (lookups or good))
        ):
            return idx, self.indexed_version
        if good:
            return self.good, self.good_version
        return None

    def navigation_base(self) -> tuple[DocumentIndex, int | None] | None:
        """The index navigation lookups are built from: the last whole one, else (a file
        only ever salvaged) the newest."""
        if self.good is not None:
            return self.good, self.good_version
        if self.index is not None:
            return self.index, self.indexed_version
        return None

    def navigation_of(self, idx: DocumentIndex) -> Navigation | None:
        """The navigation lookups built for idx's parse, if any."""
        nav = self.navigable
        return self.navigation if nav is not None and nav.parse_id == idx.parse_id else None

    # ---- snapshots: an index and the edits since ---------------------------------------------

    def _edits_since(self, version: int | None) -> list[Span] | None:
        """The spans of the edits after `version`; None when one replaced the whole text."""
        spans = [s for v, s in self.history if version is None or v > version]
        return None if any(s is None for s in spans) else spans

    def snapshot(
        self, uri: str, path: str | None, encoding: str, settings: Settings, navigation: bool = False, **rule
    ) -> Snapshot | None:
        """The serving index (`serving(**rule)`) and the edits from its text to the current
        one; None when there is none or a whole-text replacement since makes its positions
        meaningless. navigation: the newest index whose navigation lookups are built."""
        if navigation:
            found = (self.navigable, self.navigable_version) if self.navigable is not None else None
        else:
            found = self.serving(**rule)
        if found is None:
            return None
        idx, version = found
        spans = self._edits_since(version)
        if spans is None:
            return None
        return Snapshot(idx, tuple(spans), encoding, settings, self.navigation_of(idx), uri, path, version)

    def mappable_span(self, start, end, text: str, encoding: str) -> Span | None:
        """The span of a change in the client's current text, clamped by the LSP rules
        against the serving index's text and the edits since; None (positions are not
        carried through it) when that cannot be told."""
        found = self.serving()
        spans = self._edits_since(found[1]) if found is not None else None
        if spans is None:
            return None
        return applied_span(start, end, text, encoding, spans, found[0].lines)

    def record_edit(self, version: int, span: Span | None, built_from: int | None) -> None:
        if self.history and span is not None:
            last_version, last = self.history[-1]
            # typing at one place: one span, unless a build took the text in between (its
            # index maps from there); a burst's hovers then map through one span, not 600
            if last is not None and last_version != built_from:
                both = merged(last, span)
                if both is not None:
                    self.history[-1] = (version, both)
                    return
        if len(self.history) >= 10000:  # broken for ages: stop mapping until it parses again
            self.history = [(version, None)]
        else:
            self.history.append((version, span))

    # ---- what the jobs store -----------------------------------------------------------------

    def set_good(self, idx: DocumentIndex, version: int) -> None:
        self.good, self.good_version = idx, version
        self._trim_history()

    def set_navigable(self, idx: DocumentIndex, version: int | None, navigation: Navigation) -> None:
        self.navigable, self.navigable_version, self.navigation = idx, version, navigation
        self.navigation_ready.set()
        self._trim_history()

    def drop_navigation(self) -> None:
        """A new parse: the old one's lookups would keep a second whole index alive while
        the new ones are built (2 s on gemma3); requests wait for those instead."""
        self.navigable = self.navigable_version = self.navigation = None
        self.navigation_ready.clear()

    def _trim_history(self) -> None:
        """Keep the edits made since the oldest index that still serves something."""
        versions = [v for v in (self.good_version, self.navigable_version) if v is not None]
        oldest = min(versions) if versions else None
        if oldest is not None:
            self.history = [(v, s) for v, s in self.history if v > oldest]


class DocumentState:
    """One open document: its URI and path, and its three parts (the module docstring)."""

    __slots__ = ("jobs", "path", "served", "text", "uri")

    def __init__(self, uri: str, path: str | None, version: int, data: bytes) -> None:
        self.uri, self.path = uri, path
        self.text = DocumentText(version, data)
        self.served = ServedIndexes()
        self.jobs = JobFlags()

    def record_change(self, version: int, change: Change, encoding: str) -> None:
        """A change the client made: queued for the indexer, its span kept for mapping."""
        self.text.queued.append(change)
        if change.start is None:
            self.served.record_edit(version, None, self.jobs.built_from)
        else:
            span = self.served.mappable_span(change.start, change.end, change.text, encoding)
            self.served.record_edit(version, span, self.jobs.built_from)

    async def quiet_for(self, seconds: float) -> None:
        """Returns once no edit came for `seconds` and no build is due or running: a burst
        of typing has settled. An edit during the wait starts it again. (Looking at `busy`
        once after a sleep took the gap between two keystrokes for quiet: the unreachable
        set's child was forked, then killed, in the middle of typing, and its fork of the
        whole server stalled the hover that came with the next keystroke.)"""
        while True:
            if self.jobs.busy:
                await self.jobs.settled.wait()
            version = self.text.version
            await asyncio.sleep(seconds)
            if not self.jobs.busy and self.text.version == version:
                return
