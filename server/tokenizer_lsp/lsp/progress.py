"""Work-done progress (`$/progress`) while a large document is first indexed.

Opening a 10-35 MB tokenizer.json takes seconds; a client that supports
`window.workDoneProgress` shows what the server is doing. The server begins it itself
(`window/workDoneProgress/create`) before the document's first diagnostics, and never
waits for the client's answer on the indexer's path: steps taken before the answer are
folded into the `begin` that follows it. The LSP spec lets a token be used only once
the client has accepted it, so nothing is sent for a refused or failed create.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from urllib.parse import unquote

from lsprotocol import types

from ..core import detect

log = logging.getLogger("tokenizer_lsp")

LARGE_DOCUMENT_BYTES = 5 * 1024 * 1024  # "over 5 MB": smaller files index in well under a second
TITLE = "Indexing"
_tokens = itertools.count(1)


class IndexingProgress:
    """One document's progress, from create to end. Methods are called on the event loop,
    except `step_threadsafe`, which the indexer thread uses."""

    def __init__(self, server, name: str) -> None:
        self._server = server
        self._loop = asyncio.get_running_loop()
        self.token = f"tokenizer-lsp/indexing/{next(_tokens)}"
        self._name = name
        self._accepted = False
        self._begun = False
        self._ended = False
        self._message = "parsing"
        self._percentage = 0
        try:
            future = server.protocol.send_request(
                types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WorkDoneProgressCreateParams(token=self.token)
            )
        except Exception:  # a closed transport: no progress, the indexing goes on
            log.exception("window/workDoneProgress/create could not be sent")
            self._ended = True
            return
        # the answer is resolved on the event loop; come back to it there
        future.add_done_callback(lambda f: self._loop.call_soon_threadsafe(self._created, f))

    def _created(self, future) -> None:
        if future.cancelled() or future.exception() is not None:
            log.info("the client refused a progress token: %s", None if future.cancelled() else future.exception())
            self._ended = True
            return
        self._accepted = True
        if self._ended:  # indexed before the answer came: begin and end, so the client lets go of it
            self._begun = True
            self._notify(self._begin_value())
            self._notify({"kind": "end", "message": "done"})
            return
        self._flush()

    def step(self, message: str, percentage: int) -> None:
        """A new step: reported at once when the client has accepted the token, else folded
        into the `begin` sent when it does."""
        if self._ended:
            return
        self._message, self._percentage = message, percentage
        if self._begun:
            self._notify({"kind": "report", "message": message, "percentage": percentage})
        else:
            self._flush()

    def step_threadsafe(self, message: str, percentage: int) -> None:
        self._loop.call_soon_threadsafe(self.step, message, percentage)

    def end(self) -> None:
        if self._ended:
            return
        self._ended = True
        if self._begun:
            self._notify({"kind": "end", "message": "done"})
        # not accepted yet: the create's answer sends begin and end at once

    def _flush(self) -> None:
        if not self._accepted or self._begun or self._ended:
            return
        self._begun = True
        self._notify(self._begin_value())

    def _begin_value(self) -> dict:
        return {
            "kind": "begin",
            "title": f"{TITLE} {self._name}",
            "cancellable": False,
            "message": self._message,
            "percentage": self._percentage,
        }

    def _notify(self, value: dict) -> None:
        self._server.protocol.notify_json(types.PROGRESS, {"token": self.token, "value": value})


def indexing_progress(server, capable: bool, data: bytes, path: str | None, uri: str) -> IndexingProgress | None:
    """Progress for the first index of `data`, or None: a client without
    `window.workDoneProgress` (it must never be sent one), a small document, or one that
    does not look like a tokenizer file (a large package-lock.json is not "indexed")."""
    if not capable or len(data) <= LARGE_DOCUMENT_BYTES:
        return None
    kind = detect.name_kind(path) or detect.content_kind(data, path)
    if kind is None or (kind == "json" and not detect.worth_parsing(data)):
        return None
    # most tokenizer files are called tokenizer.json: their folder (the model) tells them apart
    where = os.path.normpath(path) if path else unquote(uri)
    parts = where.replace("\\", "/").rstrip("/").split("/")
    return IndexingProgress(server, "/".join(parts[-2:]))
