"""The chat-template checks of a model folder's files, as findings on their bytes:
- tokenizer_config.json: each template inside its `chat_template` JSON string (positions
  mapped through the string's escapes), chat-template-copies, chat-template-missing;
- chat_template.jinja and additional_chat_templates/*.jinja: the template checks of the file.
What they know of the tokenizer (core/chat/context.py) comes from the folder's files.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable

import orjson

from ..model import Finding
from ..model_folder.facts import NOT_READ
from ..model_folder.spans import string_offsets
from .checks import TemplateFinding, prepare_template, template_findings
from .context import ChatContext, adds_bos_of_post_processor, stop_ids_of
from .places import JINJA_DIR, JINJA_FILE, TemplatePlace, folder_places
from .source import special_tokens

# special tokens that only a chat uses: a folder holding one is made for chat
_CHAT_TOKENS = re.compile(
    r"<\|im_start\|>|<start_of_turn>|<\|start_header_id\|>|<\|user\|>|<\|assistant\|>|"
    r"\[INST\]|<｜User｜>|<\|START_OF_TURN_TOKEN\|>|<\|turn>|<\|start\|>"
)


def post_processor_of(data: bytes) -> dict | None:
    """A tokenizer.json's post_processor, parsed alone (the file's head; no full parse)."""
    at = data.find(b'"post_processor"')
    if at < 0:
        return None
    colon = data.find(b":", at)
    try:
        head = data[colon + 1 : colon + 1 + (1 << 20)].decode("utf-8", "replace").lstrip()
        value, _ = json.JSONDecoder().raw_decode(head)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _obj(doc):
    return getattr(doc, "obj", doc) if doc is not None else None


def folder_context(folder: str, config: dict, configs: dict, facts) -> ChatContext:
    """`configs`: the folder's other config files (name -> ConfigDocument or object);
    `facts`: the tokenizer's TokenizerFacts (None: read nothing of it)."""
    special = special_tokens(config, _obj(configs.get("special_tokens_map.json")))
    added: dict[str, int] = {}
    name = "the tokenizer"
    if facts is not None:
        added = {t: i for t, i in facts.vocab.added.items()}
        for t in special.values():
            if t not in added and (i := facts.id_of(t)) is not None:
                added[t] = i
        name = facts.name
    stops = stop_ids_of(
        _obj(configs.get("generation_config.json")),
        _obj(configs.get("config.json")),
        special.get("eos_token"),
        lambda t: added.get(t) if facts is None else facts.id_of(t),
    )
    bos = special.get("bos_token")
    adds = None
    tokenizer_json = os.path.join(folder, "tokenizer.json")
    post = getattr(facts, "post_processor", NOT_READ)
    if post is not NOT_READ and facts.name == "tokenizer.json":  # the editor's, no second read
        if adds_bos_of_post_processor(post, bos):
            adds = "its post-processor"
    elif os.path.isfile(tokenizer_json):
        data = _read(tokenizer_json)
        if data is not None and adds_bos_of_post_processor(post_processor_of(data), bos):
            adds = "its post-processor"
    elif config.get("add_bos_token") is True:
        adds = "add_bos_token is true in tokenizer_config.json"
    return ChatContext(special, added, stops, adds, name)


def prepare_folder_templates(tokenizer_path: str, open_text: Callable[[str], bytes | None] | None = None) -> int:
    """Render the chat templates of the tokenizer_config.json beside a tokenizer file now,
    with the special tokens its check will use (checks.prepare_template): a caller with a
    core to spare while the tokenizer is built. How many templates were rendered."""
    folder = os.path.dirname(tokenizer_path)

    def read(name: str) -> dict | None:
        path = os.path.join(folder, name)
        data = open_text(path) if open_text is not None else None
        data = _read(path) if data is None else data
        try:
            obj = orjson.loads(data) if data is not None else None
        except orjson.JSONDecodeError:
            return None
        return obj if isinstance(obj, dict) else None

    config = read("tokenizer_config.json")
    if config is None:
        return 0
    special = special_tokens(config, read("special_tokens_map.json"))
    written = config.get("chat_template")
    entries = written if isinstance(written, list) else [{"template": written}]
    texts = [e["template"] for e in entries if isinstance(e, dict) and isinstance(e.get("template"), str)]
    for text in texts:
        prepare_template(text, special)
    return len(texts)


def _to_bytes(findings: list[TemplateFinding], offsets: list[int], in_json: bool = False) -> list[Finding]:
    out = []
    for f in findings:
        start, end = offsets[min(f.start, len(offsets) - 1)], offsets[min(f.end, len(offsets) - 1)]
        fix = None
        if f.fix is not None:  # the replacement as the file writes it: inside a JSON string, escaped
            fix = (json.dumps(f.fix, ensure_ascii=False)[1:-1] if in_json else f.fix).encode("utf-8", "surrogatepass")
        out.append(Finding(f.code, start, end, f.message, fix=fix))
    return out


def _char_offsets(data: bytes, base: int = 0) -> tuple[str, list[int]]:
    """A .jinja file's text as transformers reads it (universal newlines: \r\n and \r become
    \n) and the byte offset in the file of each of its characters, and of its end."""
    raw = data.decode("utf-8", "replace")
    chars, offsets, at = [], [], base
    k = 0
    while k < len(raw):
        ch = raw[k]
        offsets.append(at)
        if ch == "\r":
            chars.append("\n")
            if k + 1 < len(raw) and raw[k + 1] == "\n":
                at += 1
                k += 1
            at += 1
        else:
            chars.append(ch)
            at += len(ch.encode("utf-8", "surrogatepass"))
        k += 1
    offsets.append(at)
    return "".join(chars), offsets


def config_template_findings(doc, ctx: ChatContext) -> list[Finding]:
    """Each template of tokenizer_config.json's chat_template, checked where it is written."""
    strings = doc.template_nodes()
    out = []
    for string in strings:
        text, offsets = string_offsets(doc.data, string.start, string.end)
        out += _to_bytes(template_findings(text, ctx), offsets, in_json=True)
    return out


def jinja_file_findings(data: bytes, ctx: ChatContext) -> list[Finding]:
    text, offsets = _char_offsets(data)
    return _to_bytes(template_findings(text, ctx), offsets)


def _entry_span(doc) -> tuple[int, int]:
    root = doc.tree
    if root is not None and root.kind == "object" and "chat_template" in root.keys:
        (ks, _), node = root.keys["chat_template"]
        return ks, node.end
    return (root.start, root.start + 1) if root is not None else (0, 0)


def copies_findings(doc, folder: str, ctx: ChatContext) -> list[Finding]:
    """chat_template in tokenizer_config.json and chat_template.jinja both there, rendering
    differently on a standard chat: the config's copy is dead text that misleads readers and
    other loaders (older transformers, other engines read it)."""
    from .apply import apply
    from .chats import standard_chats

    places = folder_places(folder, doc.obj)
    taking = [p for p in places if p.effective and p.name == "default"]
    others = [p for p in places if not p.effective and p.name == "default" and p.path == doc.path]
    if not taking or not others or taking[0].path == doc.path:
        return []
    differs = _first_difference(taking[0], others[0], ctx, apply, standard_chats())
    if differs is None:
        return []
    return [
        Finding(
            "chat-template-copies",
            *_entry_span(doc),
            f"this chat_template and {taking[0].label} render differently ({differs}); transformers uses "
            f"{taking[0].label}, so this copy never takes effect there but other loaders may read it",
        )
    ]


def _first_difference(a: TemplatePlace, b: TemplatePlace, ctx, apply, chats) -> str | None:
    for _, (what, chat) in chats.items():
        outs = []
        for place in (a, b):
            try:
                outs.append(apply(place.text, chat, ctx.special_tokens).text)
            except Exception as e:  # noqa: BLE001
                outs.append(f"<raises {type(e).__name__}>")
        if outs[0] != outs[1]:
            at = next((k for k, (x, y) in enumerate(zip(*outs)) if x != y), min(map(len, outs)))
            return f"{what}: from character {at}"
    return None


def missing_findings(doc, folder: str, ctx: ChatContext) -> list[Finding]:
    """Chat special tokens in the tokenizer, and no template anywhere in the folder."""
    if folder_places(folder, doc.obj):
        return []
    chat = sorted(t for t in ctx.added if _CHAT_TOKENS.fullmatch(t))
    if not chat:
        return []
    root = doc.tree
    span = (root.start, root.start + 1) if root is not None else (0, 0)
    return [
        Finding(
            "chat-template-missing",
            *span,
            f"the tokenizer has chat tokens ({', '.join(chat[:3])}) but the folder has no chat template "
            f"(tokenizer_config.json chat_template, {JINJA_FILE} or {JINJA_DIR}/): apply_chat_template "
            "fails and servers fall back to a generic format",
        )
    ]
