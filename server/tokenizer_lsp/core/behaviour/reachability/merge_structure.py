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

Merges that are not ordered (gemma3) are answered by running BPE on each word here
(`encode_word`, the engine's algorithm on one word), a few seconds for 262k words, instead
of loading the whole tokenizer into the engine (370 MB for gemma3).

Everything is kept in arrays of machine integers, not lists and dicts of Python ints: the
structure is built in the server's forked child, where each Python object is memory the
tree holds (gemma3's 514k merges as a dict of pairs were 70 MB, as sorted arrays 6 MB).

`tests/property/test_merge_structure.py` holds this against the engine on random vocabularies
(hypothesis) and on tokenizers it trains; `tests/unit/test_unreachable.py` on qwen3 and llama3.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from operator import add, gt

_NONE = 1 << 62  # the rank of a pair no merge joins (above every real rank)


class PairRanks:
    """pair key -> rank of its merge, the last one when a pair is listed twice (as the
    engine's map of merges keeps it): sorted arrays searched by bisection."""

    __slots__ = ("distinct", "keys", "ranks")

    def __init__(self, keys: array) -> None:
        order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: equal keys by rising rank
        self.keys = array("q", map(keys.__getitem__, order))
        self.ranks = array("l", order)
        del order
        k = self.keys
        self.distinct = sum(1 for i in range(len(k)) if i == 0 or k[i] != k[i - 1])

    def get(self, key: int, default: int | None = None) -> int | None:
        i = bisect_right(self.keys, key) - 1
        return self.ranks[i] if i >= 0 and self.keys[i] == key else default

    def as_dict(self) -> dict[int, int]:
        """The same as a dict: 8x the memory, 5x faster lookups (BPE on every word)."""
        return dict(zip(self.keys, self.ranks))  # equal keys: the last, highest rank wins


class MergeStructure:
    """The merges of one BPE model as arrays indexed by token id."""

    __slots__ = (
        "byte_ids",
        "created",
        "left",
        "made",
        "ordered",
        "pair_rank",
        "parts",
        "rank_of",
        "reach",
        "right",
        "vocab",
        "width",
    )

    def __init__(self, vocab: dict[str, int], firsts: list[str], seconds: list[str]) -> None:
        """ValueError when a merge names a token the vocab lacks (the engine refuses such
        a file). `ordered` says whether `reachable` can be asked (the module docstring)."""
        get = vocab.get
        a = list(map(get, firsts))
        b = list(map(get, seconds))
        c = list(map(get, map(add, firsts, seconds)))
        if None in a or None in b or None in c:
            raise ValueError("a merge names a token outside the vocab")
        self._build(vocab, array("l", a), array("l", b), array("l", c))

    @classmethod
    def of_ids(cls, vocab: dict[str, int], a: array, b: array, c: array) -> MergeStructure:
        """From the merges' ids already looked up (parts a, b and result c by rank)."""
        self = cls.__new__(cls)
        self._build(vocab, a, b, c)
        return self

    def _build(self, vocab: dict[str, int], a: array, b: array, c: array) -> None:
        width = max(vocab.values(), default=0) + 1
        self.pair_rank = PairRanks(array("q", (x * width + y for x, y in zip(a, b))))
        self.rank_of = self.pair_rank.get  # encode_word's lookups (a dict after many_words)
        self.vocab, self.width, self.made = vocab, width, c  # made[rank]: the token a merge produces
        self.byte_ids: list[int] | None = None  # <0xNN> ids, for byte_fallback (use_byte_fallback)
        created = array("l", [-1]) * width  # rank of the merge that produces a token; -1: none
        ordered = self.pair_rank.distinct == len(c)
        for r, t in enumerate(c):
            if created[t] != -1:
                ordered = False  # produced by two merges
            created[t] = r
        if ordered:  # both parts made before (or never made: single characters)
            ordered = all(map(gt, range(len(c)), map(created.__getitem__, a))) and all(
                map(gt, range(len(c)), map(created.__getitem__, b))
            )
        self.ordered, self.created = ordered, created
        self.parts = (a, b)  # by rank: the first and second part of each merge
        self.left = array("l")  # by token: the parts of its merge (find_reachable)
        self.right = array("l")
        self.reach = bytearray()

    def many_words(self) -> None:
        """Before encode_word on every token: the pairs' ranks in a dict (gemma3: 50 MB
        more, BPE on its 262k words 3x faster)."""
        self.rank_of = self.pair_rank.as_dict().get

    def use_byte_fallback(self) -> None:
        """Characters outside the vocab become their UTF-8 bytes' <0xNN> tokens, as with
        the model's byte_fallback (when all 256 are in the vocab)."""
        ids = [self.vocab.get(f"<0x{n:02X}>") for n in range(256)]
        self.byte_ids = ids if None not in ids else None

    def find_reachable(self) -> None:
        """reach[t] = 1 when BPE of t's word is [t] (the module docstring's walk); ordered
        merges only. The second half of the work, apart so a caller can first ask `ordered`."""
        (a, b), c = self.parts, self.made
        width, created = self.width, self.created
        left, right = array("l", [-1]) * width, array("l", [-1]) * width
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
        """BPE of one word exactly as `tokenizers` runs it (models/bpe/word.rs): the pair
        of lowest rank merges first, the leftmost of equal ones (an equal rank is the same
        pair). None when a character is neither in the vocab nor given by byte fallback
        (the engine's unknown-token rules then apply)."""
        get = self.vocab.get
        symbols = list(map(get, word))
        if None in symbols:
            symbols = self._with_bytes(word, symbols)
            if symbols is None:
                return None
        width, rank_of, made = self.width, self.rank_of, self.made
        ranks = [rank_of(x * width + y, _NONE) for x, y in zip(symbols, symbols[1:])]
        while ranks:
            best = min(ranks)
            if best == _NONE:
                break
            k = ranks.index(best)
            symbols[k : k + 2] = [made[best]]
            del ranks[k]
            if k > 0:
                ranks[k - 1] = rank_of(symbols[k - 1] * width + symbols[k], _NONE)
            if k < len(ranks):
                ranks[k] = rank_of(symbols[k] * width + symbols[k + 1], _NONE)
        return symbols

    def _with_bytes(self, word: str, symbols: list) -> list[int] | None:
        if self.byte_ids is None:
            return None
        out: list[int] = []
        for ch, s in zip(word, symbols):
            if s is None:
                out.extend(self.byte_ids[n] for n in ch.encode("utf-8", "surrogatepass"))
            else:
                out.append(s)
        return out
