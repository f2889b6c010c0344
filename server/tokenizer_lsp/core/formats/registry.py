"""The format plug-ins: one line each in FORMATS makes a format known to detection, the
CLI and the server.

A plug-in is a module `core/formats/<name>/__init__.py` exposing `PLUGIN`, an object with:

    name: str                       # "sentencepiece", "tekken", "wordpiece", "gguf"
    label: str                      # how errors and docs name it ("SentencePiece .model")
    binary: bool                    # True: no text to edit; the editor shows the decoded view
    def sniff(head: bytes, path: str | None) -> bool
        # is this file this format? `head` is at most SNIFF_BYTES from the start; content
        # decides, a name may only break a tie (detect.py's rule)
    def read(path: str) -> TokenTable
        # the whole table; binary readers read only what they need (GGUF: the metadata,
        # never the tensors) and check every count against the file size before allocating;
        # raises FormatError with a one-line reason
    def read_bytes(data: bytes, path: str | None) -> TokenTable
        # the same from bytes in memory (an editor's unsaved text; tests)
    def encode(table: TokenTable, text: str, special: bool, folder: str | None) -> list[int]
        # exactly as the format's own library encodes (INTERFACE Part 3 "encode")

Checks on a table live in core/checks/tables.py (one function per code, registered by
format), not in the readers.
"""

from __future__ import annotations

import importlib
from functools import cache

SNIFF_BYTES = 65536

# name -> module; the order is the order of sniffing (binary magic first: cheapest, surest)
# (each plug-in adds its own line: "gguf", "sentencepiece", "tekken", "wordpiece")
FORMATS: dict[str, str] = {
    "sentencepiece": "sentencepiece",
    "tekken": "tekken",
    "wordpiece": "wordpiece",
}


@cache
def plugin(name: str):
    return importlib.import_module(f".{FORMATS[name]}", __package__).PLUGIN


def plugins() -> list:
    return [plugin(name) for name in FORMATS]  # a broken plug-in fails loudly


def named(name: str) -> bool:
    """Does a plug-in's usual file name fit `name` (what `check DIR` lists; the content
    still decides when the file is read)?"""
    return any(p.named(name) for p in plugins() if hasattr(p, "named"))


def formats_read() -> str:
    """Every format the tool reads, for a "not a tokenizer file" error."""
    older = ["tokenizer.json", "vocab.json + merges.txt", ".tiktoken"]
    return ", ".join(older + [p.label for p in plugins()])


def sniff_head(head: bytes, path: str | None = None):
    """The plug-in that reads a file starting with `head`, or None (then the older formats
    of detect.py decide)."""
    for p in plugins():
        if p.sniff(head, path):
            return p
    return None


def sniff_path(path: str):
    """The plug-in for the file at `path`, reading only its first SNIFF_BYTES."""
    with open(path, "rb") as f:
        head = f.read(SNIFF_BYTES)
    return sniff_head(head, path)


def read_table(path: str):
    """(plug-in, table) of a file a plug-in claims, else None. OSError, FormatError pass."""
    p = sniff_path(path)
    return None if p is None else (p, p.read(path))
