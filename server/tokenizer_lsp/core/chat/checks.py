"""The chat-template checks of one template (docs/guides/check-a-chat-template.md):
chat-template-syntax, -render, -rejects, -double-bos, -stop-token, -generation-prompt,
-clock and -portability. Each finding is in characters of the template's text; the caller
maps them into its file (a .jinja file, or the JSON string of tokenizer_config.json).
The folder-level codes (-copies, -missing) are in folder_checks.py.

Every check renders the standard chats (chats.py) in the sandbox: a template that runs away
is stopped by its limits and reported once, as chat-template-render.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import jinja2

from . import errors
from .apply import apply
from .chats import standard_chats, with_next_turn
from .context import ChatContext
from .sandbox import Limits, compile_template

LIMITS = Limits(seconds=2.0)  # per render; a check renders up to 12 chats


@dataclass(frozen=True)
class TemplateFinding:
    code: str
    start: int  # characters of the template text
    end: int
    message: str
    fix: str | None = None  # text replacing [start, end) that resolves it (portability)


def line_span(source: str, line: int | None) -> tuple[int, int]:
    """The characters of a 1-based line, without its indentation and line break."""
    if not line or line < 1:
        return 0, min(len(source), source.find("\n") if "\n" in source else len(source))
    starts = [0] + [m.end() for m in re.finditer("\n", source)]
    if line > len(starts):
        line = len(starts)
    start = starts[line - 1]
    end = source.find("\n", start)
    end = len(source) if end < 0 else end
    text = source[start:end]
    lead = len(text) - len(text.lstrip())
    return (start + lead, end) if end > start + lead else (start, end)


def _in_line(source: str, span: tuple[int, int], word: str | None) -> tuple[int, int]:
    if word:
        at = source.find(word, span[0], span[1] + len(word))
        if at >= 0:
            return at, at + len(word)
    return span


def _first(source: str, pattern: str) -> tuple[int, int]:
    m = re.search(pattern, source)
    return (m.start(), m.end()) if m else (0, 0)


def _syntax_word(e: jinja2.TemplateSyntaxError) -> str | None:
    m = re.search(r"'(\w+)'", e.message or "")
    return m.group(1) if m else None


@dataclass(frozen=True)
class _Runs:
    """What rendering the standard chats finds: the findings that do not depend on the
    tokenizer, and the plain chat's prompt, which the tokenizer's facts are checked on."""

    first: tuple[TemplateFinding, ...]  # compile/render failures, rejects, the clock
    then: tuple[TemplateFinding, ...]  # generation prompt, portability
    plain: str | None  # the plain chat's prompt (None: the checks stopped at `first`)


_RUNS: dict[tuple, _Runs | threading.Event] = {}  # key -> result, or the event of a run under way
_RUNS_SIZE = 32
_RUNS_LOCK = threading.Lock()


def _key(source: str, special_tokens: dict[str, str], portability: bool) -> tuple:
    return (source, portability, tuple(sorted(special_tokens.items())))


def template_findings(source: str, ctx: ChatContext, portability: bool = True) -> list[TemplateFinding]:
    """The findings of one template. Its renders run through core.seams.isolated (a forked
    child in the server: the template is untrusted code) and are kept for the same template
    and special tokens: the folder's configs are re-checked after every tokenizer edit, and
    a tokenizer's first open starts them early (prepare_template)."""
    runs = template_runs(source, ctx.special_tokens, portability)
    if runs.plain is None:
        return list(runs.first)
    return [
        *runs.first,
        *_double_bos(source, runs.plain, ctx),
        *_stop_token(source, runs.plain, standard_chats()["plain"][1], ctx),
        *runs.then,
    ]


def prepare_template(source: str, special_tokens: dict[str, str], portability: bool = True) -> None:
    """Render a template's standard chats now, for template_findings to find done (a caller
    with a core to spare while the tokenizer it is checked against is still being built)."""
    template_runs(source, special_tokens, portability)


def template_runs(source: str, special_tokens: dict[str, str], portability: bool) -> _Runs:
    """The renders of a template, made once for the same inputs: a second caller while they
    are made (the early start and the config check) waits for the first one's."""
    from .. import seams

    key = _key(source, special_tokens, portability)
    while True:
        with _RUNS_LOCK:
            found = _RUNS.get(key)
            if found is None:
                _RUNS[key] = running = threading.Event()
                break
        if isinstance(found, _Runs):
            return found
        found.wait()
    try:
        runs = seams.isolated(_compute, source, dict(special_tokens), portability)
    except BaseException:
        with _RUNS_LOCK:
            _RUNS.pop(key, None)
        running.set()
        raise
    with _RUNS_LOCK:
        while len(_RUNS) >= _RUNS_SIZE:
            _RUNS.pop(next(iter(_RUNS)))
        _RUNS[key] = runs
    running.set()
    return runs


def _compute(source: str, special_tokens: dict[str, str], portability: bool) -> _Runs:
    try:
        compile_template(source)
    except jinja2.TemplateSyntaxError as e:
        span = _in_line(source, line_span(source, e.lineno), _syntax_word(e))
        return _Runs(
            (TemplateFinding("chat-template-syntax", *span, f"the chat template does not compile: {e.message}"),),
            (),
            None,
        )
    except Exception as e:  # noqa: BLE001 - any other compile failure is the template's
        return _Runs(
            (TemplateFinding("chat-template-syntax", 0, 0, f"the chat template does not compile: {e}"),), (), None
        )
    out: list[TemplateFinding] = []
    chats = standard_chats()
    renders: dict[str, str] = {}
    read_clock = False
    for name, (what, chat) in chats.items():
        try:
            got = apply(source, chat, special_tokens, limits=LIMITS)
        except Exception as e:  # noqa: BLE001 - what the template raises is the finding
            span = _raise_span(source, e)
            if name == "plain":
                message = f"the chat template fails on {what}: {errors.message(e)}"
                return _Runs((TemplateFinding("chat-template-render", *span, message),), (), None)
            out.append(
                TemplateFinding(
                    "chat-template-rejects", *span, f"the chat template rejects {what}: {errors.message(e)}"
                )
            )
            continue
        renders[name] = got.text
        read_clock |= got.read_clock
    if read_clock:
        out.append(
            TemplateFinding(
                "chat-template-clock",
                *_first(source, r"strftime_now"),
                "the template reads the clock (strftime_now): the prompt changes by the day, so prompt caches miss",
            )
        )
    then = _generation_prompt(source, renders, chats, special_tokens)
    if portability:
        then += _portability(source, chats, special_tokens)
    return _Runs(tuple(out), tuple(then), renders.get("plain", ""))


def _raise_span(source: str, e: BaseException) -> tuple[int, int]:
    span = line_span(source, errors.template_line(e))
    return _in_line(source, span, "raise_exception")


def _double_bos(source: str, prompt: str, ctx: ChatContext) -> list[TemplateFinding]:
    bos = ctx.special_tokens.get("bos_token")
    if not bos or not prompt.startswith(bos) or ctx.adds_bos is None:
        return []
    span = _first(source, r"bos_token") if "bos_token" in source else _first(source, re.escape(bos))
    return [
        TemplateFinding(
            "chat-template-double-bos",
            *span,
            f"the prompt begins with the BOS token {bos!r} and {ctx.tokenizer_name} adds one when "
            f"it encodes with special tokens ({ctx.adds_bos}): runtimes that encode the rendered "
            "prompt that way (llama.cpp, vLLM's completions) feed two BOS tokens",
        )
    ]


def _turn_end(prompt: str, content: str, added: dict[str, int]) -> str | None:
    """The added token that follows an assistant message's content (whitespace skipped)."""
    at = prompt.find(content)
    if at < 0 or not added:
        return None
    rest = prompt[at + len(content) :].lstrip(" \t\n\r")
    best = None
    for token in added:
        if token.strip() and rest.startswith(token) and (best is None or len(token) > len(best)):
            best = token
    return best


def _stop_token(source: str, prompt: str, chat: dict, ctx: ChatContext) -> list[TemplateFinding]:
    reply = next((m["content"] for m in chat["messages"] if m["role"] == "assistant"), None)
    end = _turn_end(prompt, reply, ctx.added) if reply else None
    if end is None or not ctx.stop_ids:
        return []
    tid = ctx.id_of(end)
    if tid in ctx.stop_ids:
        return []
    stops = ", ".join(f"{i} ({why})" for i, why in sorted(ctx.stop_ids.items()))
    span = _first(source, re.escape(end)) if end in source else _first(source, r"eos_token")
    return [
        TemplateFinding(
            "chat-template-stop-token",
            *span,
            f"an assistant turn ends with {end!r} (id {tid}), which is not a stop token: generation "
            f"stops on {stops}, so a model runs past the end of its turn",
        )
    ]


def _generation_prompt(
    source: str, renders: dict[str, str], chats: dict, special_tokens: dict[str, str]
) -> list[TemplateFinding]:
    out = []
    span = _first(source, r"add_generation_prompt") if "add_generation_prompt" in source else (0, 0)
    plain = renders.get("plain")
    if plain is not None:
        try:
            prompted = apply(
                source, {**chats["plain"][1], "add_generation_prompt": True}, special_tokens, limits=LIMITS
            ).text
        except Exception:  # noqa: BLE001 - reported by the renders above when it matters
            prompted = None
        if prompted is not None and not (prompted.startswith(plain) and len(prompted) > len(plain)):
            why = "adds nothing" if prompted == plain else "changes the chat before it"
            out.append(
                TemplateFinding(
                    "chat-template-generation-prompt",
                    *span,
                    f"add_generation_prompt=True {why}: the prompt with it should be the chat "
                    "followed by the assistant's header",
                )
            )
    for name, text in renders.items():
        try:
            longer = apply(source, with_next_turn(chats[name][1]), special_tokens, limits=LIMITS).text
        except Exception:  # noqa: BLE001
            continue
        if not longer.startswith(text):
            at = next((k for k, (a, b) in enumerate(zip(text, longer)) if a != b), min(len(text), len(longer)))
            out.append(
                TemplateFinding(
                    "chat-template-generation-prompt",
                    *span,
                    f"{chats[name][0]} renders differently once one more turn follows (from character {at}: "
                    f"{text[at : at + 30]!r} becomes {longer[at : at + 30]!r}): the earlier prompt is not a prefix, so "
                    "prompt caches miss and multi-turn training data differs from inference",
                )
            )
            break
    return out


def _portability(source: str, chats: dict, special_tokens: dict[str, str]) -> list[TemplateFinding]:
    try:
        from .portability import portability_issues
    except ImportError:  # pragma: no cover - the module ships with the package
        return []
    kwargs = [{**chat, **special_tokens} for _, chat in chats.values()]

    def ours(variables: dict) -> str:
        request = {k: v for k, v in variables.items() if k not in special_tokens}
        return apply(source, request, special_tokens, limits=LIMITS).text

    # one finding per engine and construct, on its first place (Qwen3 writes `.lstrip('\\n')`
    # five times: one warning that says so, not five)
    issues = portability_issues(source, kwargs, ours)
    count: dict[tuple[str, str], int] = {}
    for issue in issues:
        count[(issue.engine, issue.construct)] = count.get((issue.engine, issue.construct), 0) + 1
    out, seen = [], set()
    for issue in issues:
        key = (issue.engine, issue.construct)
        if key in seen:
            continue
        seen.add(key)
        start, end = (issue.start, issue.end) if issue.start >= 0 else (0, 0)
        more = count[key] - 1
        message = issue.message + (f" (and {more} more place{'s' if more > 1 else ''} in the template)" if more else "")
        out.append(TemplateFinding("chat-template-portability", start, end, message, issue.portable))
    return out
