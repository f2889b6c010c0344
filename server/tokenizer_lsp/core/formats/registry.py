"""The format plug-ins: one line each in FORMATS makes a format known to detection, the
index's build, the CLI and the server. Every format is one: the table formats (GGUF,
SentencePiece, tekken, WordPiece) and the text documents the editor navigates
(tokenizer.json, vocab.json, merges, tiktoken).

A plug-in is a module `core/formats/<name>/__init__.py` exposing `PLUGIN` (or, for two
formats one parse tells apart, an object FORMATS names: "json:TOKENIZER_JSON"), with:

    name: str                       # "gguf", ..., "tokenizer.json", "merges"
    label: str                      # how errors and docs name it ("SentencePiece .model")
    binary: bool                    # True: no text to edit; the editor shows the decoded view
    checks: str                     # its checks module, under core/formats ("gguf.checks"):
        # the format's own checks live with the format; core/checks/ holds the shared ones
    def sniff(head: bytes, path: str | None) -> bool
        # is this file this format? `head` is at most SNIFF_BYTES from the start; content
        # decides, a name may only break a tie (detect.py's rule; the document plug-ins'
        # sniff is detect.content_kind, so detect.py stays the one source of those rules)
    def named(name: str) -> bool    # its usual file names (detect_rules.json): `check DIR`

Then either a document plug-in (a text the editor navigates, parsed its own way):

    def document(data, path, companion, assume_tokenizer) -> Parsed   (formats/parsed.py)
        # the parse only, no check; `companion()` gives the vocabulary a merges file is
        # checked against; `assume_tokenizer`: the text was a tokenizer before
    def by_name(path, assume_tokenizer) -> bool
        # the name alone says this format (the content says none)
    # its checks module: document_findings(parsed) -> list[Finding]

or a table plug-in (a list of tokens by id; its document is table_doc.py's TableDocument):

    def read(path: str) -> TokenTable
        # the whole table; binary readers read only what they need (GGUF: the metadata,
        # never the tensors) and check every count against the file size before allocating;
        # raises FormatError with a one-line reason
    def read_bytes(data: bytes, path: str | None) -> TokenTable
        # the same from bytes in memory (an editor's unsaved text; tests)
    def encode(table: TokenTable, text: str, special: bool, folder: str | None) -> list[int]
        # exactly as the format's own library encodes (docs/cli.md, encode)
    # its checks module: findings(table) -> list[TableFinding] and, when its engine can
    # tell, unreachable(table) -> list[TableFinding] (run only when asked: it loads the
    # engine); core/checks/tables.py runs them after the shared ones

    Optional:
    style: str                      # stats' byte_level_style, a Scheme value ("sentencepiece")
    def encode_spans(table, text, special, folder) -> list[tuple[int, int, int]]
        # (id, start, end), start/end in code points of `text`; without it the CLI walks
        # each token's bytes along the text
    def row_kind(table, row) -> str # decode's "kind" (default: BYTE rows byte-fallback,
        # special rows special, the rest literal)
    def diff_flags(table) -> dict   # the model flags diff compares with a tokenizer.json's
    def diff_side(table, path)      # a whole core.behaviour.diff.sides.Side, instead of
        # cli/tables.py table_side()'s (pieces, scores, specials as added tokens, bytes)

Which plug-in a text is (claim): the table plug-ins first, then the document plug-ins; in
each, content before names (each plug-in's sniff in FORMATS order, then its name: for a
table plug-in only when the text was a tokenizer before, a vocab.txt line being typed that
holds a space). The index's build (core/index/build.py) dispatches only through here; the
CLI's commands likewise (cli/tables.py for table plug-ins, the index for the others).

Changes since the first version (all additive): `checks`, `style`, `named`,
`encode_spans`, `row_kind`, `diff_flags`, `diff_side`; TokenTable.source; named() and
formats_read() here; document plug-ins (`document`, `by_name`), claim(), checks modules
under core/formats.
"""

from __future__ import annotations

import importlib
import os
from functools import cache

SNIFF_BYTES = 65536

# name -> module[:object]; the order is the order of sniffing (binary magic first:
# cheapest, surest). vocab.json before tokenizer.json: both read the same way (one parse
# decides which), the first only sniffs a token -> id object's start.
FORMATS: dict[str, str] = {
    "gguf": "gguf",
    "sentencepiece": "sentencepiece",
    "tekken": "tekken",
    "wordpiece": "wordpiece",
    "vocab.json": "json:VOCAB_JSON",
    "tokenizer.json": "json:TOKENIZER_JSON",
    "merges": "merges",
    "tiktoken": "tiktoken",
}

# how formats_read() lists them: every plug-in once, the text formats first (what most files are)
LISTED = ("tokenizer.json", "vocab.json", "merges", "tiktoken", "gguf", "sentencepiece", "tekken", "wordpiece")


@cache
def plugin(name: str):
    module, _, attr = FORMATS[name].partition(":")
    return getattr(importlib.import_module(f".{module}", __package__), attr or "PLUGIN")


def plugins() -> list:
    return [plugin(name) for name in FORMATS]  # a broken plug-in fails loudly


def reads_table(p) -> bool:
    """A table plug-in (read() gives a TokenTable), not a document plug-in."""
    return not hasattr(p, "document")


def table_plugins() -> list:
    return [p for p in plugins() if reads_table(p)]


def named(name: str) -> bool:
    """Does a plug-in's usual file name fit `name` (what `check DIR` lists; the content
    still decides when the file is read)?"""
    return any(p.named(name) for p in plugins())


def formats_read() -> str:
    """Every format the tool reads, for a "not a tokenizer file" error: the plug-ins' labels."""
    return ", ".join(plugin(name).label for name in LISTED)


def claim(head: bytes, path: str | None = None, assume_tokenizer: bool = False):
    """The plug-in whose format a text starting with `head` is, or None (not a tokenizer
    file). Table plug-ins first, then document plug-ins; in each, content (sniff) before
    a name alone (see the module docstring)."""
    for group in (table_plugins(), [p for p in plugins() if not reads_table(p)]):
        for p in group:
            if p.sniff(head, path):
                return p
        for p in group:
            if _by_name(p, path, assume_tokenizer):
                return p
    return None


def _by_name(p, path: str | None, assume_tokenizer: bool) -> bool:
    if hasattr(p, "by_name"):
        return p.by_name(path, assume_tokenizer)
    # a table plug-in: a text plug-in's name keeps a text that was a tokenizer before
    return assume_tokenizer and bool(path) and not p.binary and p.named(os.path.basename(path).lower())


def document(p, data: bytes, path: str | None, companion=None, assume_tokenizer: bool = False):
    """What plug-in `p` parses of a text (a Parsed; no check run): its own `document`
    hook, or for a table plug-in the TableDocument of the table it reads."""
    if not reads_table(p):
        return p.document(data, path, companion, assume_tokenizer)
    from .table_doc import table_document

    return table_document(p, data, path)


def claim_path(path: str):
    """The plug-in of the file at `path` (any plug-in), reading only its first SNIFF_BYTES."""
    with open(path, "rb") as f:
        head = f.read(SNIFF_BYTES)
    return claim(head, path)


def sniff_head(head: bytes, path: str | None = None):
    """The table plug-in that reads a file starting with `head`, or None."""
    for p in table_plugins():
        if p.sniff(head, path):
            return p
    return None


def sniff_path(path: str):
    """The table plug-in for the file at `path`, reading only its first SNIFF_BYTES."""
    with open(path, "rb") as f:
        head = f.read(SNIFF_BYTES)
    return sniff_head(head, path)


def read_table(path: str):
    """(plug-in, table) of a file a table plug-in claims, else None. OSError, FormatError pass."""
    p = sniff_path(path)
    return None if p is None else (p, p.read(path))
