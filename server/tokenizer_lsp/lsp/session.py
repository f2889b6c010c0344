"""What the server knows between messages: documents, settings, client capabilities.

As in ruff's server: capabilities are resolved once at `initialize` (lsp/capabilities.py);
a request handler asks the session for a `Snapshot` of a document (an index that is
complete, plus the edits the client made since) or for the client's text, and never sees
the document's state (lsp/documents.py) nor scheduling.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os

from pygls.uris import to_fs_path

from ..core.index.document import DocumentIndex
from ..core.text.edits import Change, apply_changes
from ..runtime import read_ahead
from . import work
from .capabilities import ResolvedClientCapabilities
from .documents import DocumentState
from .settings import Settings
from .snapshot import Snapshot

SETTLE_S = 5.0  # a command on an edit being indexed: wait this long for its index, then answer the last one


def uri_to_path(uri: str) -> str | None:
    """A file URI as a local path (pygls' helper: `file:///c%3A/x` is `c:\\x` on Windows)."""
    try:
        return to_fs_path(uri)
    except Exception:  # an URI pygls cannot read: no path, no paired files
        return None


class Session:
    """Open documents, settings and the client's resolved capabilities."""

    def __init__(self) -> None:
        self.documents: dict[str, DocumentState] = {}
        self.settings = Settings()
        self.init_options: dict = {}
        self.capabilities = ResolvedClientCapabilities()
        self.encoding = "utf-16"
        # uri -> (version, token) of background requests that read that version of it
        self._readers: dict[str, list[tuple[int, object]]] = {}

    def _read_by_request(self, uri: str, version: int | None) -> None:
        """The background request being handled read this version of the document: a newer
        one cancels it (lsp/work.py). Requests already answered are forgotten here."""
        token = work.current_token()
        if token is None or version is None:
            return
        kept = [(v, t) for v, t in self._readers.get(uri, ()) if not work.answered(t)]
        kept.append((version, token))
        self._readers[uri] = kept

    def _stale(self, uri: str, version: int | None) -> None:
        """Cancel the background requests that read a version of the document older than
        `version` (None: it was closed)."""
        readers = self._readers.pop(uri, None)
        if not readers:
            return
        kept = []
        for v, token in readers:
            if version is None or v < version:
                token.cancel()
            elif not work.answered(token):
                kept.append((v, token))
        if kept:
            self._readers[uri] = kept

    # ---- text sync (the didOpen/didChange/didClose handlers) ---------------------------------

    def open(self, uri: str, version: int, text: str) -> DocumentState:
        """A document opened: its text as UTF-8 bytes (read ahead by the transport when large)."""
        data = read_ahead.take(uri, version)
        if data is None:
            data = text.encode("utf-8", "surrogatepass")
        doc = self.documents[uri] = DocumentState(uri, uri_to_path(uri), version, data)
        return doc

    def change(self, uri: str, version: int, changes: list[Change]) -> DocumentState | None:
        """The client's changes queued (the indexer thread applies them), their spans kept."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        for c in changes:
            doc.record_change(version, c, self.encoding)
        doc.text.version = version
        self._stale(uri, version)
        return doc

    def close(self, uri: str) -> DocumentState | None:
        self._stale(uri, None)
        return self.documents.pop(uri, None)

    # ---- what requests read -----------------------------------------------------------------

    def open_uris(self) -> list[str]:
        return list(self.documents)

    def is_open(self, uri: str) -> bool:
        return uri in self.documents

    def path_of(self, uri: str) -> str | None:
        doc = self.documents.get(uri)
        return doc.path if doc is not None else None

    def uri_of_path(self, path: str) -> str | None:
        """The URI of the open document at `path`, if any."""
        doc = self.document_at(path)
        return doc.uri if doc is not None else None

    def snapshot(self, uri: str) -> Snapshot | None:
        doc = self.documents.get(uri)
        return self._snapshot(doc) if doc is not None else None

    def _snapshot(self, doc: DocumentState, navigation: bool = False) -> Snapshot | None:
        return doc.served.snapshot(doc.uri, doc.path, self.encoding, self.settings, navigation)

    async def first_snapshot(self, uri: str, wait: bool = True, timeout: float = 10.0) -> Snapshot | None:
        """A snapshot; on a newly opened document, once its first index is complete."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        snap = self._snapshot(doc)
        if snap is None and wait and doc.jobs.busy and doc.served.good is None:
            try:
                await asyncio.wait_for(doc.jobs.settled.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            snap = self._snapshot(doc)
        return snap

    async def navigation_snapshot(self, uri: str, timeout: float = 20.0) -> Snapshot | None:
        """A snapshot of an index with navigation lookups; on a newly opened document, once
        they are built (they come after the diagnostics and the hover lookups)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        served = doc.served
        snap = self._snapshot(doc, navigation=True)
        if snap is None and served.navigable is None and (doc.jobs.busy or served.good is not None):
            try:
                await asyncio.wait_for(served.navigation_ready.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            snap = self._snapshot(doc, navigation=True)
        return snap

    async def _settled(self, doc: DocumentState, timeout: float, shield: bool = False) -> None:
        """Once no build of doc is due or running (at most `timeout`)."""
        if doc.jobs.busy:
            waited = doc.jobs.settled.wait()
            try:
                await asyncio.wait_for(asyncio.shield(waited) if shield else waited, timeout)
            except asyncio.TimeoutError:
                pass

    async def current_diagnostics(self, uri: str, timeout: float = 20.0) -> list[dict]:
        """The rendered findings of the document's current version (waiting for it)."""
        doc = self.documents.get(uri)
        if doc is None:
            return []
        await self._settled(doc, timeout)
        return doc.served.diagnostics

    async def exact_snapshot(self, uri: str, timeout: float = 10.0) -> Snapshot | None:
        """A snapshot whose index was built from exactly the client's current text (a
        re-index under way: its end), so that every range made from it is where it says."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        await self.current_diagnostics(uri, timeout)
        snap = self.snapshot(uri)
        data = doc.text.data
        if snap is None or snap.spans or doc.text.queued or not (data is snap.index.data or data == snap.index.data):
            return None
        self._read_by_request(uri, doc.text.version)
        return dataclasses.replace(snap, version=doc.text.version)

    async def settled_index(
        self, uri: str, lookups: bool = False, tokenizer: bool = False, timeout: float = SETTLE_S
    ) -> tuple[DocumentIndex, int | None] | None:
        """(index, its version) a command reads (documents.ServedIndexes.serving), once an
        edit being indexed has its index (at most `timeout`: then the last one)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        await self._settled(doc, timeout, shield=True)
        found = doc.served.serving(lookups=lookups, tokenizer=tokenizer)
        if found is not None:
            self._read_by_request(uri, doc.text.version)
        return found

    def known_not_tokenizer(self, uri: str) -> bool:
        """Indexed, and never found to be a tokenizer file."""
        doc = self.documents.get(uri)
        idx = doc.served.index if doc is not None else None
        return idx is not None and not idx.is_tokenizer and not doc.served.was_tokenizer

    async def current_text(self, uri: str) -> tuple[int, bytes] | None:
        """(version, UTF-8 text) the client shows now: the document's bytes with the changes
        queued since applied (a build keeps them queued until it stores their text: the two
        always make the client's text)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        version, data, queued = doc.text.version, doc.text.data, list(doc.text.queued)
        self._read_by_request(uri, version)
        if queued:  # applying edits to a 30 MB text takes a while: not on the event loop
            data, _ = await work.off_loop(work.Mode.LATENCY, None, apply_changes, data, queued, self.encoding)
        return version, data

    def applied_text(self, path: str) -> tuple[bytes | None, int | None] | None:
        """(text, version) of the open document at `path`; text None while changes are
        queued that no build has applied yet. None when no document is open there."""
        doc = self.document_at(path)
        if doc is None:
            return None
        return (doc.text.data if not doc.text.queued else None), doc.text.version

    def open_text(self, path: str) -> bytes | None:
        """The editor's text of the document at `path`, when it is open."""
        doc = self.document_at(path)
        return doc.text.data if doc is not None else None

    def document_at(self, path: str) -> DocumentState | None:
        """The open document at `path` (the jobs' and paired files' look-up)."""
        want = os.path.abspath(path)
        return next((d for d in list(self.documents.values()) if d.path and os.path.abspath(d.path) == want), None)

    def others_in_folder(self, path: str) -> list[DocumentState]:
        """Open documents in the folder of `path`, other than it (the jobs' folder re-checks)."""
        folder = os.path.dirname(os.path.abspath(path))
        return [
            d
            for d in list(self.documents.values())
            if d.path and d.path != path and os.path.dirname(os.path.abspath(d.path)) == folder
        ]
