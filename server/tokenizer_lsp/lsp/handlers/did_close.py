"""didClose: forget the document; its findings go with it."""

from __future__ import annotations

from lsprotocol import types


def handle(ls, params: types.DidCloseTextDocumentParams) -> None:
    doc = ls.session.close(params.text_document.uri)
    if doc is not None:
        ls.scheduler.forget(doc)
