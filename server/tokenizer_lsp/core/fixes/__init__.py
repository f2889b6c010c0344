"""Quick fixes and rewrites of tokenizer files, as byte edits of the document's UTF-8.

Pure: an index (and the byte range of a finding) in, `Fix`es out; the LSP layer turns
byte offsets into ranges of the client's text. Every fix leaves a file `tokenizers` loads
and that encodes as before (except a removed merge, which is the point).
"""

from __future__ import annotations

from ..index.document import DocumentIndex
from .fix import FIX_ALL, QUICKFIX, REWRITE, Edit, Fix

__all__ = ["FIX_ALL", "QUICKFIX", "REWRITE", "Edit", "Fix", "fixes_for", "rewrites_at", "safe_fixes"]


def fixes_for(idx: DocumentIndex, code: str, start: int, end: int, message: str = "") -> list[Fix]:
    """The quick fixes of one finding (by its code, byte range and message)."""
    from . import added_id, convert_merges, merges_edits

    if code == "merge-unknown-token":
        return merges_edits.remove_merge(idx, start, end)
    if code == "added-token-mismatch":
        return added_id.set_added_id(idx, start, end)
    if code == "merges-header":
        return merges_edits.add_header(idx, start, end)
    if code == "merge-ambiguous":
        return convert_merges.readings_conversions(idx, start, end)
    if code == "config-id-mismatch":
        return added_id.set_decoder_key(idx, start, end, message)
    if code == "chat-template-portability":
        return _portable_spelling(idx, start, end)
    return []


def _portable_spelling(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """The portable spelling a chat-template-portability finding carries (exact only)."""
    for f in idx.findings:
        if f.code == "chat-template-portability" and (f.start, f.end) == (start, end) and f.fix is not None:
            shown = f.fix.decode("utf-8", "replace")
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            return [
                Fix(
                    f"Write it portably: {shown}",
                    QUICKFIX,
                    f.code,
                    (start, end),
                    preferred=True,
                    edits=[(start, end, f.fix)],
                )
            ]
    return []


def rewrites_at(idx: DocumentIndex, start: int, end: int) -> list[Fix]:
    """Rewrites offered wherever the range lies: converting the merges between forms."""
    from . import convert_merges

    return convert_merges.conversions_at(idx, start, end)


def safe_fixes(idx: DocumentIndex) -> list[Edit]:
    """Edits of every fix that cannot change meaning (source.fixAll), not overlapping."""
    edits: list[Edit] = []
    for f in idx.findings:
        if f.code not in ("merges-header", "added-token-mismatch"):
            continue
        for fix in fixes_for(idx, f.code, f.start, f.end):
            if fix.safe:
                edits.extend(fix.resolved_edits())
    edits.sort()
    out: list[Edit] = []
    for e in edits:
        if not out or e[0] >= out[-1][1]:
            out.append(e)
    return out


def apply_edits(data: bytes, edits: list[Edit]) -> bytes:
    """The text after non-overlapping edits (for tests and the command line)."""
    out, pos = [], 0
    for s, e, new in sorted(edits):
        out += [data[pos:s], new]
        pos = e
    out.append(data[pos:])
    return b"".join(out)
