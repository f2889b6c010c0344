"""workspace/didChangeConfiguration: the editor's settings changed (lsp/configuration.py applies them)."""

from __future__ import annotations

from lsprotocol import types

from ..configuration import apply_settings, pull_configuration


async def handle(ls, params: types.DidChangeConfigurationParams) -> None:
    raw = params.settings
    if isinstance(raw, dict) and isinstance(raw.get("tokenizerLsp"), dict):
        apply_settings(ls, raw["tokenizerLsp"])
    elif isinstance(raw, dict) and raw.keys() & {"inlayHints", "diagnostics"}:
        apply_settings(ls, raw)  # the section itself, unwrapped (Helix sends it so)
    else:
        await pull_configuration(ls)
