"""Unreachable tokens (reachability.py) as findings on a document's index.

Shared by `check` and the server. The entries name tokens by id, and each is placed
through the index's own lookups (id -> token -> its vocab entry), so a set computed for
one version of a document can be shown on a newer index of it until it is recomputed.
"""

from __future__ import annotations

from ...checks.unreachable import _naming, message
from ...index.document import DocumentIndex
from ...model import Finding
from ..folder_added import matched_whole

CODE = "unreachable-token"
__all__ = ["CODE", "UnreachableEntry", "message"]


class UnreachableEntry:
    """One unreachable token as kept beside a document until the next set: its message
    written once (2k entries rewritten per keystroke were half of its time on qwen3), not
    the engine's dict with its pieces (2.7 MB for qwen3's 1909, against 0.8 MB)."""

    __slots__ = ("id", "message", "named", "text", "token")

    def __init__(self, entry: dict, rank_word: str) -> None:
        self.id, self.token, self.text = entry["id"], entry["token"], entry.get("text") or ""
        self.message = message(entry, self.token, rank_word)
        self.named = len(_naming(self.token, self.text, rank_word, self.id))  # the message's start names it

    def message_for(self, token: str, rank_word: str) -> str:
        """The message with the token's entry as it is now named (an edit may rename it)."""
        if token == self.token:
            return self.message
        return _naming(token, self.text, rank_word, self.id) + self.message[self.named :]


def compact_entries(entries: list[dict], fmt: str | None) -> list[UnreachableEntry]:
    rank_word = "rank" if fmt == "tiktoken" else "id"
    return [UnreachableEntry(e, rank_word) for e in entries]


def unreachable_findings(idx: DocumentIndex, entries: list[UnreachableEntry]) -> list[Finding]:
    """One finding per entry (compact_entries) on its vocab entry in `idx` (the key
    literal; a tiktoken rank's base64 field), in file order. Needs the index's lookups
    (prepare_lookups). An entry is found by its token (a few microseconds), else by its id
    (an edit renamed it: the id table is built then); one whose id has no vocab entry here
    is left out."""
    if not entries or idx.vocab is None or not idx.lookups_ready:
        return []
    tokens = idx.vocab.tokens
    rank_word = "rank" if idx.format == "tiktoken" else "id"
    # a slow folder's engine matches these whole (folder_added.py), as `encode` does: never
    # unreachable, whatever the set computed from the pair alone says
    whole = matched_whole(idx.path) if idx.format == "vocab.json" else frozenset()
    out = []
    for e in entries:
        token = e.token
        if token in whole:
            continue
        o = idx.ordinal_of_id(e.id)  # by id first: no search of the keys by text
        if o is not None and idx.token_at_ordinal(o) == token:
            span = idx.vocab_span(o)
        else:
            if tokens.get(token) != e.id:  # edited since it was computed: the id's entry now
                token = idx.token_of_id(e.id)
                if token is None or token not in tokens:
                    continue
            span = idx.span_of_token(token)
        if span is None:
            continue
        out.append(Finding(CODE, span[0], span[1], e.message_for(token, rank_word)))
    out.sort(key=lambda f: f.start)
    return out


def with_unreachable(findings: list[Finding], extra: list[Finding]) -> list[Finding]:
    """The index's findings with the unreachable ones added, all in file order (sorted
    merge: both lists are already in order)."""
    if not extra:
        return findings
    import heapq

    return list(heapq.merge(findings, extra, key=lambda f: f.start))


def file_unreachable_findings(idx: DocumentIndex, path: str) -> list[Finding]:
    """The unreachable-token findings of a file on disk (the command line): its engine
    loaded in this process, its pair beside it. A file that does not load gets none (its
    other findings say why); a merges file gets none (they are on its vocab.json)."""
    from ..loaded import LoadError
    from .cache import unreachable_of_file

    if idx.format not in ("tokenizer.json", "vocab.json", "tiktoken") or idx.syntax_error is not None:
        return []
    try:
        entries = unreachable_of_file(path)
    except (LoadError, OSError):
        return []
    if not entries:
        return []
    idx.prepare_lookups()
    return unreachable_findings(idx, compact_entries(entries, idx.format))
