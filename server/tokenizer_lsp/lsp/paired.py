"""The other file of a pair: a merges file's vocab.json, a vocab.json's merges file.

The editor's text when that file is open (its navigation snapshot), else the file on
disk, indexed once per modification (in the navigator thread) and kept while unchanged.
"""

from __future__ import annotations

import asyncio
import os

from pygls.uris import from_fs_path

from ..core.detect import MERGES_NAMES
from ..core.files import companion_vocab_path, file_beside, index_file
from ..core.index import DocumentIndex
from .snapshot import Snapshot

_disk: dict[str, tuple[tuple[int, int], DocumentIndex]] = {}


def paired_path(snap: Snapshot, path: str | None) -> str | None:
    if not path:
        return None
    if snap.index.format == "merges.txt":
        return companion_vocab_path(path)
    if snap.index.format == "vocab.json":
        return file_beside(path, MERGES_NAMES)
    return None


async def paired(ls, snap: Snapshot, path: str | None) -> tuple[str, Snapshot] | None:
    """(uri, snapshot) of the file paired with the one at `path`, if any."""
    other = paired_path(snap, path)
    if other is None:
        return None
    session = ls.session
    want = os.path.abspath(other)
    for doc in list(session.documents.values()):
        if doc.path and os.path.abspath(doc.path) == want:
            found = await session.navigation_snapshot(doc.uri)
            return (doc.uri, found) if found is not None else None
    idx = await asyncio.get_running_loop().run_in_executor(ls.scheduler.navigator, _disk_index, want)
    if idx is None:
        return None
    return from_fs_path(want) or ("file://" + want), Snapshot(idx, (), session.encoding, session.settings)


def _disk_index(path: str) -> DocumentIndex | None:
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
        cached = _disk.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        idx = index_file(path)  # a merges file with the vocabulary beside it
    except OSError:
        return None
    if idx.doc is None:
        return None
    idx.prepare_lookups()
    idx.prepare_navigation()
    _disk[path] = (stamp, idx)
    return idx
