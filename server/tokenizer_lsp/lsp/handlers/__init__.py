"""One module per LSP method; ROUTES is the one table that wires them (see server.py)."""

from __future__ import annotations

from lsprotocol import types

from . import (
    code_action,
    code_action_resolve,
    code_lens,
    definition,
    diagnostic,
    did_change,
    did_change_configuration,
    did_change_watched_files,
    did_close,
    did_open,
    document_symbol,
    execute_command,
    hover,
    idle,
    initialize,
    initialized,
    inlay_hint,
    references,
    workspace_symbol,
)

# method -> (handler, options); didOpen/didChange/didClose replace pygls' own text sync
ROUTES = {
    types.INITIALIZE: (initialize.handle, None),
    types.INITIALIZED: (initialized.handle, None),
    types.TEXT_DOCUMENT_DID_OPEN: (did_open.handle, None),
    types.TEXT_DOCUMENT_DID_CHANGE: (did_change.handle, None),
    types.TEXT_DOCUMENT_DID_CLOSE: (did_close.handle, None),
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: (did_change_configuration.handle, None),
    types.WORKSPACE_DID_CHANGE_WATCHED_FILES: (did_change_watched_files.handle, None),
    types.TEXT_DOCUMENT_HOVER: (hover.handle, None),
    types.TEXT_DOCUMENT_INLAY_HINT: (inlay_hint.handle, types.InlayHintOptions(resolve_provider=False)),
    types.TEXT_DOCUMENT_DIAGNOSTIC: (diagnostic.handle, diagnostic.OPTIONS),
    types.TEXT_DOCUMENT_DEFINITION: (definition.handle, None),
    types.TEXT_DOCUMENT_REFERENCES: (references.handle, None),
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: (document_symbol.handle, None),
    types.WORKSPACE_SYMBOL: (workspace_symbol.handle, None),
    types.WORKSPACE_EXECUTE_COMMAND: (execute_command.handle, execute_command.OPTIONS),
    types.TEXT_DOCUMENT_CODE_ACTION: (code_action.handle, code_action.OPTIONS),
    types.CODE_ACTION_RESOLVE: (code_action_resolve.handle, None),
    types.TEXT_DOCUMENT_CODE_LENS: (code_lens.handle, code_lens.OPTIONS),
    idle.METHOD: (idle.handle, None),
}
