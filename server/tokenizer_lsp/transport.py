"""Faster, leaner parsing of incoming LSP messages.

pygls parses every message body with the standard json module. A didOpen of a 33 MB
tokenizer.json then costs 0.4 s and a 157 MB str (UCS-4, for vocabularies with emoji)
that we immediately re-encode to UTF-8. Here the body is parsed by orjson, and for a
large didOpen the document text is cut out of the body and unescaped at the byte level,
so its UTF-8 bytes go to the document store without ever becoming a str.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

LARGE = 1 << 20
_TEXT_KEY = re.compile(rb'(?<!\\)"text"\s*:\s*"')
_STRING_CONTENT = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*')
_SIMPLE_ESCAPES = [(b'\\"', b'"'), (b"\\/", b"/"), (b"\\n", b"\n"), (b"\\t", b"\t"),
                   (b"\\r", b"\r"), (b"\\b", b"\b"), (b"\\f", b"\f")]
_U_ESCAPES = re.compile(rb"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})")


def _u_escape(m: re.Match) -> bytes:
    if m.group(3) is not None:
        return chr(int(m.group(3), 16)).encode("utf-8", "surrogatepass")
    hi, lo = int(m.group(1), 16), int(m.group(2), 16)
    return chr(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).encode("utf-8")


def unescape_json_string(raw: bytes) -> bytes:
    """UTF-8 bytes of a JSON string's content, escapes resolved, without building a str.

    Escapes are two characters (or \\uXXXX), so splitting on escaped backslashes first
    leaves parts in which every backslash starts an escape of some other character.
    """
    if b"\\" not in raw:
        return raw
    parts = raw.split(b"\\\\")
    out = []
    for part in parts:
        if b"\\" in part:
            for esc, char in _SIMPLE_ESCAPES:
                if esc in part:
                    part = part.replace(esc, char)
            if b"\\u" in part:
                part = _U_ESCAPES.sub(_u_escape, part)
        out.append(part)
    return b"\\".join(out)


def _apply_hook(obj: Any, hook) -> Any:
    """What json.loads(object_hook=hook) does: the hook on every object, innermost first."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)):
                obj[k] = _apply_hook(v, hook)
        return hook(obj)
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            if isinstance(v, (dict, list)):
                obj[i] = _apply_hook(v, hook)
    return obj


def loads(body: bytes | str, object_hook=None) -> Any:
    if isinstance(body, (bytes, bytearray)) and len(body) > LARGE:
        obj = _large_did_open(bytes(body), object_hook)
        if obj is not None:
            return obj
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:  # e.g. lone surrogates, which json accepts
        return json.loads(body, object_hook=object_hook)
    return _apply_hook(obj, object_hook) if object_hook else obj


def _large_did_open(body: bytes, object_hook) -> Any | None:
    m = _TEXT_KEY.search(body)
    if m is None:
        return None
    start = m.end()
    content = _STRING_CONTENT.match(body, start)
    end = content.end()
    if body[end : end + 1] != b'"':
        return None
    try:
        rest = orjson.loads(body[:start] + body[end:])
    except orjson.JSONDecodeError:
        return None
    params = rest.get("params") if isinstance(rest, dict) else None
    td = params.get("textDocument") if isinstance(params, dict) else None
    if rest.get("method") != "textDocument/didOpen" or not isinstance(td, dict) or td.get("text") != "":
        return None
    data = unescape_json_string(body[start:end])
    protocol = getattr(object_hook, "__self__", None)
    if protocol is None or not hasattr(protocol, "pending_texts"):
        td["text"] = data.decode("utf-8", "surrogatepass")
    else:
        protocol.pending_texts[(td.get("uri"), td.get("version"))] = data
    return _apply_hook(rest, object_hook) if object_hook else rest


class JsonShim:
    """Stands in for the json module inside pygls.io_ (only loads differs)."""

    loads = staticmethod(loads)
    dumps = staticmethod(json.dumps)

    def __getattr__(self, name: str):
        return getattr(json, name)


def install() -> None:
    import pygls.io_

    pygls.io_.json = JsonShim()
