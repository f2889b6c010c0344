"""A model folder's config file: its values (orjson), and every literal in it that names a
token or an id, with the source span of the literal and of the entry it belongs to.

Tokens are written as strings or as `{"__type": "AddedToken", "content": ...}` objects
(transformers wrote those before 4.34); ids as numbers or lists of numbers.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass

import orjson

from ..detect import CONFIG_NAMES, is_config_name
from .spans import Node, span_tree, string_offsets

__all__ = ["CONFIG_NAMES", "ConfigDocument", "ConfigItem", "is_config_name", "token_text"]

# the ids a config names for a token of tokenizer_config.json (`eos_token_id` for `eos_token`)
CHECKED_IDS = ("bos", "eos", "pad")
# special-looking literals of a chat template: `<|...|>`, DeepSeek's full-width `<｜...｜>`
# (U+FF5C; `<｜User｜>`, `<｜tool▁calls▁begin｜>`), and `<...>` with no spaces
_SPECIAL = re.compile(r"<\|[^\s<>|]*\|>|<｜[^\s<>｜]*｜>|</?[A-Za-z0-9_][^\s<>{}'\"]*>")


def special_literals(text: str) -> list[tuple[int, int, str]]:
    """(start, end, literal) of the special-looking literals of a template's text."""
    return [(m.start(), m.end(), m.group()) for m in _SPECIAL.finditer(text)]


Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ConfigItem:
    """A literal of a config file that names a token or an id."""

    role: str  # "token" | "decoder" | "decoder-key" | "added-json" | "id" | "template"
    key: str  # the top-level key it sits under (eos_token, added_tokens_decoder, ...)
    start: int  # the literal: a token string, an id number, a decoder key
    end: int
    entry: Span  # where a finding about it goes: key to end of value, or a list element
    token: str | None = None  # the token it names (for an id: the token written beside it)
    tid: int | None = None  # the id it names


def token_text(value) -> str | None:
    """A token written as a string or an AddedToken object."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def _as_id(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _decoder_key(key: str) -> int | None:
    return int(key) if key.isdigit() else None


class ConfigDocument:
    """One config file (tokenizer_config.json, generation_config.json, ...)."""

    vocab = None  # not a vocabulary: hovers and hints of tokens come from the tokenizer's
    tables_ready = True

    def __init__(self, data: bytes, path: str | None, obj=None) -> None:
        self.data = data
        self.path = path
        self.name = os.path.basename(path or "").lower()
        self.obj = orjson.loads(data) if obj is None else obj
        self._tree: Node | None = None
        self._items: list[ConfigItem] | None = None

    @property
    def tree(self) -> Node | None:
        if self._tree is None and isinstance(self.obj, dict):
            self._tree = span_tree(self.data)
        return self._tree

    def build_tables(self) -> None:
        _ = self.items

    # ---- what it names ---------------------------------------------------------------

    def named_token(self, which: str) -> str | None:
        """The token this file names for `which` ("eos": its eos_token)."""
        return token_text(self.obj.get(f"{which}_token")) if isinstance(self.obj, dict) else None

    @property
    def items(self) -> list[ConfigItem]:
        """Every token and id literal, in file order."""
        if self._items is None:
            self._items = sorted(self._collect(), key=lambda i: i.start) if self.tree is not None else []
        return self._items

    def _collect(self):
        root, obj = self.tree, self.obj
        if root is None or root.kind != "object" or not isinstance(obj, dict):
            return
        if self.name == "added_tokens.json":
            for token, ((ks, ke), node) in root.keys.items():
                yield ConfigItem("added-json", token, ks, ke, (ks, node.end), token, _as_id(obj.get(token)))
            return
        for key, (kspan, node) in root.keys.items():
            value = obj.get(key)
            entry = (kspan[0], node.end)
            if key == "added_tokens_decoder" and isinstance(value, dict):
                yield from self._decoder(node, value)
            elif key in ("additional_special_tokens", "extra_special_tokens"):
                yield from self._token_list(key, node, value)
            elif key.endswith("_token_id"):
                yield from self._ids(key, node, value, entry)
            elif key.endswith("_token") and token_text(value) is not None:
                span = _content_span(node)
                if span is not None:
                    yield ConfigItem("token", key, *span, entry, token_text(value))
            elif key == "chat_template":
                yield from self._templates(node, value)

    def _decoder(self, node: Node, value: dict):
        for key, (kspan, entry_node) in node.keys.items():
            content = token_text(value.get(key))
            span = _content_span(entry_node)
            entry = (kspan[0], entry_node.end)
            tid = _decoder_key(key)
            yield ConfigItem("decoder-key", "added_tokens_decoder", *kspan, entry, content, tid)
            if span is not None and content is not None:
                yield ConfigItem("decoder", "added_tokens_decoder", *span, entry, content, tid)

    def _token_list(self, key: str, node: Node, value):
        if isinstance(value, list) and node.kind == "array":
            pairs = zip(value, node.items)
        elif isinstance(value, dict) and node.kind == "object":  # extra_special_tokens: name -> token
            pairs = ((value.get(k), n) for k, (_, n) in node.keys.items())
        else:
            return
        for element, child in pairs:
            token, span = token_text(element), _content_span(child)
            if token is not None and span is not None:
                yield ConfigItem("token", key, *span, (child.start, child.end), token)

    def _ids(self, key: str, node: Node, value, entry: Span):
        which = key[: -len("_token_id")]
        named = self.named_token(which)
        if _as_id(value) is not None:
            yield ConfigItem("id", key, node.start, node.end, entry, named, value)
        elif isinstance(value, list) and node.kind == "array":
            for element, child in zip(value, node.items):
                if _as_id(element) is not None:
                    yield ConfigItem("id", key, child.start, child.end, (child.start, child.end), named, element)

    def template_nodes(self) -> list[Node]:
        """The JSON string literals holding chat templates: `chat_template` as a string, or
        each `template` of its list of {"name", "template"} objects (checks, hover and code
        actions all read templates through this)."""
        root = self.tree
        if root is None or root.kind != "object" or "chat_template" not in root.keys:
            return []
        _, node = root.keys["chat_template"]
        if node.kind == "string":
            return [node]
        if node.kind != "array":
            return []
        return [
            found[1]
            for child in node.items
            if (found := child.member("template")) is not None and found[1].kind == "string"
        ]

    def _templates(self, node: Node, value):
        """Special-looking literals of chat_template (a string, or a list of
        {"name", "template"} objects), each at its place inside the string literal."""
        for string in self.template_nodes():
            text, offsets = string_offsets(self.data, string.start, string.end)
            for m in _SPECIAL.finditer(text):
                start, end = offsets[m.start()], offsets[m.end()]
                yield ConfigItem("template", "chat_template", start, end, (start, end), m.group())

    # ---- navigation ------------------------------------------------------------------

    def item_at(self, offset: int) -> ConfigItem | None:
        items = self.items
        k = bisect_right(items, offset, key=lambda i: i.start) - 1
        if k >= 0 and items[k].start <= offset < items[k].end:
            return items[k]
        return None

    def tokens_in(self, start: int, end: int, limit: int | None = None) -> list:
        return []  # no inlay hints: config tokens are written as text

    def token_at(self, offset: int):
        return None  # handlers ask item_at: a config token's facts live in the tokenizer file


def _content_span(node: Node) -> Span | None:
    """The literal of a token: the string itself, or an AddedToken object's content."""
    if node.kind == "string":
        return node.start, node.end
    found = node.member("content") if node.kind == "object" else None
    return (found[1].start, found[1].end) if found is not None and found[1].kind == "string" else None
