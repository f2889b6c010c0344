"""The routing table: every LSP method the server handles, how it runs (lsp/work.py's
modes) and its handler (lsp/handlers/, one module per method). server.py makes the
protocol's overrides and registers the features from this table alone; a new method is
one module in handlers/ and one row here (tests/unit/test_routes.py holds the two
together).

- SYNC: on the event loop as the message is read, before the next one (text sync: every
  request after a didChange sees it); a notification's handler is a plain function.
- LATENCY: a request the user waits for while typing, answered from snapshots.
- BACKGROUND: may take seconds. A request runs with a cancel token ($/cancelRequest, a
  newer version of a document it read); a notification runs as a task of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from .handlers import (
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
    did_save,
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
from .work import Mode


@dataclass(frozen=True)
class Route:
    handler: Callable
    mode: Mode
    options: object = None  # the registration options pygls advertises for the method


ROUTES: dict[str, Route] = {
    types.INITIALIZE: Route(initialize.handle, Mode.SYNC),
    types.INITIALIZED: Route(initialized.handle, Mode.BACKGROUND),
    types.TEXT_DOCUMENT_DID_OPEN: Route(did_open.handle, Mode.SYNC),
    types.TEXT_DOCUMENT_DID_CHANGE: Route(did_change.handle, Mode.SYNC),
    types.TEXT_DOCUMENT_DID_CLOSE: Route(did_close.handle, Mode.SYNC),
    types.TEXT_DOCUMENT_DID_SAVE: Route(did_save.handle, Mode.SYNC),
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: Route(did_change_configuration.handle, Mode.BACKGROUND),
    types.WORKSPACE_DID_CHANGE_WATCHED_FILES: Route(did_change_watched_files.handle, Mode.SYNC),
    types.TEXT_DOCUMENT_HOVER: Route(hover.handle, Mode.LATENCY),
    types.TEXT_DOCUMENT_INLAY_HINT: Route(
        inlay_hint.handle, Mode.LATENCY, types.InlayHintOptions(resolve_provider=False)
    ),
    types.TEXT_DOCUMENT_DIAGNOSTIC: Route(diagnostic.handle, Mode.LATENCY, diagnostic.OPTIONS),
    types.TEXT_DOCUMENT_DEFINITION: Route(definition.handle, Mode.LATENCY),
    types.TEXT_DOCUMENT_REFERENCES: Route(references.handle, Mode.LATENCY),
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: Route(document_symbol.handle, Mode.LATENCY),
    types.WORKSPACE_SYMBOL: Route(workspace_symbol.handle, Mode.LATENCY),
    types.TEXT_DOCUMENT_CODE_ACTION: Route(code_action.handle, Mode.LATENCY, code_action.OPTIONS),
    types.TEXT_DOCUMENT_CODE_LENS: Route(code_lens.handle, Mode.LATENCY, code_lens.OPTIONS),
    types.CODE_ACTION_RESOLVE: Route(code_action_resolve.handle, Mode.BACKGROUND),
    types.WORKSPACE_EXECUTE_COMMAND: Route(execute_command.handle, Mode.BACKGROUND, execute_command.OPTIONS),
    idle.METHOD: Route(idle.handle, Mode.BACKGROUND),
}


def is_notification(method: str) -> bool:
    """A method the client expects no answer to (lsprotocol's table; ours are requests)."""
    found = types.METHOD_TO_TYPES.get(method)
    return found is not None and found[1] is None
