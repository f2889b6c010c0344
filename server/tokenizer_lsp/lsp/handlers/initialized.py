"""initialized: read the editor's configuration; watch vocabularies on disk."""

from __future__ import annotations

import logging

from lsprotocol import types

from ...core.detect import VOCAB_NAMES
from ..configuration import pull_configuration

log = logging.getLogger("tokenizer_lsp")


async def handle(ls, params: types.InitializedParams) -> None:
    await pull_configuration(ls)
    if not ls.session.capabilities.watched_files:
        return
    # vocabularies changed on disk (a checkout, another tool): re-check merges beside them
    watch = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in VOCAB_NAMES]
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="tokenizer-lsp-vocabularies",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=watch,
                    )
                ]
            )
        )
    except Exception as e:  # a client may refuse: merges then follow open buffers only
        log.info("file watching refused: %s", e)
