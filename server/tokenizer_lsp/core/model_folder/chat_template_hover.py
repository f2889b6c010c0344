"""Hover on a chat template's variables (`bos_token`, `messages`, `add_generation_prompt`, ...)
in tokenizer_config.json's chat_template string or a .jinja file: the value transformers'
apply_chat_template passes (core/chat/apply.template_variables): the folder's special tokens
(`special_tokens_map`, their ids), the messages, the options' defaults.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from ..decoding.display import code_span
from .config_doc import ConfigDocument
from .spans import string_offsets

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPEN = re.compile(r"\{\{|\{%")
_CLOSE = re.compile(r"\}\}|%\}")
# transformers' SPECIAL_TOKENS_ATTRIBUTES: a template receives them when the tokenizer has them
NAMED_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")

# what apply_chat_template passes besides the special tokens (transformers 5.24)
_OPTIONS = {
    "messages": "the conversation: a list of `{\"role\", \"content\", ...}` dicts as the caller gives them "
    "(keys whose value is None dropped; `reasoning_content`, `thinking` and `reasoning` aliased "
    "to one another)",
    "add_generation_prompt": "`False` unless the caller passes `add_generation_prompt=True` (then the prompt "
    "should end with the assistant's header)",
    "tools": "`None` unless the caller passes `tools=[...]`: a list of JSON schemas of functions",
    "documents": "`None` unless the caller passes `documents=[...]`: a list of `{\"title\", \"text\"}` dicts",
    "raise_exception": "a function: `raise_exception(message)` stops rendering with that message "
    "(apply_chat_template raises TemplateError)",
    "strftime_now": "a function: `strftime_now(format)` formats the current time (the prompt changes by the day)",
}


def template_at(doc, offset: int) -> tuple[str, list[int], int] | None:
    """(template text, byte offset of each character, the character at `offset`) when
    `offset` lies in a chat template: a .jinja document, or a chat_template string of
    tokenizer_config.json (positions mapped through its escapes)."""
    if isinstance(doc, ConfigDocument):
        strings = doc.template_nodes()
        for s in strings:
            if s.start < offset < s.end - 1:
                text, offsets = string_offsets(doc.data, s.start, s.end)
                return text, offsets, max(0, bisect_right(offsets, offset) - 1)
        return None
    text, offsets = getattr(doc, "text", None), getattr(doc, "offsets", None)
    if text is None or offsets is None:
        return None
    return text, offsets, max(0, bisect_right(offsets, offset) - 1)


def variable_at(text: str, at: int) -> tuple[int, int, str] | None:
    """(start, end, name) of the template variable written at character `at`: a name inside
    a `{{ }}` or `{% %}` block, not an attribute (`message.content`) or a key."""
    for m in _WORD.finditer(text, max(0, at - 64), at + 64):
        if m.start() <= at < m.end():
            break
    else:
        return None
    before = text[: m.start()]
    opened = max((o.end() for o in _OPEN.finditer(before)), default=-1)
    closed = max((c.end() for c in _CLOSE.finditer(before)), default=-1)
    if opened < 0 or closed > opened or before.rstrip().endswith(".") or text[m.end() : m.end() + 1] in ("'", '"'):
        return None
    return m.start(), m.end(), m.group()


def variable_hover(name: str, special: dict[str, str], id_of: Callable[[str], int | None], where: str) -> str | None:
    """The hover of a template variable (None: not one apply_chat_template passes)."""
    if name in special:
        token = special[name]
        tid = id_of(token)
        ids = f"id {tid} in {where}" if tid is not None else f"**not a token** of {where}"
        return f"**{name}** = {code_span(token)} ({ids}): the tokenizer's {name}, as apply_chat_template passes it"
    if name in NAMED_TOKENS:
        return (
            f"**{name}**: not set for this tokenizer: undefined in the template "
            f"(`{{{{ {name} }}}}` renders nothing, `{name} is defined` is false)"
        )
    if name in _OPTIONS:
        return f"**{name}**: {_OPTIONS[name]}"
    return None
