"""textDocument/diagnostic: findings pulled by clients that pull (they are never pushed
to those: Neovim 0.10+ would show every finding twice)."""

from __future__ import annotations

from lsprotocol import types

# a merges file's findings depend on the vocab.json beside it
OPTIONS = types.DiagnosticOptions(identifier="tokenizer-lsp", inter_file_dependencies=True, workspace_diagnostics=False)


async def handle(ls, params: types.DocumentDiagnosticParams) -> types.RelatedFullDocumentDiagnosticReport:
    # answer for the current version: wait (briefly) for an index that is still being built
    items = await ls.session.current_diagnostics(params.text_document.uri)
    return types.RelatedFullDocumentDiagnosticReport(
        items=ls.protocol._converter.structure(items, list[types.Diagnostic])
    )
