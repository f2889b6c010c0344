"""The verdict a person needs before the lists of a `diff`: what the differences amount to.

A list of 31,997 renumbered tokens hides that every one moved by the same +768 (Mistral's
v1 `.model` against v3, 768 control pieces inserted at the front); a list of mismatched ids
hides that the two files are different tokenizers of 102,400 and 128,256 tokens. The
verdicts are said in words, first; the lists follow as they were.
"""

from __future__ import annotations

from collections import Counter

from .sides import Side

# below this share of the smaller vocabulary at the same id, the two are other tokenizers
SAME_TOKENIZER_SHARE = 0.5


def token_count(side: Side) -> int:
    """Every id the tokenizer has: its vocabulary's and its added tokens' (a tokenizer.json
    keeps Llama 3's 256 specials out of model.vocab)."""
    ids = set(side.vocab.values()) if side.vocab else set()
    ids.update(a["id"] for a in side.added if type(a.get("id")) is int)
    return len(ids)


def verdicts(old: Side, new: Side, vocab: dict, same_id: int, common: int) -> list[str]:
    """The sentences that sum up the vocabulary's differences (none when it has none).
    `same_id`: how many tokens both hold at the same id; `common`: at any id."""
    if old.vocab is None or new.vocab is None or not any(vocab[k] for k in ("added", "removed", "renumbered")):
        return []
    n_old, n_new = token_count(old), token_count(new)
    moved = vocab["renumbered"]
    by = Counter(e["new_id"] - e["old_id"] for e in moved if type(e["old_id"]) is int and type(e["new_id"]) is int)
    # one id map explains the most tokens: the same id, or the commonest shift
    explained = same_id + (by.most_common(1)[0][1] if by else 0)
    if explained < SAME_TOKENIZER_SHARE * min(n_old, n_new):
        return [
            f"different tokenizers: {n_old:,} vs {n_new:,} tokens; {common:,} tokens in both, "
            f"{same_id:,} at the same id"
        ]
    out = []
    added = sorted(e["id"] for e in vocab["added"] if type(e["id"]) is int)
    if added and added[-1] - added[0] + 1 == len(added) and moved:
        out.append(f"{len(added):,} tokens inserted at ids {_range(added[0], added[-1])}")
    if moved:
        out.append(_shifts(moved, by, old, not vocab["removed"]))
    return out


def _shifts(moved: list[dict], by: Counter, old: Side, none_removed: bool) -> str:
    if len(by) == 1 and sum(by.values()) == len(moved):
        [shift] = by
        lo = min(e["old_id"] for e in moved)
        hi = max(e["old_id"] for e in moved)
        # "every": each old token from `lo` on is among the moved ones
        later = sum(1 for i in old.vocab.values() if type(i) is int and i >= lo)
        if none_removed and later == len(moved):
            kept = f"; ids {_range(0, lo - 1)} kept" if lo > 0 else ""
            return (
                f"every id from {lo} on shifted by {shift:+d} ({len(moved):,} tokens, old ids {_range(lo, hi)}){kept}"
            )
        return f"{len(moved):,} tokens shifted by {shift:+d} (old ids {_range(lo, hi)})"
    top = ", ".join(f"{s:+d} for {c:,}" for s, c in by.most_common(3))
    more = f" and {len(by) - 3:,} other shifts" if len(by) > 3 else ""
    return f"{len(moved):,} tokens renumbered by different shifts: {top}{more}"


def _range(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}–{b}"
