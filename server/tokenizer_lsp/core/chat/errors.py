"""A template's failure in one line, with the template line it happened on: how `render`,
`check` and the editor word it (`chat_template.jinja:12: ...`)."""

from __future__ import annotations

import traceback

import jinja2

from .sandbox import TemplateLimit


def template_line(e: BaseException) -> int | None:
    """The 1-based template line of an error: a syntax error's own, else the deepest frame of
    the compiled template (jinja2 rewrites its frames to `<template>` with template lines)."""
    if isinstance(e, jinja2.TemplateSyntaxError):
        return e.lineno
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == "<template>"]
    return lines[-1] if lines else None


def message(e: BaseException) -> str:
    if isinstance(e, jinja2.TemplateSyntaxError):
        return e.message or str(e)
    if isinstance(e, (jinja2.TemplateError, TemplateLimit)):
        return str(e)
    if isinstance(e, RecursionError):
        return "the template recursed too deeply"
    if isinstance(e, MemoryError):
        return "the template ran out of memory"
    return f"{type(e).__name__}: {e}"


def describe(e: BaseException, place) -> str:
    """`LABEL:LINE: the message` (the line within the template)."""
    line = template_line(e)
    where = f"{place.label}:{line}" if line else place.label
    kind = "does not compile" if isinstance(e, jinja2.TemplateSyntaxError) else "fails"
    return f"{where}: the chat template {kind}: {message(e)}"
