"""Findings -> LSP diagnostics, with per-code severities, a limit and a summary.

Diagnostics are plain JSON-ready dicts: thousands of lsprotocol objects (attrs with
validators, then cattrs to unstructure them again) cost a tenth of a second per publish.
"""

from __future__ import annotations

from collections import Counter

from lsprotocol import types

from ...core.index.document import DocumentIndex
from ..settings import Settings

SOURCE = "tokenizer-lsp"
_LEVEL = {
    "error": types.DiagnosticSeverity.Error.value,
    "warning": types.DiagnosticSeverity.Warning.value,
    "information": types.DiagnosticSeverity.Information.value,
    "hint": types.DiagnosticSeverity.Hint.value,
}
_NOUN = {
    "utf8-fragment": "tokens are UTF-8 fragments",
    "not-byte-level": "tokens have characters outside the byte alphabet",
    "merge-unknown-token": "merges use tokens missing from the vocabulary",
    "merge-result-missing": "merges produce tokens missing from the vocabulary",
    "merge-malformed": "merges are malformed",
    "duplicate-token": "tokens appear twice",
    "duplicate-id": "ids are used twice",
    "id-gap": "gaps in the ids",
    "added-token-mismatch": "added tokens disagree with the vocabulary id",
    "tiktoken-malformed": "lines are not `base64 rank`",
    "schema": "entries tokenizers cannot load",
}


def diagnostics_for(idx: DocumentIndex, settings: Settings, encoding: str) -> list[dict]:
    """LSP Diagnostic objects as dicts (see the module docstring)."""
    kept = [(f, settings.level(f.code, f.level)) for f in idx.findings]
    kept = [(f, level) for f, level in kept if level != "off"]
    limit = settings.max_per_file
    with_summary = settings.level("summary") != "off" and bool(_summary(kept, len(kept)))
    if limit and with_summary:
        limit = max(1, limit - 1)  # the summary counts too: VS Code keeps exactly 1000
    shown = kept[:limit] if limit else kept
    offsets = [o for f, _ in shown for o in (f.start, f.end)]
    pos = idx.lines.positions(offsets, encoding)
    out = []
    summary = _summary(kept, len(shown)) if with_summary else ""
    if summary:
        # the first character (some clients widen an empty range to the whole, huge, line);
        # empty when the first line is
        first = idx.data[:4].decode("utf-8", "ignore")[:1]
        stop = idx.lines.line_end(0)
        end = (
            idx.lines.position(min(len(first.encode("utf-8")), stop), encoding)
            if first not in ("", "\r", "\n")
            else (0, 0)
        )
        out.append(_diagnostic((0, 0), end, summary, _LEVEL[settings.level("summary")], "summary"))
    for k, (f, level) in enumerate(shown):
        out.append(_diagnostic(pos[2 * k], pos[2 * k + 1], f.message, _LEVEL[level], f.code))
    return out


def _diagnostic(start: tuple[int, int], end: tuple[int, int], message: str, severity: int, code: str) -> dict:
    return {
        "range": {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}},
        "message": message,
        "severity": severity,
        "code": code,
        "source": SOURCE,
    }


def _summary(kept, shown: int) -> str:
    counts = Counter(f.code for f, _ in kept if f.code in _NOUN)
    if not counts or sum(counts.values()) < 20:
        return ""
    parts = [f"{n} {_NOUN[code]} ({code})" for code, n in counts.most_common()]
    text = "; ".join(parts)
    if shown < len(kept):
        text += f". Showing the first {shown} of {len(kept)} findings (tokenizerLsp.diagnostics.maxPerFile)"
    return text
