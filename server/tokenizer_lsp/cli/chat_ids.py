"""The ids of a rendered prompt, as `apply_chat_template(..., tokenize=True)` gives them:
the prompt encoded by the folder's tokenizer without adding special tokens (the template
writes them). With `sanitize`, control tokens typed inside the messages are encoded as text,
as transformers' `sanitize_control_tokens=True` does (`encode_marked_chat`): the request's
strings are marked with two private-use characters around each control token, the prompt is
rendered from the marked request, and the marked pieces are encoded with added tokens off.
"""

from __future__ import annotations

import os
import re

from ..core.chat.control import MARK_END, MARK_START, control_tokens

_LOADED: dict = {}  # path -> loaded tokenizer, kept across calls (the playground encodes often)
_PARSED: dict = {}  # path -> the tokenizer.json object (one entry: read once per render)


def _parsed(path: str):
    import orjson

    if path not in _PARSED:
        with open(path, "rb") as f:
            obj = orjson.loads(f.read())
        _PARSED.clear()
        _PARSED[path] = obj
    return _PARSED[path]


class EncodeFailure(Exception):
    """The folder's tokenizer cannot encode: one line."""


def _load(path: str):
    if path not in _LOADED:
        from ..core.behaviour.load import load_tokenizer_file
        from ..core.behaviour.loaded import LoadError

        try:
            _LOADED[path] = load_tokenizer_file(path)
        except (OSError, LoadError) as e:
            raise EncodeFailure(f"{path}: cannot load the tokenizer: {e}") from e
    return _LOADED[path]


def encode_prompt(path: str, text: str) -> dict:
    """encode's JSON object for `text`, add_special_tokens=False. A BPE tokenizer.json is
    loaded reduced to what the text can use (core/behaviour/subset_bpe.py: the same ids,
    in a fraction of the time); anything else whole, as `encode` loads it."""
    from ..core.behaviour.encode import encode
    from . import tables

    if os.path.basename(path) == "tokenizer.json" and path not in _LOADED:
        loaded = _load_subset(path, text)
        if loaded is not None:
            return encode(loaded, text, False, path)
    got = tables.read(path)  # a table plug-in's file, else None: loaded as `encode` loads it
    if got is tables.FAILED:
        raise EncodeFailure(f"{path}: cannot read the tokenizer")
    if got is not None:
        plugin, table = got
        if getattr(table, "format", None) == "gguf":
            plugin = _GgufPrompt(plugin)
        from .table_encode import encode_result

        return encode_result(plugin, table, text, False, os.path.dirname(os.path.abspath(path)))
    return encode(_load(path), text, False, path)


class _GgufPrompt:
    """A GGUF's plug-in encoding a rendered prompt: its special tokens matched, none added
    (formats/gguf/engine.encode_prompt); `encode(special=False)` would spell them as text."""

    def __init__(self, plugin) -> None:
        self._plugin = plugin

    def __getattr__(self, name):
        return getattr(self._plugin, name)

    encode_spans = None

    def encode(self, table, text, special, folder):
        from ..core.formats.gguf.engine import encode_prompt

        return encode_prompt(table, text)


def _load_subset(path: str, text: str):
    import orjson

    from ..core.behaviour.load import load_tokenizer
    from ..core.behaviour.loaded import LoadError
    from ..core.behaviour.subset_bpe import subset_json

    try:
        reduced = subset_json(_parsed(path), text)
        return load_tokenizer(reduced, path) if reduced is not None else None
    except (OSError, orjson.JSONDecodeError, LoadError):
        return None  # the whole file then, and its own error


def sanitized_ids(path: str, marked: str, template_text: str, chat_control: list | None) -> list[int]:
    """transformers' encode_marked_chat on a prompt rendered from marked inputs (a
    tokenizer.json folder: the engine whose added tokens transformers reads)."""
    loaded = _load(path)
    engine = loaded.engine
    if loaded.kind != "tokenizers":
        raise EncodeFailure(f"{path}: --sanitize needs a tokenizer.json (transformers' fast tokenizer)")
    tokens = control_tokens(engine.get_added_tokens_decoder().values(), template_text, chat_control)
    longest = sorted(tokens, key=len, reverse=True)
    token_re = "|".join(map(re.escape, longest)) or "(?!)"
    markers = re.compile(f"{MARK_START}({token_re}){MARK_END}|[{MARK_START}{MARK_END}]")
    pieces = markers.split(marked)

    def enc(s: str, as_text: bool) -> list[int]:
        engine.encode_special_tokens = as_text
        try:
            return engine.encode(s, add_special_tokens=False).ids
        finally:
            engine.encode_special_tokens = False

    newline = enc("\n", False)
    ids = enc(pieces[0], False)
    for i, piece in enumerate(pieces[1:], start=1):
        if not piece:
            continue
        as_text = i % 2 == 1
        got = enc("\n" + piece, as_text)
        got = got[len(newline) :] if got[: len(newline)] == newline else enc(piece, as_text)
        if as_text and engine.token_to_id(piece) in got:
            raise EncodeFailure(f"Can't sanitize {piece!r}: the tokenizer produces it from plain text")
        ids += got
    return ids


def rows_for_ids(path: str, ids: list[int], text: str) -> list[dict]:
    """Token rows for ids that did not come from encoding `text` in one piece (sanitized):
    each token's stored form and text, its span found by walking the decoded text."""
    engine = _load(path).engine
    rows, at = [], 0
    for tid in ids:
        piece = engine.decode([tid], skip_special_tokens=False)
        start = text.find(piece, at) if piece else -1
        if start == at:
            rows.append(
                {"id": tid, "token": engine.id_to_token(tid), "text": piece, "start": at, "end": at + len(piece)}
            )
            at += len(piece)
        else:
            rows.append({"id": tid, "token": engine.id_to_token(tid), "text": piece, "start": at, "end": at})
    return rows


class _Added:
    __slots__ = ("content", "special")

    def __init__(self, content: str, special: bool) -> None:
        self.content, self.special = content, special


def added_tokens_of(path: str) -> list:
    """The added tokens of a tokenizer.json (content, special), as its engine lists them,
    read from the file: no engine to load for the note on typed control tokens."""
    import orjson

    if os.path.basename(path) != "tokenizer.json":
        return []
    try:
        obj = _parsed(path)
    except (OSError, orjson.JSONDecodeError):
        return []
    return [
        _Added(a["content"], bool(a.get("special")))
        for a in obj.get("added_tokens") or []
        if isinstance(a, dict) and isinstance(a.get("content"), str)
    ]
