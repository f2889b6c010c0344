"""The scheduler's jobs, one module per concern (lsp/scheduler.py wires them): indexing,
navigation lookups, the unreachable-token set, folder re-checks. Each keeps its own state
per document and gets only what it needs: the session, a publisher, an executor."""
