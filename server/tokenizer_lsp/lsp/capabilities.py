"""The client's capabilities this server acts on, read once at initialize (as ruff's server
does): nothing else walks the raw lsprotocol object."""

from __future__ import annotations

from dataclasses import dataclass


def _get(node, path: str):
    for part in path.split("."):
        node = getattr(node, part, None) if node is not None else None
    return node


@dataclass(frozen=True)
class ResolvedClientCapabilities:
    pull_diagnostics: bool = False
    inlay_hint_refresh: bool = False
    diagnostic_refresh: bool = False
    configuration: bool = False
    watched_files: bool = False
    work_done_progress: bool = False
    hover_markdown: bool = True
    # codeAction/resolve fills in an action's `edit` (large conversions come that way)
    resolves_edits: bool = False
    # WorkspaceEdit.documentChanges, and the file operations it may hold (create, delete)
    document_changes: bool = False
    resource_operations: frozenset[str] = frozenset()

    @classmethod
    def resolve(cls, caps) -> ResolvedClientCapabilities:
        formats = _get(caps, "text_document.hover.content_format")
        resolved = _get(caps, "text_document.code_action.resolve_support.properties") or []
        operations = _get(caps, "workspace.workspace_edit.resource_operations") or []
        return cls(
            pull_diagnostics=bool(_get(caps, "text_document.diagnostic")),
            inlay_hint_refresh=bool(_get(caps, "workspace.inlay_hint.refresh_support")),
            diagnostic_refresh=bool(_get(caps, "workspace.diagnostics.refresh_support")),
            configuration=bool(_get(caps, "workspace.configuration")),
            watched_files=bool(_get(caps, "workspace.did_change_watched_files.dynamic_registration")),
            work_done_progress=bool(_get(caps, "window.work_done_progress")),
            hover_markdown=not formats or "markdown" in [getattr(f, "value", f) for f in formats],
            resolves_edits="edit" in resolved,
            document_changes=bool(_get(caps, "workspace.workspace_edit.document_changes")),
            resource_operations=frozenset(getattr(o, "value", o) for o in operations),
        )
