"""The editor's configuration (the `tokenizerLsp` section): pulled once the client is
initialized, and applied whenever it changes (the handlers of initialized and
workspace/didChangeConfiguration)."""

from __future__ import annotations

import logging

from lsprotocol import types

from .settings import parse_settings

log = logging.getLogger("tokenizer_lsp")


async def pull_configuration(ls) -> None:
    if not ls.session.capabilities.configuration:
        return
    try:
        result = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="tokenizerLsp")])
        )
    except Exception as e:  # a client may refuse; defaults then apply
        log.info("workspace/configuration failed: %s", e)
        return
    if result and isinstance(result[0], dict):
        apply_settings(ls, result[0])


def apply_settings(ls, raw) -> None:
    # the editor's configuration is the whole truth once it says anything: merging it over
    # initializationOptions would keep a severity the user has since removed
    session = ls.session
    section = raw.get("tokenizerLsp") if isinstance(raw, dict) and "tokenizerLsp" in raw else raw
    settings, problems = parse_settings(section if section else session.init_options)
    for p in problems:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"tokenizer-lsp: {p}"))
    if settings != session.settings:
        session.settings = settings
        ls.scheduler.refresh_all()
