"""`render PATH`: the prompt a model folder's chat template makes of a conversation, byte for
byte what transformers' `apply_chat_template(..., tokenize=False)` returns; `--ids` the ids
of `tokenize=True` (docs/guides/check-a-chat-template.md, Render). The template runs only in the sandbox of
core/chat/sandbox.py, with a time and size limit.

`render_object` is the same as a function, for the playground's /api/render and the
server's renderChat command: the `--ids --format json` object, or RenderFailure.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from datetime import datetime

from .common import err as _err
from .common import write_out


class RenderFailure(Exception):
    """One line; `status` is the exit code (1: the template fails, 2: usage, path, input)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def add_arguments(p) -> None:
    p.add_argument(
        "path",
        metavar="PATH",
        help="a model folder, its tokenizer_config.json, a .jinja template (special tokens from its folder) or a .gguf",
    )
    p.add_argument(
        "--messages",
        metavar="FILE",
        help="a JSON list of messages, or an object of apply_chat_template's "
        "keyword arguments {\"messages\", \"tools\", \"documents\", ...}; - for stdin (default: the "
        "sample chat)",
    )
    p.add_argument("--template", metavar="NAME", help="a named template (tool_use, rag, ...)")
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--generation-prompt",
        dest="generation_prompt",
        action="store_const",
        const=True,
        help="add_generation_prompt=True",
    )
    g.add_argument(
        "--no-generation-prompt",
        dest="generation_prompt",
        action="store_const",
        const=False,
        help="add_generation_prompt=False",
    )
    p.add_argument("--continue-final", action="store_true", help="continue_final_message=True")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="a template variable (enable_thinking=false); repeatable",
    )
    p.add_argument("--now", metavar="ISO-8601", help="the time strftime_now reads (default: now)")
    p.add_argument("--ids", action="store_true", help="the token ids, one row per token as encode prints them")
    p.add_argument(
        "--sanitize",
        action="store_true",
        help="encode control tokens typed inside messages as text (sanitize_control_tokens=True); implies --ids",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")


def _request(args) -> tuple[dict, bool]:
    """The messages object, and whether it is the sample chat."""
    from ..core.chat.chats import sample

    if args.messages is None:
        request, is_sample = sample(), True
    else:
        try:
            if args.messages == "-":
                raw = sys.stdin.buffer.read()
            else:
                with open(args.messages, "rb") as f:
                    raw = f.read()
        except OSError as e:
            raise RenderFailure(f"{args.messages}: cannot read: {e.strerror or e}", 2) from e
        try:
            request = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            raise RenderFailure(f"{args.messages}: not JSON: {e}", 2) from e
        if isinstance(request, list):
            request = {"messages": request}
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            raise RenderFailure(
                f"{args.messages}: expected a JSON list of messages or an object with a \"messages\" list", 2
            )
        is_sample = False
    if args.generation_prompt is not None:
        request["add_generation_prompt"] = args.generation_prompt
    if args.continue_final:
        request["continue_final_message"] = True
    for item in args.set:
        key, eq, value = item.partition("=")
        try:
            if not eq or not key:
                raise ValueError("expected KEY=JSON")
            request[key] = json.loads(value)
        except ValueError as e:
            raise RenderFailure(f"bad --set {item!r}: {e} (a string is written with quotes: KEY='\"text\"')", 2) from e
    return request, is_sample


def render_object(
    path: str,
    request: dict,
    *,
    ids: bool = True,
    template: str | None = None,
    sanitize: bool = False,
    now: datetime | None = None,
    notes: list | None = None,
    overrides: dict[str, str] | None = None,
) -> dict:
    """The `render --format json` object ({"text", "template", "spans", "generation"} and with
    `ids` {"ids", "tokens"}). RenderFailure on a failing template (1) or bad input (2).
    `overrides`: template texts by absolute path of the file holding them, as an editor has
    them (unsaved): a .jinja's text, tokenizer_config.json's chat_template string."""
    from ..core.chat import errors
    from ..core.chat.apply import ChatInputError, apply, template_variables
    from ..core.chat.control import mark, typed_control_tokens
    from ..core.chat.source import NoTemplate, SourceError, chosen, open_source, tokenizer_file
    from .chat_ids import EncodeFailure, encode_prompt, rows_for_ids, sanitized_ids

    try:
        source = open_source(path)
        place = chosen(source, template, bool(request.get("tools")) if isinstance(request, dict) else False)
    except (SourceError, NoTemplate) as e:
        raise RenderFailure(str(e) if isinstance(e, SourceError) else f"{path}: {e}", 2) from e
    edited = (overrides or {}).get(os.path.abspath(place.path))
    if edited is not None and place.key is None:  # a .jinja file: read as transformers reads it
        edited = edited.replace("\r\n", "\n").replace("\r", "\n")
    if edited is not None and place.key in (None, "chat_template"):
        place = dataclasses.replace(place, text=edited)
    try:
        template_variables(request, source.special_tokens)  # bad input is 2, before the template runs
        rendered = apply(place.text, request, source.special_tokens, now=now)
    except ChatInputError as e:
        raise RenderFailure(f"{path}: {e}", 2) from e
    except Exception as e:  # what the template raises: jinja2's errors, the sandbox's, Python's
        raise RenderFailure(errors.describe(e, place), 1) from e
    if notes is not None and rendered.read_clock:
        notes.append(
            f"the template reads the clock (strftime_now): rendered at {(now or datetime.now()).isoformat()}"
            " (--now to fix it)"
        )
    out = {"text": rendered.text, "template": {"source": place.label, "name": place.name}}
    if ids:
        tok_path = tokenizer_file(source)
        if tok_path is None:
            raise RenderFailure(f"{path}: no tokenizer file beside the template to encode the prompt", 2)
        try:
            if sanitize:
                from ..core.chat.control import control_tokens
                from .chat_ids import _load

                engine = _load(tok_path).engine
                tokens = control_tokens(
                    engine.get_added_tokens_decoder().values(), place.text, source.config.get("chat_control_tokens")
                )
                marked = apply(place.text, mark(request, tokens), source.special_tokens, now=now).text
                id_list = sanitized_ids(tok_path, marked, place.text, source.config.get("chat_control_tokens"))
                rows = rows_for_ids(tok_path, id_list, rendered.text)
            else:
                result = encode_prompt(tok_path, rendered.text)
                id_list = result["ids"]
                rows = [{k: t.get(k) for k in ("id", "token", "text", "start", "end")} for t in result["tokens"]]
                if notes is not None:
                    _point_out_typed(request, tok_path, place.text, source, notes, typed_control_tokens)
        except EncodeFailure as e:
            raise RenderFailure(str(e), 2) from e
        except Exception as e:
            raise RenderFailure(errors.describe(e, place), 1) from e
        out["ids"], out["tokens"] = id_list, rows
    out["spans"] = [{"start": s, "end": e, "origin": o} for s, e, o in rendered.spans]
    out["generation"] = [[s, e] for s, e in rendered.generation]
    return out


def _point_out_typed(request, tok_path: str, template_text: str, source, notes: list, typed) -> None:
    """Without --sanitize, a control token typed inside a message reaches the model as a
    control token: say so."""
    from .chat_ids import added_tokens_of

    added = added_tokens_of(tok_path)
    if not added:
        return
    from ..core.chat.control import control_tokens

    tokens = control_tokens(added, template_text, source.config.get("chat_control_tokens"))
    for k, token in typed(request, tokens):
        notes.append(
            f"message {k + 1} holds the control token {token!r}: the model sees it as a control token, "
            "not as text (--sanitize encodes it as text)"
        )


def run(args) -> int:
    from ..core.behaviour.encode import render_text
    from ..core.chat.chats import SAMPLE_NAME

    now = None
    if args.now is not None:
        try:
            now = datetime.fromisoformat(args.now)
        except ValueError:
            _err(f"bad --now {args.now!r}: expected an ISO-8601 date and time (2026-01-31T12:00:00)")
            return 2
    try:
        request, is_sample = _request(args)
        if is_sample:
            _err(f"note: rendering {SAMPLE_NAME} (--messages FILE to give your own)")
        notes: list[str] = []
        ids = args.ids or args.sanitize
        obj = render_object(
            args.path, request, ids=ids, template=args.template, sanitize=args.sanitize, now=now, notes=notes
        )
    except RenderFailure as e:
        _err(str(e))
        return e.status
    for note in notes:
        _err(f"note: {note}")
    if args.format == "json":
        out = json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n"
    elif ids:
        result = {"ids": obj["ids"], "tokens": [_encode_row(t) for t in obj["tokens"]]}
        out = (render_text(result, obj["text"]) + "\n").encode("utf-8", "surrogateescape")
    else:
        out = obj["text"].encode("utf-8", "surrogateescape")  # exactly the prompt: nothing added
    write_out(out)
    return 0


def _encode_row(t: dict) -> dict:
    text = t.get("text")
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b""
    return {**t, "bytes": data.hex()}
