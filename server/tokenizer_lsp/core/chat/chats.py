"""The chats a template is rendered with when the user gives none: the sample chat of
`render` and the standard chats of the checks (docs/guides/check-a-chat-template.md; listed in
docs/guides/check-a-chat-template.md so anyone can reproduce a finding with transformers).

Each chat is the keyword arguments of `apply_chat_template` (messages, tools, ...), the way
`render --messages` takes them. Contents are short and plain ASCII on purpose: a finding must
come from the template, not from the text.
"""

from __future__ import annotations

import copy

SAMPLE_NAME = "the sample chat (system, user, assistant, user, generation prompt)"

SAMPLE = {
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "The capital of France is Paris."},
        {"role": "user", "content": "And of Italy?"},
    ],
    "add_generation_prompt": True,
}

_WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city"}},
            "required": ["city"],
        },
    },
}

# name -> (what it exercises, the chat). "plain" first: a template that fails it is broken
# (chat-template-render); one that fails another rejects that kind of chat (chat-template-rejects).
STANDARD: dict[str, tuple[str, dict]] = {
    "plain": (
        "a plain chat (user, assistant, user)",
        {
            "messages": [
                {"role": "user", "content": "Hello!"},
                {"role": "assistant", "content": "Hi! How can I help?"},
                {"role": "user", "content": "Tell me a joke."},
            ]
        },
    ),
    "system": (
        "a system message",
        {
            "messages": [
                {"role": "system", "content": "You are a terse assistant."},
                {"role": "user", "content": "Hello!"},
                {"role": "assistant", "content": "Hi."},
                {"role": "user", "content": "Tell me a joke."},
            ]
        },
    ),
    "tools": (
        "tools, a tool call and its reply",
        {
            "tools": [_WEATHER_TOOL],
            "messages": [
                {"role": "user", "content": "What is the weather in Paris?"},
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
                {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "22 degrees, sunny"},
                {"role": "assistant", "content": "It is 22 degrees and sunny in Paris."},
                {"role": "user", "content": "Thanks!"},
            ],
        },
    ),
    "parts": (
        "content as a list of parts",
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Hello!"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Hi! How can I help?"}]},
                {"role": "user", "content": [{"type": "text", "text": "Tell me a joke."}]},
            ]
        },
    ),
    "reasoning": (
        "an assistant message with reasoning",
        {
            "messages": [
                {"role": "user", "content": "What is 2 + 2?"},
                {"role": "assistant", "content": "4", "reasoning_content": "2 plus 2 is 4."},
                {"role": "user", "content": "And 3 + 3?"},
            ]
        },
    ),
}

# the turn added to each standard chat for the prefix-stability check
NEXT_TURN = [{"role": "assistant", "content": "Sure."}, {"role": "user", "content": "One more."}]


def standard_chats() -> dict[str, tuple[str, dict]]:
    """A fresh copy (templates never change their inputs, but callers add to them)."""
    return copy.deepcopy(STANDARD)


def with_next_turn(chat: dict) -> dict:
    longer = copy.deepcopy(chat)
    longer["messages"] = longer["messages"] + copy.deepcopy(NEXT_TURN)
    return longer


def sample() -> dict:
    return copy.deepcopy(SAMPLE)
