"""One module per LSP method, each with `handle(ls, params)`; lsp/routes.py is the table
that says how each runs. A handler reads documents through the session's snapshots
(lsp/session.py), never their state (lsp/documents.py) nor another handler or command
(tests/unit/test_lsp_layers.py)."""
