"""The added tokens of a slow GPT-2 style folder (whisper's: vocab.json + merges.txt +
added_tokens.json): the engine built from the pair gets them as transformers gives them.

transformers (5.x, whose GPT2Tokenizer is tokenizers-backed) reads added_tokens.json's
entries in id order and adds each with `add_tokens`, special (`add_special_tokens`) when the
folder's tokenizer_config.json / special_tokens_map.json names it as a special token. So a
token already in the vocabulary keeps its vocab id, and the others take the next free ids
in order: the file's ids when they follow the vocabulary, as every published folder's do.
When they do not, the ids the engine gives are the ones transformers encodes with, and a
note says which entries differ from the file.
"""

from __future__ import annotations

import os

import orjson

from ..model_folder.config_doc import token_text

ADDED_NAME = "added_tokens.json"
_NAMING = ("tokenizer_config.json", "special_tokens_map.json")
_SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def add_folder_tokens(engine, vocab_path: str | None) -> tuple[frozenset[int], tuple[str, ...]]:
    """Adds the entries of the added_tokens.json beside `vocab_path` to `engine` (a
    tokenizers.Tokenizer holding the pair's BPE). Returns the ids of those outside the
    model vocab (their content is their text) and the notes encode prints. A file that is
    not a token -> id object adds nothing: `check` reports it."""
    entries = _entries(vocab_path)
    if not entries:
        return frozenset(), ()
    from tokenizers import AddedToken

    special = _special_names(os.path.dirname(os.path.abspath(vocab_path)))
    model = engine.model
    outside: set[int] = set()
    moved: list[str] = []
    for token, tid in sorted(entries.items(), key=lambda kv: kv[1]):
        is_special = token in special
        # transformers: normalized=not special (no normalizer here: it changes no match)
        added = AddedToken(token, special=is_special, normalized=not is_special)
        (engine.add_special_tokens if is_special else engine.add_tokens)([added])
        given = engine.token_to_id(token)
        if model.token_to_id(token) is None:
            outside.add(given)
        if given != tid:
            moved.append(f"`{token}` {tid} -> {given}")
    notes = ()
    if moved:
        notes = (f"{ADDED_NAME}: {len(moved)} id{'s' if len(moved) != 1 else ''} differ from the file, as "
                 f"transformers loads it (a vocab token keeps its id; the others follow the vocabulary "
                 f"in order): {', '.join(moved[:5])}{' ...' if len(moved) > 5 else ''}",)
    return frozenset(outside), notes


def added_tokens_stamp(path: str | None) -> tuple[int, int] | None:
    """(mtime, size) of the added_tokens.json beside `path`, None when there is none: part
    of what a vocab.json or merges file was loaded with (the server's engine reloads when
    it changes on disk)."""
    if not path:
        return None
    try:
        st = os.stat(os.path.join(os.path.dirname(os.path.abspath(path)), ADDED_NAME))
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _entries(vocab_path: str | None) -> dict[str, int]:
    if not vocab_path:
        return {}
    obj = _read_json(os.path.join(os.path.dirname(os.path.abspath(vocab_path)), ADDED_NAME))
    if not isinstance(obj, dict):
        return {}
    return {t: i for t, i in obj.items() if isinstance(i, int) and not isinstance(i, bool) and i >= 0}


def _special_names(folder: str) -> set[str]:
    """The tokens the folder's configs name as special (bos/eos/... and additional ones)."""
    out: set[str] = set()
    for name in _NAMING:
        obj = _read_json(os.path.join(folder, name))
        if not isinstance(obj, dict):
            continue
        out.update(t for t in (token_text(obj.get(k)) for k in _SPECIAL_KEYS) if t is not None)
        for key in ("additional_special_tokens", "extra_special_tokens"):
            value = obj.get(key)
            if isinstance(value, list):
                out.update(t for t in map(token_text, value) if t is not None)
    return out


def _read_json(path: str):
    try:
        with open(path, "rb") as f:
            return orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return None
