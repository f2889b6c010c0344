"""The Jinja environment chat templates render in: set up exactly as transformers sets it up
(`transformers/utils/chat_template_utils.py`, `_cached_compile_jinja_template`, 5.24), plus
the limits an untrusted template needs.

Copied, not imported: transformers is the test oracle, never a runtime dependency
(tests/unit/test_chat_render.py holds every real template's output to it). What is the same:
`ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)`, the `generation` tag,
`loopcontrols`, its `tojson` (no HTML escaping, `ensure_ascii=False`), `raise_exception`,
`strftime_now`, a `dict` that only builds dicts, a `namespace` refusing underscore names.

What is ours (none changes what a template that finishes renders):
- `strftime_now` reads the clock the caller gives (`render --now`) and records that the
  template read it (`chat-template-clock`);
- a deadline and an output/memory ceiling (Limits): the sandbox stops a template from reaching
  Python's internals, not from running for ever or building a string of gigabytes. The
  deadline is checked from a `sys.settrace` hook on Python calls only (no line tracing): every
  loop of a template calls into jinja2's runtime or range(), so a runaway template meets it;
  `*` and `**` are checked before they run (a sandbox hook), so `'a' * 10**10` never starts.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment


class TemplateLimit(Exception):
    """A template ran past a limit (time, output size, a huge `*`/`**`)."""


@dataclass
class Limits:
    seconds: float = 5.0
    output_chars: int = 4_000_000  # 4 M characters: a chat prompt is kilobytes
    operand: int = 1_000_000  # the largest string/list a `*` may build, the largest `**` exponent


@dataclass
class RenderState:
    """What one render sets up and records (a ContextVar: renders on other threads keep their own)."""

    now: datetime | None = None
    limits: Limits = field(default_factory=Limits)
    read_clock: bool = False
    generation: list[tuple[int, int]] | None = None  # spans of {% generation %} blocks
    blocks: list[str] | None = None  # the output so far, while tracking generation blocks


_STATE: ContextVar[RenderState | None] = ContextVar("chat_render_state", default=None)


class _GenerationTag(jinja2.ext.Extension):
    """transformers' AssistantTracker: `{% generation %}...{% endgeneration %}` renders its body
    and, while tracking, records where that body lands in the output."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.CallBlock:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context: jinja2.nodes.EvalContext, caller: jinja2.runtime.Macro) -> str:
        rv = caller()
        state = _STATE.get()
        if state is not None and state.generation is not None and state.blocks is not None:
            start = len("".join(state.blocks))
            state.generation.append((start, start + len(rv)))
        return rv


def _raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format):
    state = _STATE.get()
    if state is None:
        return datetime.now().strftime(format)
    state.read_clock = True
    return (state.now or datetime.now()).strftime(format)


class _TemplateDict:
    # transformers: "a limited subclass so that users can't break out with dictionary attribute access"
    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    def fromkeys(self, *args, **kwargs):
        return dict.fromkeys(*args, **kwargs)


class _TemplateNamespace(jinja2.utils.Namespace):
    # transformers: namespaces reject dunder/underscore attributes (CPython internals)
    def __init__(*args, **kwargs):
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name, value):
        _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check_name(name):
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                "Please rename the attribute."
            )


class _LimitedEnvironment(ImmutableSandboxedEnvironment):
    """transformers' environment; `*` and `**` go through call_binop so their size is checked
    before Python builds the result (the sandbox's documented hook)."""

    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context, operator, left, right):
        state = _STATE.get()
        cap = state.limits.operand if state is not None else Limits().operand
        if operator == "**":
            if isinstance(right, int) and abs(right) > 10_000 and isinstance(left, int) and abs(left) > 1:
                raise TemplateLimit(f"the template computes {left!r} ** {right!r}: a number too large to build")
        elif operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > cap:
                    raise TemplateLimit(
                        f"the template repeats a {type(seq).__name__} of length {len(seq)} "
                        f"{n} times: more than {cap:,} items"
                    )
        return super().call_binop(context, operator, left, right)


def new_environment() -> ImmutableSandboxedEnvironment:
    env = _LimitedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[_GenerationTag, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _TemplateDict()
    env.globals["namespace"] = _TemplateNamespace
    return env


_ENV = new_environment()


@lru_cache(maxsize=32)
def compile_template(source: str) -> jinja2.Template:
    """The compiled template (jinja2.TemplateSyntaxError when it does not compile), cached by
    its text as transformers caches it."""
    return _ENV.from_string(source)


def parse(source: str) -> jinja2.nodes.Template:
    """The template's syntax tree, parsed by the same environment (its tags and options)."""
    return _ENV.parse(source)


@contextmanager
def _deadline(limits: Limits) -> Iterator[None]:
    """Raise TemplateLimit in this thread once `limits.seconds` have passed, checked on every
    Python call (the compiled template, jinja2's runtime). No line events: a trace function
    that returns None adds one cheap call per function call, nothing per line."""
    end = time.monotonic() + limits.seconds
    previous = sys.gettrace()

    def tracer(frame, event, arg):
        if time.monotonic() > end:
            raise TemplateLimit(f"the template ran for more than {limits.seconds:g} s (a loop that never ends?)")
        return None

    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


@dataclass
class Output:
    text: str
    generation: list[tuple[int, int]]
    read_clock: bool


def render(
    template: jinja2.Template,
    variables: dict,
    *,
    now: datetime | None = None,
    limits: Limits | None = None,
    track_generation: bool = True,
) -> Output:
    """Render as transformers does (`Template.generate`, joined), within the limits. Raises
    what the template raises (jinja2.TemplateError and the Python errors of its operations)
    or TemplateLimit."""
    limits = limits or Limits()
    blocks: list[str] = []
    state = RenderState(
        now=now, limits=limits, generation=[] if track_generation else None, blocks=blocks if track_generation else None
    )
    token = _STATE.set(state)
    size = 0
    try:
        with _deadline(limits):
            for block in template.generate(**variables):
                blocks.append(block)
                size += len(block)
                if size > limits.output_chars:
                    raise TemplateLimit(f"the template wrote more than {limits.output_chars:,} characters")
    finally:
        _STATE.reset(token)
    return Output("".join(blocks), state.generation or [], state.read_clock)
