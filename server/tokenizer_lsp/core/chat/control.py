"""Control tokens in what a user typed: transformers' `sanitize_control_tokens` (5.24,
`chat_template_utils.mark_control_tokens`, `_get_control_tokens`). A control token is a
special added token, or an added token the template's own text writes (not whitespace), or
one `chat_control_tokens` in tokenizer_config.json names."""

from __future__ import annotations

import re
from functools import lru_cache

import jinja2.nodes

from .sandbox import parse

MARK_START, MARK_END = "\U000f0000", "\U000f0001"  # transformers' private-use markers


@lru_cache(maxsize=16)
def template_literal_text(source: str) -> str:
    """The template's raw text and every string constant, joined by NULs."""
    ast = parse(source)
    literals = {n.data for n in ast.find_all(jinja2.nodes.TemplateData)}
    literals |= {n.value for n in ast.find_all(jinja2.nodes.Const) if isinstance(n.value, str)}
    return "\0".join(literals)


def control_tokens(added, template_text: str, chat_control: list | None) -> tuple[str, ...]:
    """`added`: objects with `.content` and `.special` (tokenizers' AddedToken)."""
    if chat_control is not None:
        named = set(chat_control)
        return tuple(t.content for t in added if t.special or t.content in named)
    literal = template_literal_text(template_text)
    return tuple(t.content for t in added if t.special or (t.content in literal and not t.content.isspace()))


def mark(obj, tokens: tuple[str, ...]):
    """The request with each control token inside its strings wrapped in the markers."""
    if not tokens:
        return obj
    pattern = re.compile("|".join(map(re.escape, sorted(tokens, key=len, reverse=True))))

    def walk(o):
        if isinstance(o, str):
            o = o.replace(MARK_START, "").replace(MARK_END, "")
            return pattern.sub(f"{MARK_START}\\g<0>{MARK_END}", o)
        if isinstance(o, dict):
            return {k: walk(v) for k, v in o.items()}
        if isinstance(o, list):
            return [walk(v) for v in o]
        return o

    return walk(obj)


def typed_control_tokens(request, tokens: tuple[str, ...]) -> list[tuple[int, str]]:
    """(message index, token) for each control token a message's text holds."""
    from .apply import split_request

    try:
        messages, _ = split_request(request)
    except ValueError:
        return []
    out = []

    def strings(o):
        if isinstance(o, str):
            yield o
        elif isinstance(o, dict):
            for v in o.values():
                yield from strings(v)
        elif isinstance(o, list):
            for v in o:
                yield from strings(v)

    for k, message in enumerate(messages):
        for s in strings(message):
            out.extend((k, t) for t in tokens if t in s)
    return out
