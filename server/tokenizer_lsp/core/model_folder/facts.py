"""What the config checks and hovers need to know about the tokenizer beside a config file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property

from ..compact_vocab import known_of
from ..decoding.display import visible_text
from ..model import Vocabulary

NOT_READ = object()  # TokenizerFacts.post_processor of facts not read from a tokenizer.json


class TokenizerFacts:
    """Ids of tokens and tokens of ids, as `tokenizers` loads them: a token's vocab id wins
    over its added_tokens id; an added token outside the vocab has its added id."""

    def __init__(
        self,
        vocab: Vocabulary,
        name: str,
        token_of_id: Callable[[int], str | None] | None = None,
        post_processor: dict | None | object = NOT_READ,
    ) -> None:
        self.vocab = vocab
        self.name = name  # the tokenizer file's name, as messages say it
        self._token_of_id = token_of_id  # an index's own id table, when there is one
        # a tokenizer.json's post_processor (None: it has none); NOT_READ: not from one
        self.post_processor = post_processor

    def id_of(self, token: str) -> int | None:
        return self.vocab.id_of(token)

    def token_of(self, tid: int) -> str | None:
        known = known_of(self.vocab.tokens)
        if known is not None and type(tid) is int and tid in known.tokens:  # the table is on its way
            if tid < 0:
                return None
            token = known.tokens[tid]
            return token if token is not None else next((t for t, i in self.vocab.added.items() if i == tid), None)
        if self._token_of_id is not None:
            return self._token_of_id(tid)
        return self._by_id.get(tid)

    @cached_property
    def _by_id(self) -> dict[int, str]:
        out = {tid: token for token, tid in self.vocab.added.items()}
        out.update((tid, token) for token, tid in self.vocab.tokens.items())
        return out

    @cached_property
    def highest_id(self) -> int | None:
        tokens = self.vocab.tokens
        known = known_of(tokens)
        if known is not None and known.max_id is not None:  # the table is on its way
            top = known.max_id
        elif hasattr(tokens, "max_id"):  # a compact or renamed table: no copy of its ids
            top = tokens.max_id()
        else:
            top = max(tokens.ids() if hasattr(tokens, "ids") else tokens.values(), default=None)
        added = max(self.vocab.added.values(), default=None)
        return max((i for i in (top, added) if i is not None), default=None)

    def with_added(self, entries: dict[str, int]) -> TokenizerFacts:
        """These facts with more added tokens (token -> id): those of an added_tokens.json
        beside a vocab.json, which transformers adds when it reads that slow tokenizer
        folder. A token already in the vocabulary keeps its vocab id, as there."""
        new = {t: i for t, i in entries.items() if t not in self.vocab.tokens}
        if not new:
            return self
        vocab = replace(self.vocab, added={**self.vocab.added, **new})
        by_id = {i: t for t, i in new.items()}
        own = self.token_of
        return TokenizerFacts(vocab, self.name, lambda tid: own(tid) if tid not in by_id else by_id[tid])

    def in_vocab(self, token: str) -> bool:
        return token in self.vocab.tokens

    def shown(self, token: str) -> str:
        """A token as a person reads it (decoded; added tokens as written)."""
        d = self.vocab.decode(token, in_vocab=token in self.vocab.tokens)
        return visible_text(d.data)
