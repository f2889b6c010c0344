"""The one check pipeline: which checks run on a vocabulary, and findings located by the
document that holds them. Every format goes through here (tokenizer.json and vocab.json,
broken JSON salvaged, merges files, tiktoken ranks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..model import Finding, Vocabulary
from . import PendingFinding, Ref, added_findings, id_findings, vocab_findings


@dataclass(frozen=True)
class Scope:
    """Which checks hold on what a document knows (all of them for a file that parses)."""

    fragments: bool = True
    byte_level: bool = True  # not-byte-level: needs a trusted scheme and the added tokens
    added: bool = True  # the added tokens are known
    gaps: bool = True  # id-gap: the whole vocabulary and the added tokens are known


FULL = Scope()


def vocabulary_checks(
    v: Vocabulary, added_list: list[dict] = (), duplicates=None, scope: Scope = FULL
) -> list[PendingFinding]:
    """Vocabulary, added-token and id findings (merges are checked apart, in chunks)."""
    out = vocab_findings(v, scope.fragments)
    if not scope.byte_level:
        out = [p for p in out if p.code != "not-byte-level"]
    if scope.added:
        out += added_findings(v, list(added_list))
    out += [p for p in id_findings(v, duplicates) if scope.gaps or p.code != "id-gap"]
    return out


def located(pending: list[PendingFinding], resolve: Callable[[list[Ref]], list[tuple[int, int]]]) -> list[Finding]:
    """Findings at their source ranges (the document's `resolve`), in file order."""
    spans = resolve([p.ref for p in pending])
    found = [Finding(p.code, s, e, p.message) for p, (s, e) in zip(pending, spans)]
    found.sort(key=lambda f: f.start)
    return found
