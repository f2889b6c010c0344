"""didChange: queue the edits (the indexer thread applies them) and re-index after a pause."""

from __future__ import annotations

from lsprotocol import types

from ...core.text.edits import Change


def handle(ls, params: types.DidChangeTextDocumentParams) -> None:
    doc = ls.session.documents.get(params.text_document.uri)
    if doc is None:
        return
    version = params.text_document.version
    encoding = ls.session.encoding
    for c in params.content_changes:
        rng = getattr(c, "range", None)
        if rng is None:
            doc.queued.append(Change(c.text))
            doc.record_edit(version, None)
        else:
            start, end = (rng.start.line, rng.start.character), (rng.end.line, rng.end.character)
            doc.queued.append(Change(c.text, start, end))
            doc.record_edit(version, doc.mappable_span(start, end, c.text, encoding))
    doc.version = version
    ls.scheduler.schedule(doc, delay=ls.session.settings.debounce_ms / 1000)
