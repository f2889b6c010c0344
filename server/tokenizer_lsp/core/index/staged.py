"""A whole build of a document in two stages, for a caller that builds it in a forked child
(core.seams.stages_in_child; the server does).

Parsing a vocabulary makes hundreds of thousands of small objects (its keys, their ids)
that live until the table is made compact. Made in the server's own process, they fill
the interpreter's 1 MB arenas between the few objects that outlive them (the document,
its findings), and those pin the arenas: qwen3's index then held 25 MB of arenas for
15 MB of objects. Built beside, only what outlives the build comes back:
- first the index with its findings, the token table taken out (all the diagnostics
  need, so they are published as soon as they would be in-process);
- then the token table in compact form (core.compact_vocab), which the hover lookups
  are built from a moment later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping

from .. import detect, seams
from ..compact_vocab import CompactTokens, KnownTokens, PendingTokens
from ..model_folder.literals import known_tokens
from .build import DocumentIndex, build_index, new_parse_id

# smaller texts are built in-process: a fork and two pickles cost more than their arenas
STAGED_BUILD_BYTES = 1 << 20


def build_index_in_child(
    data: bytes,
    path: str | None,
    companion=None,
    assume_tokenizer: bool = False,
    cancel: seams.CancelToken | None = None,
) -> DocumentIndex:
    """build_index(...), built in a forked child when the text is large (see the module
    docstring); the same index either way. JSON only: a tiktoken or merges file keeps its
    table as it is made (a dict the checks and hovers use), which would have to be sent
    back whole. `cancel`: when it is cancelled, the build beside stops and this raises
    seams.Cancelled (a newer version of the text came meanwhile)."""
    if len(data) < STAGED_BUILD_BYTES or detect.is_config_name(path) or detect.content_kind(data, path) != "json":
        idx = build_index(data, path, companion, assume_tokenizer)
        # finished here, before anyone sees it: the lookups swap a JSON vocabulary's dict
        # for its compact table and drop the parsed merges, which must not happen to an
        # index already published (a built one is never rewritten: docs/architecture.md).
        # Built beside, the table comes compact and the merges stay in the child.
        idx.prepare_lookups()
        return idx
    stages = seams.stages_in_child(build_index_in_stages, data, path, companion, assume_tokenizer, shared=(data,))
    if cancel is not None and hasattr(stages, "cancel"):
        cancel.on_cancel(stages.cancel)
    try:
        first = stages.next_stage()
    except BaseException:
        stages.close()
        raise
    if not first[1]:
        stages.close()
    rest = _LaterStages(stages)
    idx = adopt_index(first, rest.table, rest.known)
    if first[1] and idx.syntax_error is not None:
        # salvaged from broken JSON: its lookups may never be built (an intact index
        # serves meanwhile), and the child must not wait for them
        idx.vocab.tokens.resolved()
    return idx


def build_index_in_stages(data: bytes, path: str | None, companion=None, assume_tokenizer: bool = False) -> Iterator:
    """Yields (index, whether its token table was taken out), then the table's answers for
    the config files beside it, then the table (None for both when it was not)."""
    idx = build_index(data, path, companion, assume_tokenizer)
    vocab = idx.vocab
    tokens = vocab.tokens if vocab is not None and type(vocab.tokens) is dict else None
    if tokens is not None:
        vocab.tokens = None
    yield idx, tokens is not None
    # after the index: its findings go out meanwhile (gemma3's 13,000 literals: 0.05-0.1 s),
    # and the config files' checks come right after them (lsp.jobs.folder)
    yield known_tokens(tokens, path) if tokens is not None else None
    yield _compact(tokens) if tokens is not None else None


class _LaterStages:
    """The stages after the index, each asked for once and in order: the answers ahead
    (by the config checks), then the table (by whatever reads it first, answers or not)."""

    def __init__(self, stages) -> None:
        self._stages, self._lock = stages, threading.Lock()
        self._asked, self._known = False, None

    def known(self) -> KnownTokens | None:
        with self._lock:
            if not self._asked:
                self._asked = True
                try:
                    self._known = self._stages.next_stage()
                except Exception:  # noqa: BLE001 (cancelled, or the build failed): the table says
                    self._known = None
            return self._known

    def table(self) -> Mapping[str, int]:
        try:
            self.known()
            return self._stages.next_stage()
        finally:
            self._stages.close()


def _compact(tokens: dict) -> Mapping[str, int]:
    try:
        return CompactTokens(tokens)
    except (OverflowError, TypeError):  # ids that are not 64-bit ints: the dict itself
        return tokens


def adopt_index(
    first: tuple[DocumentIndex, bool],
    later: Callable[[], Mapping[str, int]],
    known: Callable[[], KnownTokens | None] | None = None,
) -> DocumentIndex:
    """The first stage's index made whole where it is used: a parse id of this process
    (a child's counter does not advance the parent's), and the token table from `later`
    the first time something reads it (what `known` answers, before)."""
    idx, taken_out = first
    idx.adopted(new_parse_id())
    if taken_out:
        idx.vocab.tokens = PendingTokens(later, known)
    return idx
