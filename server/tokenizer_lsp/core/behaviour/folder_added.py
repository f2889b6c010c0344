"""The added tokens of a slow GPT-2 style folder (whisper's: vocab.json + merges.txt +
added_tokens.json, tokenizer_config.json, special_tokens_map.json): the engine built from the
pair gets them as transformers gives them.

transformers (5.x, whose GPT2Tokenizer is tokenizers-backed) reads added_tokens.json's
entries in id order and adds each with `add_tokens`, special (`add_special_tokens`) when the
folder's tokenizer_config.json / special_tokens_map.json names it as a special token. So a
token already in the vocabulary keeps its vocab id, and the others take the next free ids
in order: the file's ids when they follow the vocabulary, as every published folder's do.
When they do not, the ids the engine gives are the ones transformers encodes with, and a
note says which entries differ from the file. The special tokens the configs name (or the
tokenizer class gives by default: GPT-2's and Whisper's `<|endoftext|>`) are special added
tokens too, matched whole: `<|endoftext|>` in the text is its vocab id, not `<`, `|`, `end`...
"""

from __future__ import annotations

import os
from itertools import groupby

import orjson

from ..model_folder.config_doc import token_text

ADDED_NAME = "added_tokens.json"
_NAMING = ("tokenizer_config.json", "special_tokens_map.json")
_SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
# the special tokens a slow tokenizer class has when the configs leave the key out
# (transformers' GPT2Tokenizer and WhisperTokenizer __init__ defaults)
_CLASS_DEFAULTS = {
    "GPT2Tokenizer": {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
}
_CLASS_DEFAULTS["WhisperTokenizer"] = _CLASS_DEFAULTS["GPT2Tokenizer"]


def add_folder_tokens(engine, vocab_path: str | None) -> tuple[frozenset[int], tuple[str, ...]]:
    """Adds the entries of the added_tokens.json beside `vocab_path`, and the special
    tokens the folder names, to `engine` (a tokenizers.Tokenizer holding the pair's BPE).
    Returns the ids of those outside the model vocab (their content is their text) and the
    notes encode prints. A file that is not a token -> id object adds nothing: `check`
    reports it."""
    if not vocab_path:
        return frozenset(), ()
    folder = os.path.dirname(os.path.abspath(vocab_path))
    entries = _entries(folder)
    special = _special_names(folder)
    if not entries and not special:
        return frozenset(), ()
    from tokenizers import AddedToken

    model = engine.model
    outside: set[int] = set()
    moved: list[str] = []
    ordered = sorted(entries.items(), key=lambda kv: kv[1])
    # added in runs of one kind, in id order: one call per run, since each call rebuilds the
    # matcher of every added token (whisper's 1.6k one by one took 2 s, in one call 5 ms)
    for is_special, run in groupby(ordered, key=lambda kv: kv[0] in special):
        # transformers: normalized=not special (no normalizer here: it changes no match)
        batch = [AddedToken(token, special=is_special, normalized=not is_special) for token, _ in run]
        (engine.add_special_tokens if is_special else engine.add_tokens)(batch)
    for token, tid in ordered:
        given = engine.token_to_id(token)
        if model.token_to_id(token) is None:
            outside.add(given)
        if given != tid:
            moved.append(f"`{token}` {tid} -> {given}")
    named = sorted(t for t in special if t not in entries and model.token_to_id(t) is not None)
    if named:  # tokens of the vocabulary: matched whole, at their vocab ids
        engine.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in named])
    notes: tuple[str, ...] = ()
    if moved:
        notes += (
            f"{ADDED_NAME}: {len(moved)} id{'s' if len(moved) != 1 else ''} differ from the file, as "
            f"transformers loads it (a vocab token keeps its id; the others follow the vocabulary "
            f"in order): {', '.join(moved[:5])}{' ...' if len(moved) > 5 else ''}",
        )
    absent = sorted(t for t in special if t not in entries and model.token_to_id(t) is None)
    if absent:
        notes += (
            f"named as special tokens by the folder's config but not tokens of it (config-token-missing): "
            f"{', '.join(f'`{t}`' for t in absent[:5])}; transformers adds them at new ids, these "
            "ids split them",
        )
    return frozenset(outside), notes


def added_entries(vocab_path: str | None, vocab: dict[str, int]) -> list[dict]:
    """The folder's added tokens as transformers loads them (what add_folder_tokens gives
    an engine), in tokenizer.json's `added_tokens` form, for `diff`, which reads files
    without an engine: added_tokens.json's entries in id order, each at its vocab id or
    at the next id tokenizers gives (AddedVocabulary::add_tokens: after the vocabulary, or
    after the highest added one past it), then the special tokens the folder names that
    are vocabulary tokens, at their ids. Special ones are not normalized, as transformers
    adds them."""
    if not vocab_path:
        return []
    folder = os.path.dirname(os.path.abspath(vocab_path))
    entries, special = _entries(folder), _special_names(folder)
    out: list[dict] = []
    given: list[int] = []
    for token, _ in sorted(entries.items(), key=lambda kv: kv[1]):
        tid = vocab.get(token)
        if tid is None:
            top = max(given, default=None)
            tid = top + 1 if top is not None and top >= len(vocab) else len(vocab)
        given.append(tid)
        out.append(_added_token(token, tid, token in special))
    out.extend(_added_token(t, vocab[t], True) for t in sorted(special) if t not in entries and t in vocab)
    return out


def _added_token(content: str, tid: int, special: bool) -> dict:
    return {
        "id": tid,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": not special,
        "special": special,
    }


def folder_stamp(path: str | None) -> tuple | None:
    """(mtime, size) of the added_tokens.json and config files beside `path` (None for
    each absent): part of what a vocab.json or merges file was loaded with (the server's
    engine loads it again when one changes on disk)."""
    if not path:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    out = []
    for name in (ADDED_NAME, *_NAMING):
        try:
            st = os.stat(os.path.join(folder, name))
        except OSError:
            out.append(None)
            continue
        out.append((st.st_mtime_ns, st.st_size))
    return tuple(out)


def matched_whole(vocab_path: str | None) -> frozenset[str]:
    """The tokens a slow folder's engine matches whole in any text (its added_tokens.json
    entries and the special tokens its configs or tokenizer class name): the folder produces
    each of them, whatever the merges would make of its text."""
    if not vocab_path:
        return frozenset()
    folder = os.path.dirname(os.path.abspath(vocab_path))
    return frozenset(_entries(folder)) | frozenset(_special_names(folder))


def _entries(folder: str) -> dict[str, int]:
    obj = _read_json(os.path.join(folder, ADDED_NAME))
    if not isinstance(obj, dict):
        return {}
    return {t: i for t, i in obj.items() if isinstance(i, int) and not isinstance(i, bool) and i >= 0}


def _special_names(folder: str) -> set[str]:
    """The tokens the folder's configs name as special (bos/eos/... and additional ones),
    and its tokenizer class's defaults for the keys they leave out."""
    out: set[str] = set()
    given: set[str] = set()
    cls = None
    for name in _NAMING:
        obj = _read_json(os.path.join(folder, name))
        if not isinstance(obj, dict):
            continue
        if isinstance(obj.get("tokenizer_class"), str):
            cls = cls or obj["tokenizer_class"].removesuffix("Fast")
        given.update(k for k in _SPECIAL_KEYS if k in obj)
        out.update(t for t in (token_text(obj.get(k)) for k in _SPECIAL_KEYS) if t is not None)
        for key in ("additional_special_tokens", "extra_special_tokens"):
            value = obj.get(key)
            if isinstance(value, list):
                out.update(t for t in map(token_text, value) if t is not None)
    out.update(t for k, t in _CLASS_DEFAULTS.get(cls, {}).items() if k not in given)
    return out


def _read_json(path: str):
    try:
        with open(path, "rb") as f:
            return orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return None
