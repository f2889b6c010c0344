"""Where each value of a small JSON text is: a tree of byte spans beside orjson's values.

Config files are kilobytes (gemma3's tokenizer_config.json, with 6415 added tokens, is
1 MB), so one regex pass over the text is cheap; orjson still decides what the values are.
"""

from __future__ import annotations

import functools
import re

import orjson

from ..formats.json.layout import STRING

_SCALAR = rb'[^\s\[\]{}:,"]+'
_TOKEN = re.compile(rb"\s*(" + STRING + rb"|[\[\]{}:,]|" + _SCALAR + rb")")
_MEMBER = rb"\s*" + STRING + rb"\s*:\s*(?:" + STRING + rb"|" + _SCALAR + rb")\s*"
# an object holding only strings and scalars (an added token's flags): matched in one C call
_FLAT = re.compile(rb"\{(?:" + _MEMBER + rb"(?:," + _MEMBER + rb")*|\s*)\}")
_FLAT_MEMBER = re.compile(rb"(" + STRING + rb")\s*:\s*(" + STRING + rb"|" + _SCALAR + rb")")


@functools.lru_cache(maxsize=64)
def _member_pattern(key: str) -> re.Pattern:
    return re.compile(rb"[{,]\s*(" + re.escape(orjson.dumps(key)) + rb")\s*:\s*(" + STRING + rb"|" + _SCALAR + rb")")


class Node:
    """One JSON value: its span, and for a container what it holds (with their spans)."""

    __slots__ = ("_keys", "end", "flat", "items", "kind", "start")

    def __init__(self, start: int, kind: str) -> None:
        self.start = start
        self.end = start
        self.kind = kind  # "object" | "array" | "string" | "scalar"
        self._keys: dict[str, tuple[tuple[int, int], Node]] = {}
        self.items: list[Node] = []  # an array's elements
        self.flat: bytes | None = None  # the text of a flat object, its members read when asked

    @property
    def keys(self) -> dict[str, tuple[tuple[int, int], Node]]:
        """An object's members: key -> (key literal span, value node); the last one of a
        repeated key wins, as with orjson."""
        if self.flat is not None:
            data, self.flat = self.flat, None
            for m in _FLAT_MEMBER.finditer(data, self.start, self.end):
                value = m.group(2)
                node = Node(m.start(2), "string" if value[:1] == b'"' else "scalar")
                node.end = m.end(2)
                self._keys[_key(m.group(1))] = (m.span(1), node)
        return self._keys

    def member(self, key: str) -> tuple[tuple[int, int], Node] | None:
        if self.flat is not None:  # one C search, not every member (6415 added tokens in gemma3)
            m = _member_pattern(key).search(self.flat, self.start, self.end)
            if m is None or m.end() > self.end:
                return None
            value = m.group(2)
            node = Node(m.start(2), "string" if value[:1] == b'"' else "scalar")
            node.end = m.end(2)
            return m.span(1), node
        return self.keys.get(key)

    def entry_span(self, key: str) -> tuple[int, int] | None:
        """From a member's key to the end of its value (an object: its closing brace)."""
        found = self.keys.get(key)
        return (found[0][0], found[1].end) if found is not None else None

    def find(self, path: tuple) -> Node | None:
        node = self
        for step in path:
            if node is None:
                return None
            if isinstance(step, int):
                node = node.items[step] if node.kind == "array" and 0 <= step < len(node.items) else None
            else:
                found = node.keys.get(step) if node.kind == "object" else None
                node = found[1] if found is not None else None
        return node


def _key(literal: bytes) -> str:
    if b"\\" not in literal:
        return literal[1:-1].decode("utf-8", "replace")
    try:
        return orjson.loads(literal)
    except orjson.JSONDecodeError:
        return literal[1:-1].decode("utf-8", "replace")


def span_tree(data: bytes) -> Node | None:
    """The span tree of a JSON text that orjson accepts (None when it is not a container)."""
    root: Node | None = None
    stack: list[Node] = []
    pending_key: tuple[str, tuple[int, int]] | None = None
    expect_key = False

    def attach(node: Node) -> None:
        nonlocal pending_key, root
        if not stack:
            root = node
        elif stack[-1].kind == "array":
            stack[-1].items.append(node)
        elif pending_key is not None:
            stack[-1]._keys[pending_key[0]] = (pending_key[1], node)
            pending_key = None

    pos, n, match, flat = 0, len(data), _TOKEN.match, _FLAT.match
    while pos < n:
        m = match(data, pos)
        if m is None:
            break
        pos = m.end()
        start = m.start(1)
        c = data[start : start + 1]
        if c == b"{" and stack:
            f = flat(data, start)
            if f is not None:
                node = Node(start, "object")
                node.end, node.flat, pos = f.end(), data, f.end()
                attach(node)
                expect_key = False
                continue
        if c in (b"{", b"["):
            node = Node(start, "object" if c == b"{" else "array")
            attach(node)
            stack.append(node)
            expect_key = c == b"{"
        elif c in (b"}", b"]"):
            if not stack:
                return root
            node = stack.pop()
            node.end = pos
            expect_key = False
            if not stack:
                return root
        elif c == b",":
            expect_key = bool(stack) and stack[-1].kind == "object"
        elif c == b":":
            expect_key = False
        elif expect_key and c == b'"':
            pending_key = (_key(m.group(1)), (start, pos))
        else:
            node = Node(start, "string" if c == b'"' else "scalar")
            node.end = pos
            attach(node)
    return root


_PIECE = re.compile(rb'\\u[0-9a-fA-F]{4}|\\.|[^\\"]+', re.DOTALL)


def string_offsets(data: bytes, start: int, end: int) -> tuple[str, list[int]]:
    """The text of the string literal data[start:end] and, for each of its characters
    (and one past the last), the byte offset in the source where it begins: escapes
    (`\\n`, `\\u00e9`, surrogate pairs) make them differ from the text's own offsets."""
    text: list[str] = []
    offsets: list[int] = []
    pending_high: tuple[int, int] | None = None  # a \\uD8xx waiting for its low half
    for m in _PIECE.finditer(data, start + 1, end - 1):
        piece = m.group()
        if piece.startswith(b"\\u"):
            cp = int(piece[2:], 16)  # noqa: FURB166 (a \\u escape, not a 0x literal)
            if 0xD800 <= cp < 0xDC00:
                pending_high = (cp, m.start())
                continue
            if 0xDC00 <= cp < 0xE000 and pending_high is not None:
                high, at = pending_high
                pending_high = None
                text.append(chr(0x10000 + ((high - 0xD800) << 10) + (cp - 0xDC00)))
                offsets.append(at)
                continue
            text.append(chr(cp))
            offsets.append(m.start())
        elif piece.startswith(b"\\"):
            try:
                text.append(orjson.loads(b'"' + piece + b'"'))
            except orjson.JSONDecodeError:
                text.append(piece[1:].decode("latin-1"))
            offsets.append(m.start())
        else:
            chunk = piece.decode("utf-8", "replace")
            at = m.start()
            for ch in chunk:
                text.append(ch)
                offsets.append(at)
                at += len(ch.encode("utf-8"))
    offsets.append(end - 1)
    return "".join(text), offsets
