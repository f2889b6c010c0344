"""Byte edits of a snapshot's text as an LSP WorkspaceEdit (code actions, convertMerges)."""

from __future__ import annotations


def workspace_edit(ls, uri: str, version: int, snap, edits) -> dict:
    """A WorkspaceEdit of byte edits of the snapshot's text (which is the client's)."""
    positions = snap.positions_of([o for s, e, _ in edits for o in (s, e)])
    text_edits = []
    for k, (_, _, new) in enumerate(edits):
        (a, b), (c, d) = positions[2 * k], positions[2 * k + 1]
        text_edits.append(
            {
                "range": {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}},
                "newText": new.decode("utf-8"),
            }
        )
    if ls.session.capabilities.document_changes:
        return {"documentChanges": [{"textDocument": {"uri": uri, "version": version}, "edits": text_edits}]}
    return {"changes": {uri: text_edits}}
