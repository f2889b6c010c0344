"""One engine per table for the plug-ins that build theirs from the table (tekken's
Tekkenizer, WordPiece's BertWordPieceTokenizer): built on the first encode, kept while the
table lives. A table is one version of one file, so its engine never goes stale; a
long-lived caller (the playground, the server's worker) then pays the build once, not per
text (Tekkenizer.from_file reads 150,000 entries: a third of a second)."""

from __future__ import annotations

import threading
import weakref

_CACHE: dict[tuple[int, object], object] = {}
_LOCK = threading.Lock()


def engine_for(table, build):
    """build(table), once per (table, build)."""
    key = (id(table), build)
    with _LOCK:
        engine = _CACHE.get(key)
    if engine is None:
        engine = build(table)
        with _LOCK:
            if key not in _CACHE:
                _CACHE[key] = engine
                weakref.finalize(table, _CACHE.pop, key, None)
            engine = _CACHE[key]
    return engine
