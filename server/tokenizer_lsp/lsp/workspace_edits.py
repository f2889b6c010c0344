"""Byte edits of a snapshot's text as an LSP WorkspaceEdit (code actions, convertMerges), and
what a rewrite keeps when it is made (a merges conversion: the unreachable set). Here, where
both the resolve handler and the convertMerges command build their edit, as handlers and
commands never import each other."""

from __future__ import annotations

from ..core.behaviour.reachability.cache import carry_across


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


def keep_unreachable_set(snap, how: dict, edit) -> None:
    """Before a conversion of the merges is sent: the text it makes has the unreachable set
    of the snapshot's (the same tokenizer), which the server then reads off the disk cache.
    Not for a merge whose reading the user chose (`rank`): that reading may not be the one
    the engine made of it. Off the event loop (it hashes the text twice)."""
    if "rank" not in how and snap.index.format == "tokenizer.json":
        carry_across(snap.index.data, edit, snap.path)
