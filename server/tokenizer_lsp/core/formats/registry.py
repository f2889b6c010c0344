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
        # exactly as the format's own library encodes (docs/cli.md, encode)

Optional (additive; a plug-in without them still works everywhere):

    checks: str                     # its checks module in core/checks/ ("spm_checks"),
        # exposing findings(table) -> list[TableFinding] and, when its engine can tell,
        # unreachable(table) -> list[TableFinding] (run only when asked: it loads the engine)
    style: str                      # stats' byte_level_style, a Scheme value ("sentencepiece")
    def named(name: str) -> bool    # its usual file names: what `check DIR` lists
    def encode_spans(table, text, special, folder) -> list[tuple[int, int, int]]
        # (id, start, end), start/end in code points of `text`; without it the CLI walks
        # each token's bytes along the text
    def row_kind(table, row) -> str # decode's "kind" (default: BYTE rows byte-fallback,
        # special rows special, the rest literal)
    def diff_flags(table) -> dict   # the model flags diff compares with a tokenizer.json's
    def diff_side(table, path)      # a whole core.behaviour.diff.sides.Side, instead of
        # cli/tables.py table_side()'s (pieces, scores, specials as added tokens, bytes)

Shared checks (duplicate-token, utf8-fragment) run on every table: core/checks/tables.py.
The command line for all plug-ins is cli/tables.py; TokenTable.source keeps the file's
bytes for an engine that loads from them (SentencePiece).

Changes since the first version (all additive): `checks`, `style`, `named`,
`encode_spans`, `row_kind`, `diff_flags`, `diff_side`; TokenTable.source; named() and
formats_read() here.
"""

from __future__ import annotations

import importlib
from functools import cache

SNIFF_BYTES = 65536

# name -> module; the order is the order of sniffing (binary magic first: cheapest, surest)
# (each plug-in adds its own line: "gguf", "sentencepiece", "tekken", "wordpiece")
FORMATS: dict[str, str] = {
    "gguf": "gguf",
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
