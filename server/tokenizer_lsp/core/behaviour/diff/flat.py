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

from .sides import Side

# what a GGUF stores of an added token (diff.ADDED_DEFAULTS names the rest)
FLAT_FIELDS = ("id", "special")


def converted_pair(old: Side, new: Side) -> Side | None:
    """The flat side, when exactly one side is flat and the other stores no piece types
    (two GGUFs, or a GGUF and a .model, compare their types as they are)."""
    for flat, other in ((old, new), (new, old)):
        if flat.flat and not other.flat and other.types is None:
            return flat
    return None


def added_at(side: Side) -> dict[str, object]:
    """content -> id of each added token of `side` (the first of a content). A vocabulary
    token the other, flat, side holds at that id as an added token is the same token."""
    out: dict[str, object] = {}
    for a in side.added:
        content = a.get("content")
        if isinstance(content, str) and content not in out:
            out[content] = a.get("id")
    return out


def split_added(old: Side, new: Side, out: dict, ao: dict, an: dict) -> list[dict]:
    """For a converted pair: the added-token differences of `ao` / `an` (content -> its
    fields, diff.py's by_content) put into `out` ("added", "removed", "changed"), only
    FLAT_FIELDS compared; those that are a change of type at the same id returned as
    `types` entries instead. Every lookup is a dict's (Gemma has 6k added tokens)."""
    types: list[dict] = []
    flat = new if new.flat else old  # its bytes of each token are the file's own

    def id_of(side: Side, added: dict, token: str):
        if token in added:
            return added[token]["id"]
        return side.vocab.get(token) if side.vocab is not None else None

    def type_of(side: Side, added: dict, token: str) -> str | None:
        """The flat side's stored type; the other's as llama.cpp's converter gives it:
        CONTROL a special added token, USER_DEFINED another, NORMAL a vocabulary token."""
        if side.flat:
            return side.types.get(token) if side.types else None
        if token in added:
            return "CONTROL" if added[token]["special"] else "USER_DEFINED"
        return "NORMAL" if side.vocab is not None and token in side.vocab else None

    def retyped(token: str) -> bool:
        tid = id_of(new, an, token)
        if tid is None or tid != id_of(old, ao, token):
            return False
        a, b = type_of(old, ao, token), type_of(new, an, token)
        if a is None or b is None or a == b:
            return False
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
