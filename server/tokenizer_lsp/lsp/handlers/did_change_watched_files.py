"""workspace/didChangeWatchedFiles: a vocabulary changed on disk."""

from __future__ import annotations

from lsprotocol import types

from ..session import uri_to_path


def handle(ls, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = uri_to_path(change.uri)
        if path and ls.session.open_text(path) is None:  # an open one is followed through its edits
            ls.scheduler.vocabulary_changed(path)
