"""Real chat templates (tests/data/chat_templates, see SOURCES.md there) and a few chats to
render them with, shared by the chat-template tests.

`render_transformers` is transformers' own renderer (the oracle): the template compiled by
`transformers.utils.chat_template_utils._compile_jinja_template` and rendered with the keyword
arguments `apply_chat_template` passes, nothing of ours in between."""

from __future__ import annotations

import copy
from pathlib import Path

TEMPLATES_DIR = Path(__file__).resolve().parent / "data" / "chat_templates"
TEMPLATE_PATHS = sorted(TEMPLATES_DIR.glob("*.jinja"))

_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city"}},
            "required": ["city"],
        },
    },
}
_TOKENS = {"bos_token": "<s>", "eos_token": "</s>"}


def _chat(messages, **extra):
    return {"messages": messages, "add_generation_prompt": True, **_TOKENS, **extra}


# the kinds of chat INTERFACE.md Part 4 names: plain, a system message, tools with a call and
# its reply, content as a list of parts, reasoning; plus one without the generation prompt
CHATS: dict[str, dict] = {
    "plain": _chat(
        [
            {"role": "user", "content": "Hello!"},
            {"role": "assistant", "content": "Hi, how can I help?"},
            {"role": "user", "content": "Tell me a joke."},
        ]
    ),
    "system": _chat(
        [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Hello!"},
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": "Weather?"},
        ]
    ),
    "tools": _chat(
        [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "18 C, sunny"},
            {"role": "assistant", "content": "It is 18 C and sunny."},
            {"role": "user", "content": "Thanks"},
        ],
        tools=[_TOOL],
    ),
    "parts": _chat(
        [
            {"role": "user", "content": [{"type": "text", "text": "Describe this."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "A cat."}]},
            {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
        ]
    ),
    "reasoning": _chat(
        [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": "4", "reasoning_content": "Adding two and two."},
            {"role": "user", "content": "3+3?"},
        ]
    ),
    "no-generation-prompt": {
        **_chat(
            [
                {"role": "user", "content": "Hello!"},
                {"role": "assistant", "content": "Hi!"},
            ]
        ),
        "add_generation_prompt": False,
    },
}


def chats() -> list[dict]:
    """Fresh copies (a template may not change them, but a renderer could)."""
    return [copy.deepcopy(c) for c in CHATS.values()]


def render_transformers(source: str, kwargs: dict) -> str:
    from transformers.utils.chat_template_utils import _compile_jinja_template

    return _compile_jinja_template(source).render(**copy.deepcopy(kwargs))


def render_hfjs(jobs: list[tuple[str, list[dict]]]) -> list[dict]:
    """The real @huggingface/jinja (npm devDependency) under node, for many templates at once:
    per template {"error"} (it does not parse) or {"renders": [{"text"} | {"error"}, ...]}.
    A missing node or package fails the test that asked (an absent oracle is a failure)."""
    import json
    import shutil
    import subprocess

    root = Path(__file__).resolve().parent.parent
    node = shutil.which("node")
    assert node, "node is needed to run @huggingface/jinja"
    assert (root / "node_modules" / "@huggingface" / "jinja").is_dir(), (
        "run `npm install` (devDependency @huggingface/jinja)"
    )
    payload = json.dumps([{"source": s, "chats": c} for s, c in jobs])
    done = subprocess.run(
        [node, str(root / "tests" / "hfjs_render.mjs")],
        input=payload,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)
