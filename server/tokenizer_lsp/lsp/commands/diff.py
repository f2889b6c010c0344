"""`tokenizer-lsp.diff` [old, new, options?]: what differs between two tokenizers, by meaning.

`old` and `new` are URIs or paths; an open document's current text (unsaved edits
included) wins over the file on disk. Options: {"text": T} also encodes T with both, in
the engine helper process (never in the server's). Returns {"same", "report" (the text
`tokenizer-lsp diff` prints), "diff" (its JSON)}.
"""

from __future__ import annotations

import zlib

from ...core.behaviour.diff.compare import compare, with_text
from ...core.behaviour.diff.report import render
from ...core.behaviour.diff.sides import DiffError, read_side
from ...core.behaviour.loaded import LoadError
from ..engine_client import EngineError, companion_bytes
from ..lsp_types import JsonResult
from ..session import uri_to_path
from ..work import Mode, current_token, in_child_result, off_loop
from . import CommandError


async def run(ls, arguments: list):
    if len(arguments) < 2 or not all(isinstance(a, str) for a in arguments[:2]):
        raise CommandError(
            "tokenizer-lsp.diff takes [old, new, options?]: two URIs or paths, and "
            'optionally {"text": T} to encode T with both'
        )
    options = arguments[2] if len(arguments) > 2 and isinstance(arguments[2], dict) else {}
    text = options.get("text")
    if text is not None and not isinstance(text, str):
        raise CommandError('tokenizer-lsp.diff: options.text must be a string')
    old, new = await _source(ls, arguments[0]), await _source(ls, arguments[1])
    token = current_token()
    d = await off_loop(Mode.BACKGROUND, token, in_child_result, token, _compare, old[1:4], new[1:4])
    if isinstance(d, str):
        raise CommandError(d)
    if text is not None:
        await _encode_both(ls, d, old, new, text)
    return JsonResult({"same": d["same"], "report": render(d), "diff": d})


def _compare(old: tuple, new: tuple):
    """The comparison of two (data, path, companion) triples, or the message of why not."""
    try:
        return compare(read_side(*old), read_side(*new))
    except DiffError as e:
        return str(e)


async def _source(ls, ref: str) -> tuple:
    """(key, data, path, companion, companion path) of a URI or path: the editor's text
    when the document is open, else the file on disk."""
    session = ls.session
    uri = ref if session.is_open(ref) else None
    path = uri_to_path(ref) if "://" in ref or ref.startswith("file:") else ref
    if uri is None and path:
        uri = session.uri_of_path(path)
    if uri is not None:
        version, data = await session.current_text(uri)
        key, path = (uri, version), session.path_of(uri)
    else:
        if not path:
            raise CommandError(f"{ref}: not a file this server can read")
        try:
            data = await off_loop(Mode.BACKGROUND, current_token(), _read, path)
        except OSError as e:
            raise CommandError(f"{path}: cannot read: {e.strerror or e}") from None
        key = (path, zlib.crc32(data))
    other, companion = await companion_bytes(session, data, path)
    return key, data, path, companion, other


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


async def _encode_both(ls, d: dict, old: tuple, new: tuple, text: str) -> None:
    """Add both encodings of `text`, from the engine helper process; when a tokenizer
    cannot be loaded there, the comparison says why instead."""
    engine = getattr(ls, "engine", None)
    if engine is None:
        d["text_note"] = "not encoded: this server has no engine helper process"
        return
    encoded = []
    for key, data, path, companion, other in (old, new):
        try:
            encoded.append(await engine.encode(key, data, path, companion, text, companion_path=other))
        except (LoadError, EngineError) as e:
            d["text_note"] = f"not encoded: {e}"
            return
    (a, b) = encoded
    with_text(d, text, a["ids"], b["ids"], [t["token"] for t in a["tokens"]], [t["token"] for t in b["tokens"]])
