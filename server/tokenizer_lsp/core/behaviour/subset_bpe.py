"""Encode one text with a BPE tokenizer.json without loading all of it: a copy holding only
the vocabulary entries and merges that text can use gives the same ids, and loads in a
fraction of `Tokenizer.from_file` (qwen3: 151k tokens and merges parsed by tokenizers vs.
a few hundred). `render --ids` encodes one prompt per process: this is its engine.

Why it is exact: BPE merges inside one pre-tokenized piece, so every token it can produce,
and both sides of every merge it can apply, is a substring of a piece of the text in the
model's alphabet (after the normalizer and pre-tokenizer). A superset of those substrings is
kept: the pieces of the whole text, and of each stretch between added tokens (how the
engine really splits it), before and after normalizing, each also with the Metaspace mark
in front (a stretch may get one). Keeping more than can fire never changes a BPE result;
merges keep their order, so their ranks compare as before. The byte-fallback tokens, the
unknown token and every added token are kept whole. tests/unit/test_subset_bpe.py holds it
to the whole tokenizer on fuzzed texts of four real files. Other models, or a BPE with a
continuing-subword prefix or end-of-word suffix (their pieces are not plain substrings),
get None: the caller loads the whole file.
"""

from __future__ import annotations

import re

import orjson

_MAX_TOKEN_CHARS = 64  # longer vocabulary entries are checked against the haystack directly


def subset_json(obj: dict, text: str) -> bytes | None:
    model = obj.get("model") if isinstance(obj, dict) else None
    if not isinstance(model, dict) or model.get("type") != "BPE" or not isinstance(model.get("vocab"), dict):
        return None
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return None
    pieces = _pieces(obj, text)
    if pieces is None:
        return None
    subs: set[str] = set()
    for p in pieces:
        n = len(p)
        for i in range(n):
            for j in range(i + 1, min(n, i + _MAX_TOKEN_CHARS) + 1):
                subs.add(p[i:j])
    hay = "\0".join(pieces)
    added = {a.get("content") for a in obj.get("added_tokens") or [] if isinstance(a, dict)}
    unk = model.get("unk_token")
    byte_token = re.compile(r"<0x[0-9A-Fa-f]{2}>")
    fallback = bool(model.get("byte_fallback"))
    vocab = {}
    for token, tid in model["vocab"].items():
        if (
            token in subs
            or token in added
            or token == unk
            or (fallback and byte_token.fullmatch(token))
            or (len(token) > _MAX_TOKEN_CHARS and token in hay)
        ):
            vocab[token] = tid
    # tokenizers numbers an added token that is not in the model's vocabulary after the
    # vocabulary's size: in the reduced copy it has to be there, with its own id (merges never
    # produce it, so the model still cannot)
    for a in obj.get("added_tokens") or []:
        if isinstance(a, dict) and isinstance(a.get("content"), str) and isinstance(a.get("id"), int):
            vocab.setdefault(a["content"], a["id"])
    merges = []
    for m in model.get("merges") or []:
        a, b = m if isinstance(m, list) else m.split(" ", 1) if isinstance(m, str) and " " in m else (None, None)
        if a is not None and a in vocab and b in vocab and a + b in vocab:
            merges.append(m)
    reduced = {**obj, "model": {**model, "vocab": vocab, "merges": merges}}
    return orjson.dumps(reduced)


def _pieces(obj: dict, text: str) -> list[str] | None:
    """The text's pieces in the model's alphabet, several ways (see the module doc)."""
    from tokenizers import Tokenizer

    shell = {
        k: obj.get(k)
        for k in ("version", "truncation", "padding", "normalizer", "pre_tokenizer", "post_processor", "decoder")
    }
    shell.update(
        added_tokens=[],
        truncation=None,
        padding=None,
        post_processor=None,
        decoder=None,
        model={"type": "BPE", "vocab": {}, "merges": []},
    )
    try:
        tok = Tokenizer.from_str(orjson.dumps(shell).decode())
    except Exception:  # noqa: BLE001 - a shape tokenizers refuses: the caller loads it whole
        return None
    contents = sorted(
        (
            a["content"]
            for a in obj.get("added_tokens") or []
            if isinstance(a, dict) and isinstance(a.get("content"), str) and a["content"]
        ),
        key=len,
        reverse=True,
    )
    splitter = re.compile("|".join(map(re.escape, contents))) if contents else None
    stretches = {text}
    if splitter is not None:
        stretches.update(s for s in splitter.split(text) if s)
    norm, pre = tok.normalizer, tok.pre_tokenizer
    out: list[str] = []
    for s in list(stretches):
        forms = {s}
        if norm is not None:
            n = norm.normalize_str(s)
            forms.add(n)
            if splitter is not None:
                forms.update(x for x in splitter.split(n) if x)
        for f in forms:
            got = [p for p, _ in pre.pre_tokenize_str(f)] if pre is not None else [f]
            out.extend(got)
            out.extend("\u2581" + p for p in got)  # a Metaspace mark a stretch may start with
            out.append("".join(got))
    return out
