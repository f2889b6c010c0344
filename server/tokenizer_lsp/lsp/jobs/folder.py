"""Folder re-checks: the files beside a changed one checked again against it.

A merges file is checked against the vocab.json beside it, a model config file and a chat
template file (chat_template.jinja, additional_chat_templates/*.jinja) against the tokenizer
file and the configs of its folder; config files that are not open are
checked too and published on their own URIs (push clients). Every keystroke in a
tokenizer.json lands here: checking the folder's configs against it each time cost 1 s per
edit on qwen3, so a tokenizer's edits are re-checked once they settle (a newer edit
replaces the pending re-check, never queues another). Its first index (the file opened) is
no edit: its folder is checked at once, the config findings being part of what a user waits
for after opening it (before, they came 0.5 s later than they could).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from contextlib import nullcontext

from ...core import seams

# imported with the server, not on first use: the first open of a model folder imported the
# chat-template checks (jinja2, 0.15-0.5 s) before its config findings could go out, and
# every template's forked child imported the portability checks again
from ...core.chat import folder_checks, portability  # noqa: F401
from ...core.detect import chat_template_folder, is_chat_template_name
from ...core.index.files import VOCAB_NAMES
from ...core.model_folder.config_doc import is_config_name
from ...core.model_folder.folder import TOKENIZER_NAMES, owns_configs
from ..paired import closed_config_diagnostics
from ..work import Mode, off_loop

log = logging.getLogger("tokenizer_lsp")
CONFIG_SETTLE_S = 0.5  # quiet time after a tokenizer edit before its folder's configs are re-checked


class FolderChecks:
    def __init__(self, session, publisher, reindex: Callable) -> None:
        self.session = session
        self.publisher = publisher
        self.reindex = reindex  # (doc): built again at once, re-parsed (what it is checked with changed)
        self._config_texts: dict[str, bytes | None] = {}  # the config texts others were checked with
        self._closed_shown: dict[str, bool] = {}  # closed config files with findings published
        self._timers: dict[str, asyncio.TimerHandle] = {}  # folder -> pending re-check
        self._publishing = 0  # closed config files being checked, their findings not yet out
        self._preparing = 0  # folders whose chat templates are being rendered ahead

    def busy(self) -> bool:
        """A re-check due, closed config files being checked, or templates rendered ahead."""
        return bool(self._timers) or self._publishing > 0 or self._preparing > 0

    def tokenizer_opened(self, path: str | None) -> None:
        """A tokenizer file was just opened: the chat templates of its folder start
        rendering now, in their own forked child beside its build's (2 cores: one each),
        so that the config findings which follow its own do not wait for them (qwen3: the
        renders took 0.1 s on a quiet machine, 0.8 s under load, after its findings)."""
        if not path or os.path.basename(path) not in TOKENIZER_NAMES or not owns_configs(path):
            return
        self._preparing += 1  # counted before the task starts: never a gap seen as idle
        asyncio.ensure_future(self._prepare(path))

    async def _prepare(self, path: str) -> None:
        try:
            await off_loop(Mode.BACKGROUND, None, _rendered_ahead, path, self.session.open_text)
        except Exception:  # the config check renders them itself, and reports what fails
            log.exception("rendering the chat templates beside %s ahead failed", path)
        finally:
            self._preparing -= 1

    def vocabulary_changed(self, path: str | None, opened: bool = False, closed: bool = False) -> None:
        """A vocab.json or encoder.json changed (edited, closed, or on disk): the merges
        files beside it are checked again against it. `opened`: its first index (at once);
        `closed`: the editor closed it (at once too: no more keystrokes to wait for)."""
        self.configs_changed(path, opened, closed)
        if not path or os.path.basename(path) not in VOCAB_NAMES:
            return
        for doc in self.session.others_in_folder(path):
            if doc.served.index is not None and doc.served.index.format == "merges.txt":
                self.reindex(doc)

    def configs_changed(self, path: str | None, opened: bool = False, closed: bool = False) -> None:
        """A tokenizer file or a model config file changed: the open config files beside it
        are checked again (a config's ids are held to the tokens another one names).
        `opened`: a tokenizer file's first index, `closed`: the editor closed it; either way
        its folder is checked without waiting for edits to settle (the settle time is for
        typing: a close is one change, and the configs read the file on disk from now on)."""
        if not path or not (is_config_name(path) or os.path.basename(path) in TOKENIZER_NAMES):
            return
        if is_config_name(path):
            text = self.session.open_text(path)
            if text is not None and self._config_texts.get(path) is text:
                return  # re-checked, not edited: the others stand (and no ping-pong)
            self._config_texts[path] = text
        folder = os.path.dirname(os.path.abspath(path))
        old = self._timers.pop(folder, None)
        if old is not None:
            old.cancel()
        delay = 0 if opened or closed or is_config_name(path) else CONFIG_SETTLE_S
        self._timers[folder] = asyncio.get_running_loop().call_later(delay, self._recheck, folder, path, opened)

    def _recheck(self, folder: str, path: str, opened: bool = False) -> None:
        self._timers.pop(folder, None)
        for doc in self.session.others_in_folder(path):
            if is_config_name(doc.path):
                self.reindex(doc)
        for doc in list(self.session.documents.values()):  # its special tokens, ids, stop ids
            if is_chat_template_name(doc.path) and chat_template_folder(doc.path) == folder:
                self.reindex(doc)
        if not self.session.capabilities.pull_diagnostics:  # a pulling client asks for open files only
            self._publishing += 1  # counted before the task starts: never a gap seen as idle
            asyncio.ensure_future(self._publish_closed_configs(path, opened))

    async def _publish_closed_configs(self, path: str, opened: bool = False) -> None:
        """The config files beside an open tokenizer that are not open themselves are
        checked too, after its own diagnostics, and published on their own URIs."""
        try:
            started = time.perf_counter()
            # the background pool: never queued before an edit's build (the indexer thread)
            found = await off_loop(Mode.BACKGROUND, None, _checked, self.session, path, opened)
            log.info(
                "%s: %d config files beside it checked in %.0f ms",
                os.path.basename(path),
                len(found),
                (time.perf_counter() - started) * 1e3,
            )
            for config, uri, diags in found:
                if self.session.open_text(config) is None and (diags or self._closed_shown.get(uri)):
                    self.publisher.publish(uri, diags)
                    self._closed_shown[uri] = bool(diags)
        except Exception:  # a config file must not take the tokenizer's server down
            log.exception("checking the config files beside %s failed", path)
        finally:
            self._publishing -= 1


def _rendered_ahead(path: str, open_text) -> int:
    with seams.waited_for():  # the user waits for these findings, as for the build's
        return folder_checks.prepare_folder_templates(path, open_text)


def _checked(session, path: str, opened: bool) -> list:
    """closed_config_diagnostics; for a file just opened, its chat templates' forked child
    runs at the server's own priority (seams.waited_for): the user waits for these findings
    and no hover of the file is served yet. At nice 10 on a machine busy with other work the
    child got a sliver of a core (qwen3's config findings 1.5-3 s after its own)."""
    with seams.waited_for() if opened else nullcontext():
        return closed_config_diagnostics(session, path)
