"""MiniJinja's part of `chat-template-portability`: the template rendered with the `minijinja`
package set up as TGI sets it up, compared with jinja2's rendering of the same chats.

TGI's router/src/infer/chat_template.rs (text-generation-inference main, January 2026):
`Environment::new()` (so no trim_blocks and no lstrip_blocks), pycompat's unknown-method
callback (`.strip()`, `.items()`, ...), `raise_exception`, `strftime_now`, and three edits of
the source before compiling: `messages[0]['content'][0]['text']` -> `messages[0]['content']`,
`[::-1]` -> `|reverse`, `{% generation %}`/`{% endgeneration %}` removed. mistral.rs sets
trim_blocks and lstrip_blocks; when only those make the difference the finding says so.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

MINIJINJA = "MiniJinja"
# instructions one chat may run: real templates take a few thousand; a runaway loop stops here
FUEL = 2_000_000


def _tgi_source(source: str) -> str:
    # the edits of TGI's ChatTemplate::new, in its order
    source = source.replace("messages[0]['content'][0]['text']", "messages[0]['content']")
    source = source.replace("[::-1]", "|reverse")
    return source.replace("{% generation %}", "").replace("{% endgeneration %}", "")


def _raise_exception(message):
    raise ValueError(message)  # TGI: Err(ErrorKind::SyntaxError, message)


def _strftime_now(fmt):
    return datetime.now().strftime(fmt)


def _environment(trim: bool):
    import minijinja  # imported on first use: only this check needs it

    env = minijinja.Environment(trim_blocks=trim, lstrip_blocks=trim, pycompat=True, fuel=FUEL)
    env.add_function("raise_exception", _raise_exception)
    env.add_function("strftime_now", _strftime_now)
    return env


_ENVS: dict[bool, object] = {}


def _render(trim: bool, source: str, chat: dict) -> str:
    env = _ENVS.get(trim)
    if env is None:
        env = _ENVS[trim] = _environment(trim)
    return env.render_str(source, "chat", **chat)


def _location(source: str, mutated: str, error) -> tuple[int, int, str]:
    """Characters of the construct an error names: its exact range when the source went to
    MiniJinja unedited, else its line; -1, -1 when MiniJinja names neither."""
    rng, line = getattr(error, "range", None), getattr(error, "line", None)
    if rng and mutated == source:
        data = source.encode("utf-8")
        start = len(data[: rng[0]].decode("utf-8", "ignore"))
        end = len(data[: rng[1]].decode("utf-8", "ignore"))
        if end > start:
            return start, end, f"`{source[start:end]}`"
    if line:
        lines = source.splitlines(keepends=True)
        if line <= len(lines):
            start = sum(len(x) for x in lines[: line - 1])
            text = lines[line - 1].rstrip("\r\n")
            lead = len(text) - len(text.lstrip())
            return start + lead, start + len(text), f"line {line}"
    return -1, -1, "the template"


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def minijinja_issues(source: str, chats: list[dict], render_jinja2: Callable[[dict], str] | None, make) -> list:
    import minijinja

    mutated = _tgi_source(source)
    issues, seen_errors, differs = [], set(), False
    for number, chat in enumerate(chats, 1):
        expected = None
        if render_jinja2 is not None:
            try:
                expected = render_jinja2(chat)
            except Exception:  # jinja2 itself rejects this chat: nothing to compare
                continue
        try:
            got = _render(False, mutated, chat)
        except minijinja.TemplateError as error:
            detail = (getattr(error, "detail", None) or str(error).splitlines()[0]).strip()
            if detail in seen_errors:
                continue
            seen_errors.add(detail)
            start, end, construct = _location(source, mutated, error)
            kind = getattr(error, "kind", "error")
            issues.append(
                make(
                    MINIJINJA,
                    construct,
                    start,
                    end,
                    f"MiniJinja (as TGI sets it up) rejects {construct} on chat #{number}: "
                    f"{kind}: {detail}; portable: a construct both engines know (rendered "
                    f"with the minijinja library)",
                    None,
                )
            )
            continue
        if expected is None or got == expected or differs:
            continue
        differs = True
        at = _first_difference(got, expected)
        near = repr(expected[max(0, at - 10) : at + 20])
        try:
            trimmed_same = _render(True, mutated, chat) == expected
        except minijinja.TemplateError:
            trimmed_same = False
        if trimmed_same:
            construct = "whitespace after block tags"
            message = (
                f"MiniJinja as TGI sets it up (no trim_blocks/lstrip_blocks) renders chat "
                f"#{number} differently from character {at} (near {near}): the template relies "
                f"on trim_blocks/lstrip_blocks (mistral.rs, which sets them, renders it the same); "
                f"portable: strip whitespace with `{{%-`/`-%}}`"
            )
        else:
            construct = "the rendered prompt"
            message = (
                f"MiniJinja (as TGI sets it up) renders chat #{number} differently from "
                f"jinja2 from character {at} (jinja2: {near}, MiniJinja: "
                f"{got[max(0, at - 10) : at + 20]!r})"
            )
        issues.append(make(MINIJINJA, construct, -1, -1, message, None))
    return issues
