"""`apply_chat_template(..., tokenize=False)` as transformers 5.24 does it
(`tokenization_utils_base.apply_chat_template` and `chat_template_utils.render_jinja_template`):
the messages normalised (keys whose value is None dropped), reasoning fields aliased, the
special tokens of the folder passed beside the caller's variables (the caller's win),
`continue_final_message` cut after the final message. Plus what transformers does not give:
which characters came from the messages (`spans`), for the editor and the playground.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime

from .sandbox import Limits, compile_template, render

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "
# the keyword arguments of apply_chat_template that are not template variables
_OPTIONS = (
    "messages",
    "conversation",
    "tools",
    "documents",
    "add_generation_prompt",
    "continue_final_message",
    "chat_template",
    "tokenize",
    "sanitize_control_tokens",
    "return_dict",
    "padding",
    "truncation",
    "max_length",
    "return_tensors",
    "return_assistant_tokens_mask",
    "tokenizer_kwargs",
)


class ChatInputError(ValueError):
    """The messages object is not what apply_chat_template accepts (transformers raises too)."""


@dataclass
class Rendered:
    text: str
    generation: list[tuple[int, int]] = field(default_factory=list)
    spans: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, "template" | "message")
    read_clock: bool = False


def split_request(request: dict | list) -> tuple[list, dict]:
    """(messages, everything else) of a `--messages` value: a list of messages, or the keyword
    arguments of apply_chat_template with `messages` among them."""
    if isinstance(request, list):
        return request, {}
    if not isinstance(request, dict):
        raise ChatInputError("expected a JSON list of messages or an object with \"messages\"")
    messages = request.get("messages", request.get("conversation"))
    if not isinstance(messages, list):
        raise ChatInputError("the object has no \"messages\" list")
    rest = {k: v for k, v in request.items() if k not in ("messages", "conversation")}
    return messages, rest


def _normalize(messages: list) -> list[dict]:
    if not messages:
        raise ChatInputError("Cannot apply chat template to an empty conversation. Provide at least one message.")
    out = []
    for m in messages:
        if not isinstance(m, dict):
            raise ChatInputError(f"Chat messages should be dicts, but got {m!r}.")
        out.append({k: v for k, v in m.items() if v is not None})
    return out


def _alias_reasoning(chat: list[dict]) -> list[dict]:
    aliased = []
    for message in chat:
        reasoning = next((message[k] for k in _REASONING_FIELDS if message.get(k) is not None), None)
        if reasoning is not None:
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        aliased.append(message)
    return aliased


def template_variables(request: dict | list, special_tokens: dict[str, str]) -> tuple[dict, str | bool]:
    """The variables the template sees, and continue_final_message, as apply_chat_template
    builds them (ChatInputError where it raises)."""
    messages, rest = split_request(request)
    chat = _alias_reasoning(copy.deepcopy(_normalize(messages)))
    tools = rest.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)):
        raise ChatInputError("Tools should be a list of JSON schemas (objects).")
    documents = rest.get("documents")
    if documents is not None and not (isinstance(documents, list) and all(isinstance(d, dict) for d in documents)):
        raise ChatInputError("Documents should be a list of dicts with 'title' and 'text' keys!")
    add_prompt = bool(rest.get("add_generation_prompt", False))
    cont = rest.get("continue_final_message", False)
    if cont and add_prompt:
        raise ChatInputError("continue_final_message and add_generation_prompt are not compatible.")
    kwargs = {k: v for k, v in rest.items() if k not in _OPTIONS}
    variables = {**special_tokens, **kwargs}  # kwargs overwrite special tokens if both are present
    variables.update(
        messages=chat, tools=copy.deepcopy(tools), documents=copy.deepcopy(documents), add_generation_prompt=add_prompt
    )
    return variables, cont


def apply(
    source: str,
    request: dict | list,
    special_tokens: dict[str, str],
    *,
    now: datetime | None = None,
    limits: Limits | None = None,
) -> Rendered:
    """The rendered prompt. Raises jinja2.TemplateSyntaxError (does not compile), what the
    template raises, sandbox.TemplateLimit, or ChatInputError."""
    template = compile_template(source)
    variables, cont = template_variables(request, special_tokens)
    chat = variables["messages"]
    final_message = None
    if cont:
        final_message = _tag_final(chat, cont, source)
    out = render(template, variables, now=now, limits=limits)
    text, generation = out.text, out.generation
    if cont:
        text = _cut_at_tag(text, final_message)
    return Rendered(text, generation, message_spans(text, request), out.read_clock)


def _tag_final(chat: list[dict], cont, source: str) -> str:
    key = cont if isinstance(cont, str) else "content"
    final = chat[-1].get(key)
    if final is None:
        raise ChatInputError(f'continue_final_message is set but the final message has no "{key}" to continue!')
    fields = [key]
    if key in _REASONING_FIELDS:
        fields = [f for f in _REASONING_FIELDS if chat[-1].get(f) == final]
    if not any(f in source for f in fields):
        raise ChatInputError(
            f'continue_final_message is set to "{key}" but this is not an accepted field in the chat_template'
        )
    if isinstance(final, (list, tuple)):
        for block in reversed(final):
            if "text" in block:
                final = block["text"]
                block["text"] = block["text"] + _CONTINUE_TAG
                break
        else:
            raise ChatInputError(
                "continue_final_message is set but we could not find any text to continue in the final message!"
            )
    else:
        for f in fields:
            chat[-1][f] = chat[-1][f] + _CONTINUE_TAG
    return final


def _cut_at_tag(text: str, final: str) -> str:
    if final.strip() not in text or _CONTINUE_TAG.strip() not in text:
        raise ChatInputError(
            "continue_final_message is set but the final message does not appear in the chat after "
            "applying the chat template"
        )
    at = text.rindex(_CONTINUE_TAG.strip())
    if text[at : at + len(_CONTINUE_TAG)] == _CONTINUE_TAG:
        return text[:at]
    return text[:at].rstrip()


def _message_strings(message: dict) -> list[str]:
    """The text a message carries, in the order templates write it: reasoning, content
    (a string, or the text of its parts), tool call arguments."""
    out = []
    for key in _REASONING_FIELDS[:1]:
        if isinstance(message.get(key), str):
            out.append(message[key])
    content = message.get("content")
    if isinstance(content, str):
        out.append(content)
    elif isinstance(content, list):
        out.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return [s for s in out if s.strip()]


def message_spans(text: str, request: dict | list) -> list[tuple[int, int, str]]:
    """Which characters of the prompt are the messages' own text and which the template's:
    each message's strings are found in order after the previous one (as written, else
    stripped: templates often `| trim` them). Not found means the template rewrote it; its
    characters then count as the template's."""
    try:
        messages, _ = split_request(request)
    except ChatInputError:
        return [(0, len(text), "template")] if text else []
    found: list[tuple[int, int]] = []
    cursor = 0
    for message in messages:
        if not isinstance(message, dict):
            continue
        for s in _message_strings(message):
            for candidate in (s, s.strip()):
                at = text.find(candidate, cursor)
                if at >= 0:
                    found.append((at, at + len(candidate)))
                    cursor = at + len(candidate)
                    break
    spans: list[tuple[int, int, str]] = []
    at = 0
    for start, end in found:
        if start > at:
            spans.append((at, start, "template"))
        spans.append((start, end, "message"))
        at = end
    if at < len(text):
        spans.append((at, len(text), "template"))
    return spans
