"""`diff` of a flat token list (a GGUF) against a file with a model vocabulary and added
tokens (tokenizer.json, vocab.json), what llama.cpp's converter makes of one into the other.

A GGUF keeps one list of tokens by id, each with a type: the converter writes an HF added
token as CONTROL (special) or USER_DEFINED (not special) and every other token NORMAL. So a
GGUF cannot say whether an added token is also in the model vocabulary (GPT-2's
`<|endoftext|>` is in both; Llama 3's specials only among the added tokens), nor an added
token's lstrip / rstrip / normalized / single_word. What it does say is compared, and a
difference of kind is said as one: a token both hold at the same id whose type differs
(NORMAL where the other has an added token, CONTROL where it has a non-special one) is a
type change, never a token added on one side and removed on the other.
"""

from __future__ import annotations

from .diff_sides import Side

# what a GGUF stores of an added token (diff.ADDED_DEFAULTS names the rest)
FLAT_FIELDS = ("id", "special")


def converted_pair(old: Side, new: Side) -> Side | None:
    """The flat side, when exactly one side is flat and the other stores no piece types
    (two GGUFs, or a GGUF and a .model, compare their types as they are)."""
    for flat, other in ((old, new), (new, old)):
        if flat.flat and not other.flat and other.types is None:
            return flat
    return None


def added_elsewhere(side: Side, token: str, tid) -> bool:
    """Is `token` an added token of `side` with id `tid`? (A vocabulary token the other,
    flat, side holds at the same id as an added token: the same token.)"""
    return any(a.get("content") == token and a.get("id") == tid for a in side.added)


def hf_type(side: Side, token: str) -> str | None:
    """The type llama.cpp's converter gives a token of a non-flat side: CONTROL for a
    special added token, USER_DEFINED for another added token, NORMAL for a vocabulary
    token; None when the side does not hold it."""
    for a in side.added:
        if a.get("content") == token:
            return "CONTROL" if a.get("special") else "USER_DEFINED"
    return "NORMAL" if side.vocab is not None and token in side.vocab else None


def type_of(side: Side, token: str) -> str | None:
    if side.flat:
        return side.types.get(token) if side.types else None
    return hf_type(side, token)


def id_of(side: Side, token: str):
    for a in side.added:
        if a.get("content") == token:
            return a.get("id")
    return side.vocab.get(token) if side.vocab is not None else None


def split_added(old: Side, new: Side, out: dict, ao: dict, an: dict) -> list[dict]:
    """For a converted pair: the added-token differences of `ao` / `an` (content -> fields)
    put into `out` ("added", "removed", "changed"), only FLAT_FIELDS compared; those that
    are a change of type at the same id returned as `types` entries instead."""
    types: list[dict] = []

    def retyped(token: str) -> bool:
        tid = id_of(new, token)
        if tid is None or tid != id_of(old, token):
            return False
        a, b = type_of(old, token), type_of(new, token)
        if a is None or b is None or a == b:
            return False
        flat = new if new.flat else old  # its bytes of each token are the file's own
        types.append({"token": token, "text": flat.text_of(token), "id": tid, "old_type": a, "new_type": b})
        return True

    for c in ao.keys() - an.keys():
        if not retyped(c):
            out["removed"].append({"content": c, **ao[c]})
    for c in an.keys() - ao.keys():
        if not retyped(c):
            out["added"].append({"content": c, **an[c]})
    for c in ao.keys() & an.keys():
        fields = {k: {"old": ao[c][k], "new": an[c][k]} for k in FLAT_FIELDS if ao[c][k] != an[c][k]}
        if not fields or (set(fields) == {"special"} and retyped(c)):
            continue
        out["changed"].append({"content": c, "id": an[c]["id"], "fields": fields})
    return types
