"""What the chat-template checks know about the tokenizer a template feeds: its special
tokens (as the template receives them), the ids of its added tokens, the ids generation stops
on, and whether encoding with special tokens adds a BOS (each with where it was read)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ChatContext:
    special_tokens: dict[str, str] = field(default_factory=dict)  # bos_token -> "<s>", ...
    added: dict[str, int] = field(default_factory=dict)  # added/special token text -> id
    stop_ids: dict[int, str] = field(default_factory=dict)  # id -> where it is a stop id
    adds_bos: str | None = None  # why encoding with special tokens adds the BOS, when it does
    tokenizer_name: str = "the tokenizer"

    def id_of(self, token: str) -> int | None:
        return self.added.get(token)


def adds_bos_of_post_processor(post, bos: str | None) -> bool:
    """Whether a tokenizer.json post_processor puts `bos` first in a single sequence
    (TemplateProcessing, or one inside a Sequence)."""
    if not isinstance(post, dict) or bos is None:
        return False
    if post.get("type") == "Sequence":
        return any(adds_bos_of_post_processor(p, bos) for p in post.get("processors") or [])
    if post.get("type") == "TemplateProcessing":
        single = post.get("single") or []
        first = single[0] if single else None
        return (
            isinstance(first, dict)
            and isinstance(first.get("SpecialToken"), dict)
            and first["SpecialToken"].get("id") == bos
        )
    if post.get("type") in ("RobertaProcessing", "BertProcessing"):
        cls = post.get("cls")
        return isinstance(cls, list) and bool(cls) and cls[0] == bos
    return False


def stop_ids_of(generation_config: dict | None, config: dict | None, eos_token: str | None, id_of) -> dict[int, str]:
    """generation_config.json's eos_token_id (an id or a list), else config.json's, and the
    tokenizer's eos_token: the ids generation stops on."""
    out: dict[int, str] = {}
    for name, obj in (("generation_config.json", generation_config), ("config.json", config)):
        value = obj.get("eos_token_id") if isinstance(obj, dict) else None
        ids = value if isinstance(value, list) else [value]
        for i in ids:
            if isinstance(i, int) and not isinstance(i, bool):
                out.setdefault(i, f"{name} eos_token_id")
        if out:
            break
    if eos_token is not None and (tid := id_of(eos_token)) is not None:
        out.setdefault(tid, "the tokenizer's eos_token")
    return out
