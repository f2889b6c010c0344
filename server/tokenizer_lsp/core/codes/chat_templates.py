"""Documentation of the chat-template codes (docs/guides/check-a-chat-template.md);
core/codes/__init__.py holds the others and merges these. Each example is a small model folder
(tokenizer.json, tokenizer_config.json and what the code needs) that `check` runs on."""

from __future__ import annotations

import json

from .doc import CodeDoc

_ADDED = ["<s>", "</s>", "<|user|>", "<|assistant|>", "<|end|>"]


def _tokenizer(bos_first: bool = False) -> str:
    """A tiny byte-level tokenizer.json with chat tokens; its post-processor adds <s> when
    `bos_first` (as Llama and Gemma tokenizers do)."""
    vocab = {chr(c): i for i, c in enumerate(range(ord("a"), ord("z") + 1))}
    added = [
        {
            "id": 100 + k,
            "content": t,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for k, t in enumerate(_ADDED)
    ]
    bl = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    post = (
        {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [100], "tokens": ["<s>"]}},
        }
        if bos_first
        else None
    )
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": bl,
        "post_processor": post,
        "decoder": bl,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [],
        },
    }
    return json.dumps(doc, indent=1) + "\n"


_TURNS = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def _folder(template: str | None, bos_first: bool = False, eos: str = "<|end|>", **files) -> dict[str, str]:
    config = {"bos_token": "<s>", "eos_token": eos, "tokenizer_class": "PreTrainedTokenizerFast"}
    if template is not None:
        config["chat_template"] = template
    out = {"tokenizer.json": _tokenizer(bos_first), "tokenizer_config.json": json.dumps(config, indent=2) + "\n"}
    out.update({name.replace("__", "/"): text for name, text in files.items()})
    return out


_RUN = (
    "Render it yourself with `tokenizer-lsp render FOLDER --messages chat.json`, or with transformers: "
    "`AutoTokenizer.from_pretrained(FOLDER).apply_chat_template(messages, tokenize=False)`."
)

CHAT = {
    "chat-template-syntax": CodeDoc(
        "The chat template does not compile as transformers compiles it (jinja2's sandbox, `trim_blocks`, "
        "`lstrip_blocks`, loop controls, the `generation` tag); reported at the characters jinja2 stopped at, "
        "inside the JSON string of tokenizer_config.json (through its escapes) or in the `.jinja` file.",
        "`apply_chat_template` raises `TemplateSyntaxError` for every conversation: the model cannot be chatted "
        "with through transformers, vLLM, TGI or llama.cpp.",
        "Close the block the message names (`{% endfor %}`, `{% endif %}`) or fix the expression. " + _RUN,
        _folder("{% for m in messages %}{{ m.content }}"),
    ),
    "chat-template-render": CodeDoc(
        "The template compiles but raises on the plain chat (user, assistant, user): its own "
        "`raise_exception` message, or the Python error of an operation.",
        "Every ordinary conversation fails: serving engines answer with an error for each request.",
        "Read the template's message; the line it points at holds the test that failed. " + _RUN,
        _folder(
            "{% for m in messages %}{% if m.role == 'assistant' %}{{ raise_exception('Only user messages') }}"
            "{% endif %}{{ m.content }}{% endfor %}"
        ),
    ),
    "chat-template-rejects": CodeDoc(
        "The template raises on one of the other standard chats (a system message, tools with a call and its "
        "reply, content as a list of parts, reasoning): what it rejects, in its own words, once per kind.",
        "Not a defect by itself (a model may have no system role), but clients that send such a chat get an "
        "error instead of a prompt; knowing which kinds fail saves a production incident.",
        "Accept the kind of chat if the model supports it (merge the system message into the first user turn, "
        "read `content` parts), or leave it: this is information. " + _RUN,
        _folder(
            "{% if messages[0].role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
            + _TURNS
        ),
    ),
    "chat-template-double-bos": CodeDoc(
        "The rendered prompt begins with the BOS token and the tokenizer adds one when it encodes with special "
        "tokens (its post-processor, `add_bos_token`, GGUF `tokenizer.ggml.add_bos_token`).",
        "transformers encodes the prompt with `add_special_tokens=False`, but runtimes that encode the rendered "
        "text with special tokens (llama.cpp, vLLM's completions endpoint, many training scripts) feed two BOS "
        "tokens, which degrades output.",
        "Drop `{{ bos_token }}` from the template, or stop the tokenizer from adding it; be consistent with what "
        "your serving stack does.",
        _folder("{{ bos_token }}" + _TURNS, bos_first=True),
    ),
    "chat-template-stop-token": CodeDoc(
        "The token that ends an assistant turn in the rendered plain chat is not a stop token: not in "
        "generation_config.json's `eos_token_id` (nor config.json's), nor the tokenizer's `eos_token`.",
        "Generation stops on the stop tokens only: the model writes its end-of-turn token and keeps going, "
        "inventing the user's next turn.",
        "Add the end-of-turn token's id to `eos_token_id` in generation_config.json (a list may hold several), "
        "or make it the `eos_token`.",
        _folder(_TURNS, eos="</s>"),
    ),
    "chat-template-generation-prompt": CodeDoc(
        "Rendering with `add_generation_prompt=True` is not the rendering without it plus a non-empty suffix, "
        "or a chat's rendering is not a prefix of the same chat with one more turn.",
        "The generation prompt must only open the assistant's turn; and a prompt that changes when the "
        "conversation grows defeats prompt caching (vLLM, llama.cpp) and makes training data differ from "
        "what the model sees at inference.",
        "Write the assistant header under `{% if add_generation_prompt %}`; don't rewrite earlier turns based "
        "on later ones (unless on purpose, as templates that drop old reasoning do).",
        _folder("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}<|assistant|>"),
    ),
    "chat-template-portability": CodeDoc(
        "A construct another widely used engine rejects or renders differently: llama.cpp's own Jinja engine, "
        "MiniJinja (TGI, mistral.rs; found by rendering with the `minijinja` library) or huggingface.js "
        "(transformers.js); names the engine, the construct and a portable spelling.",
        "The same model folder is served by many engines: a template only jinja2 runs fails, or renders a "
        "different prompt, in the others.",
        "Use the portable spelling the finding gives (a quick fix where it is exact).",
        _folder(
            "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{{ loop.cycle('', '\\n') }}"
            "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
        ),
    ),
    "chat-template-copies": CodeDoc(
        "Two copies of the default template in one folder (tokenizer_config.json's `chat_template` and "
        "`chat_template.jinja`) render differently; says which one takes effect (transformers: the `.jinja` file).",
        "Readers, older transformers and other loaders may read the copy that does not take effect, and "
        "see another prompt than the model gets.",
        "Keep one copy: delete `chat_template` from tokenizer_config.json (the code action moves it).",
        _folder(_TURNS, chat_template__jinja="", **{"chat_template.jinja": _TURNS.replace("<|end|>", "\n")}),
    ),
    "chat-template-clock": CodeDoc(
        "The template reads the clock (`strftime_now`), typically to write today's date into the system prompt.",
        "The prompt changes every day: prompt caches miss, and outputs are not reproducible.",
        "Nothing to fix if intended; pass a fixed date (`render --now`, a template variable) when reproducing.",
        _folder("Today is {{ strftime_now('%d %B %Y') }}." + _TURNS),
    ),
    "chat-template-missing": CodeDoc(
        "The tokenizer has chat special tokens (`<|im_start|>`, `<start_of_turn>`, `<|user|>`, …) but the folder "
        "has no chat template.",
        "`apply_chat_template` raises, and servers fall back to a generic prompt format the model was not trained on.",
        "Add the model's template (tokenizer_config.json `chat_template` or `chat_template.jinja`).",
        _folder(None),
    ),
}
CHAT["chat-template-copies"] = CodeDoc(
    CHAT["chat-template-copies"].summary,
    CHAT["chat-template-copies"].why,
    CHAT["chat-template-copies"].fix,
    {**_folder(_TURNS), "chat_template.jinja": _TURNS.replace("<|end|>", "\n")},
)
