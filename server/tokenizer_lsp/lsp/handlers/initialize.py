"""initialize: settings from initializationOptions, client capabilities resolved once."""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder

from ..capabilities import ResolvedClientCapabilities
from ..settings import parse_settings

log = logging.getLogger("tokenizer_lsp")


def handle(ls, params: types.InitializeParams) -> None:
    session = ls.session
    options = params.initialization_options
    session.init_options = options if isinstance(options, dict) else {}
    settings, problems = parse_settings(options)
    session.settings = settings
    for p in problems:
        log.warning("settings: %s", p)
    session.capabilities = ResolvedClientCapabilities.resolve(params.capabilities)
    # the same choice pygls makes for the capabilities it answers with
    enc = ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities)
    session.encoding = str(getattr(enc, "value", enc) or "utf-16")
