"""didChange: queue the edits (the indexer thread applies them) and re-index after a pause."""

from __future__ import annotations

from lsprotocol import types

from ...core.text.edits import Change


def handle(ls, params: types.DidChangeTextDocumentParams) -> None:
    changes = []
    for c in params.content_changes:
        rng = getattr(c, "range", None)
        if rng is None:
            changes.append(Change(c.text))
        else:
            changes.append(Change(c.text, (rng.start.line, rng.start.character), (rng.end.line, rng.end.character)))
    doc = ls.session.change(params.text_document.uri, params.text_document.version, changes)
    if doc is not None:
        ls.scheduler.schedule(doc, delay=ls.session.settings.debounce_ms / 1000)
