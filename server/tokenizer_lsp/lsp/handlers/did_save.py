"""didSave: nothing to do. The text is what the editor shows, saved or not; the route
exists so that the notification is not logged as unknown."""

from __future__ import annotations

from lsprotocol import types


def handle(ls, params: types.DidSaveTextDocumentParams) -> None:
    return None
