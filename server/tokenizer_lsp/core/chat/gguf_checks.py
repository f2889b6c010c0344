"""Chat templates of a GGUF: its own templates checked (each finding on the metadata key,
a binary file has no lines to point into), and `gguf-chat-template` by rendering: the
GGUF's template against the one transformers takes from the HF folder, compared on the
standard chats, each side with its own special tokens. Text that differs but renders the
same (whitespace control, reordered `set`s) is not reported."""

from __future__ import annotations

from ..formats.table import TableFinding, TokenTable
from .apply import apply
from .chats import standard_chats
from .checks import template_findings
from .context import ChatContext

K = "tokenizer.ggml."
# llama.cpp marks these tokens end-of-generation by their text when a GGUF has them
# (src/llama-vocab.cpp, `llama_vocab::impl::load`, the special_eog_ids loop; llama.cpp as
# vendored in llama-cpp-python 0.3.36): it stops on them whatever the metadata says
LLAMA_CPP_EOG = (
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<\uff5cend\u2581of\u2581sentence\uff5c>",
    "[e~[",
)
_NAMES = (
    ("bos_token", "bos"),
    ("eos_token", "eos"),
    ("unk_token", "unknown"),
    ("sep_token", "seperator"),
    ("pad_token", "padding"),
    ("mask_token", "mask"),
)


def gguf_context(table: TokenTable) -> ChatContext:
    meta = table.meta
    rows = table.rows
    special = {}
    for name, key in _NAMES:
        tid = meta.get(f"{key}_token_id")
        if isinstance(tid, int) and 0 <= tid < len(rows):
            special[name] = rows[tid].token
    added = {r.token: r.id for r in rows if r.type in ("CONTROL", "USER_DEFINED")}
    stops = {}
    for key in ("eos", "eot", "eom"):
        tid = meta.get(f"{key}_token_id")
        if isinstance(tid, int):
            stops.setdefault(tid, f"{K}{key}_token_id")
    for token in LLAMA_CPP_EOG:
        if token in added:
            stops.setdefault(added[token], "llama.cpp's end-of-generation tokens")
    adds = f"{K}add_bos_token is true" if meta.get("add_bos_token") is True else None
    return ChatContext(special, added, stops, adds, "the GGUF's tokenizer")


def _templates(table: TokenTable) -> dict[str, str]:
    found = table.meta.get("_chat_templates") or {}
    return {k: v for k, v in found.items() if isinstance(v, str)}


def own_findings(table: TokenTable) -> list[TableFinding]:
    """The template checks of each template the GGUF holds, on its key."""
    ctx = gguf_context(table)
    out = []
    for key, text in sorted(_templates(table).items()):
        for f in template_findings(text, ctx):
            where = _line_col(text, f.start)
            out.append(
                TableFinding(f.code, f"{f.message} (line {where[0]}, column {where[1]} of the template)", key=key)
            )
    return out


def _line_col(text: str, at: int) -> tuple[int, int]:
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def compare_rendered(table: TokenTable, hf_text: str, hf_special: dict[str, str], hf_label: str) -> list[TableFinding]:
    """gguf-chat-template: the GGUF's default template against HF's, by rendering."""
    key = "tokenizer.chat_template"
    ours = _templates(table).get(key)
    if ours is None:
        return [
            TableFinding(
                "gguf-chat-template",
                f"the GGUF has no {key}; the HF folder has one ({hf_label}, "
                f"{len(hf_text)} characters): llama.cpp falls back to a guess",
                key=key,
            )
        ]
    if ours == hf_text:
        return []
    mine = gguf_context(table).special_tokens
    for _, (what, chat) in standard_chats().items():
        for prompt in (False, True):
            request = {**chat, "add_generation_prompt": prompt}
            a, b = _render(ours, request, mine), _render(hf_text, request, hf_special)
            if a != b:
                at = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                return [
                    TableFinding(
                        "gguf-chat-template",
                        f"{key} renders {what}{' with the generation prompt' if prompt else ''} "
                        f"differently from HF's {hf_label}, from character {at}: the GGUF gives "
                        f"{a[at : at + 40]!r}, HF {b[at : at + 40]!r}",
                        key=key,
                    )
                ]
    return []


def _render(text: str, request: dict, special: dict) -> str:
    try:
        return apply(text, request, special).text
    except Exception as e:  # noqa: BLE001 - a template that raises renders as its error
        return f"<the template raises {type(e).__name__}: {e}>"
