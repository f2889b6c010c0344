"""Which vocab tokens byte-pair merging builds from their own word, read off the merges.

BPE as `tokenizers` runs it on one word (models/bpe/word.rs, `merge_all`): every character
starts as a symbol; while some adjacent pair has a merge, the pair with the lowest rank is
merged, the leftmost when one pair occurs twice. Running that on each of 150k words costs
about 7 us a word in the engine (1 s for qwen3); the merges' structure answers the same
question in one pass over them.

It holds for *ordered* merges: each token produced by exactly one merge, each merge's
parts produced by lower-ranked merges (or single characters), no pair listed twice. Files
trained by `tokenizers` or converted from tiktoken ranks are (qwen3, GPT-2, whisper);
SentencePiece conversions are not (gemma3 and llama2 list several splits of a token, in
score order), and those go to the engine. With ordered merges a word's merges apply in
rising rank (every pair a merge creates holds the new token, whose merges rank higher),
so a symbol made later has the higher rank. Then, for t made by the merge (x, y) of rank
r: BPE(t) = [t] iff BPE(x) = [x], BPE(y) = [y] and no pair across the boundary between
the two halves merges first. While the halves are built, the pair across the boundary is
(the last symbol of the left half, the first of the right); it stands until the next merge
that replaces one of the two, and merges first iff its rank is lower than that merge's (at
an equal rank it is the same pair one place to the left: the leftmost goes first). Walking
the two halves' merges back, latest first, visits each such pair once: a few steps a token.

`tests/test_merge_structure.py` holds this against the engine on random vocabularies
(hypothesis) and on tokenizers it trains; `tests/test_unreachable.py` on qwen3 and llama3.
"""

from __future__ import annotations

from operator import add, gt


class MergeStructure:
    """The merges of one BPE model as arrays indexed by token id."""

    __slots__ = ("created", "left", "made", "ordered", "pair_rank", "parts", "reach", "right", "vocab", "width")

    def __init__(self, vocab: dict[str, int], firsts: list[str], seconds: list[str]) -> None:
        """ValueError when a merge names a token the vocab lacks (the engine refuses such
        a file). `ordered` says whether `reachable` can be asked (the module docstring)."""
        get = vocab.get
        a = list(map(get, firsts))
        b = list(map(get, seconds))
        c = list(map(get, map(add, firsts, seconds)))
        if None in a or None in b or None in c:
            raise ValueError("a merge names a token outside the vocab")
        width = max(vocab.values(), default=0) + 1
        # a pair listed twice keeps its last rank, as the engine's map of merges does
        self.pair_rank = dict(zip([x * width + y for x, y in zip(a, b)], range(len(c))))
        self.vocab, self.width, self.made = vocab, width, c  # made[rank]: the token a merge produces
        created = [-1] * width  # rank of the merge that produces a token; -1: none
        ordered = len(self.pair_rank) == len(c)
        for r, t in enumerate(c):
            if created[t] != -1:
                ordered = False  # produced by two merges
            created[t] = r
        if ordered:  # both parts made before (or never made: single characters)
            ordered = all(map(gt, range(len(c)), map(created.__getitem__, a))) and all(
                map(gt, range(len(c)), map(created.__getitem__, b)))
        self.ordered, self.created = ordered, created
        self.parts = (a, b)  # by rank: the first and second part of each merge
        self.left: list[int] = []  # by token: the parts of its merge (find_reachable)
        self.right: list[int] = []
        self.reach = bytearray()

    def find_reachable(self) -> None:
        """reach[t] = 1 when BPE of t's word is [t] (the module docstring's walk); ordered
        merges only. The second half of the work, apart so a caller can first ask `ordered`."""
        (a, b), c = self.parts, self.made
        width, created = self.width, self.created
        left, right = [-1] * width, [-1] * width
        for r, t in enumerate(c):
            left[t], right[t] = a[r], b[r]
        rank_of = self.pair_rank.get
        reach = bytearray(width)
        for token, tid in self.vocab.items():
            if len(token) == 1:
                reach[tid] = 1
        for r in range(len(c)):  # rising rank: both parts are decided before their merge
            p, q = a[r], b[r]
            if not (reach[p] and reach[q]):
                continue
            rp, rq = created[p], created[q]
            while rp >= 0 or rq >= 0:
                if rp > rq:  # the left half's last symbol was made last: undo it
                    end = rp
                    p = right[p]
                    rp = created[p]
                    across = rank_of(p * width + q)
                    if across is not None and across < end:
                        break
                else:  # the right half's first symbol (equal ranks: the right one went second)
                    end = rq
                    q = left[q]
                    rq = created[q]
                    across = rank_of(p * width + q)
                    if across is not None and across <= end:
                        break
            else:
                reach[c[r]] = 1
        self.left, self.right, self.reach = left, right, reach

    def reachable(self, tid: int) -> bool:
        """BPE of the token's own word gives back exactly the token (after find_reachable)."""
        return 0 <= tid < len(self.reach) and bool(self.reach[tid])

    def encode_word(self, word: str) -> list[int] | None:
        """BPE of one word exactly as `tokenizers` runs it (None when a character is not in
        the vocab: the engine's unknown-token rules then apply). Only for the few words an
        explanation shows: quadratic in the word's length."""
        symbols = list(map(self.vocab.get, word))
        if None in symbols:
            return None
        width, rank_of, made = self.width, self.pair_rank.get, self.made
        while len(symbols) > 1:
            best, at = None, -1
            for k in range(len(symbols) - 1):  # the lowest rank, the leftmost of equals
                r = rank_of(symbols[k] * width + symbols[k + 1])
                if r is not None and (best is None or r < best):
                    best, at = r, k
            if best is None:
                break
            symbols[at : at + 2] = [made[best]]
        return symbols
