"""The decoded view of a binary tokenizer file (`.model`, `.gguf`): a read-only text, one row
per token (id, stored form, text, bytes, kind, type), that an editor shows instead of the
bytes, and that the server serves like any table format (hover on a row, the file's
findings on its rows) because its rows are spans of that text.

The text starts with a header line naming the file, so the server knows a view by its
content and reads the table from the file itself (GGUF: its metadata only, never its
tensors); the editor never reads the file. The view the server builds must be the text the
editor shows: both come from `view_text` of the same file.
"""

from __future__ import annotations

import os
from dataclasses import replace

import orjson

from ..decoding.listing import text_row_and_stored
from ..decoding.utf8 import classify
from . import registry
from .table import TokenTable

HEADER = "# tokenizer-lsp decoded view of "
_SEP = " | "


def _kind(plugin, table: TokenTable, row) -> str:
    # the same rule as `decode` (cli/tables.py decoded_rows): a plug-in's row_kind, else
    # BYTE rows byte-fallback, special rows special, the rest literal
    kind_of = getattr(plugin, "row_kind", None)
    if kind_of is not None:
        return kind_of(table, row)
    if row.type == "BYTE":
        return "byte-fallback"
    return "special" if row.special else "literal"


def rows_and_spans(plugin, table: TokenTable, path: str) -> tuple[str, int, list[tuple[int, int]]]:
    """(the view's text, its number of rows, each row's stored-form span in the text's UTF-8)."""
    head = f"{HEADER}{path}{_SEP}{plugin.label}, {len(table.rows):,} tokens (read-only)\n"
    head += f"# {'id':>5}  {'stored form':<20} {'text':<16} {'bytes':<24} kind{', type' if _typed(table) else ''}\n"
    parts, spans = [head], []
    at = len(head.encode("utf-8"))
    for row in table.rows:
        utf8 = classify(row.data)
        token = (
            row.token if _dumps_ok(row.token) else row.token.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        )
        line, k = text_row_and_stored(
            {
                "id": row.id,
                "token": token,
                "bytes": row.data.hex(),
                "text": row.data.decode("utf-8") if utf8.value == "valid" else None,
                "utf8": utf8.value,
                "kind": _kind(plugin, table, row),
            },
            f", {row.type}" if row.type is not None else "",
        )
        # the span is the whole stored form (at the row's end when its column shows it cut)
        start = at + len(line[:k].encode("utf-8", "surrogatepass"))
        spans.append((start, start + len(orjson.dumps(token))))
        line += "\n"
        parts.append(line)
        at += len(line.encode("utf-8", "surrogatepass"))
    return "".join(parts), len(table.rows), spans


def _typed(table: TokenTable) -> bool:
    return any(r.type is not None for r in table.rows[:1])


def _dumps_ok(token: str) -> bool:
    try:
        orjson.dumps(token)
        return True
    except TypeError:  # a lone surrogate: no span (the row still shows)
        return False


def view_text(path: str) -> tuple[str, int]:
    """(the decoded view of the file at `path`, its number of rows). Raises OSError,
    table.FormatError, or ValueError for a file no plug-in reads."""
    got = registry.read_table(path)
    if got is None:
        raise ValueError(f"{os.path.basename(path)}: not a file of a format plug-in ({registry.formats_read()})")
    plugin, table = got
    text, n, _ = rows_and_spans(plugin, table, os.path.abspath(path))
    return text, n


def view_path(data: bytes) -> str | None:
    """The file a decoded view's text is of (None: not a view)."""
    if not data.startswith(HEADER.encode()):
        return None
    line = data[len(HEADER) : data.find(b"\n")].decode("utf-8", "replace")
    path, sep, _ = line.rpartition(_SEP)
    return path if sep and os.path.isabs(path) else None


def view_table(data: bytes):
    """(plug-in, the file's table with its rows' spans in this view's text) for the text of a
    decoded view, or (plug-in, table, why not) when the text is not the view of the file as it
    is now (changed on disk since it was opened): then no row has a span."""
    path = view_path(data)
    if path is None:
        return None
    got = registry.read_table(path)
    if got is None:
        raise ValueError(f"{os.path.basename(path)} is no longer a file of a format plug-in")
    plugin, table = got
    text, _, spans = rows_and_spans(plugin, table, path)
    if text.encode("utf-8", "surrogatepass") != data:
        return plugin, replace(table, spans=None), "the file changed since this view was made: reopen it"
    return plugin, replace(table, spans=tuple(spans)), None


def binary_opened_as_text(path: str | None, data: bytes) -> str | None:
    """What to tell a user whose editor opened a binary tokenizer file's bytes as text (no
    decoded view in between: Helix, `:noautocmd edit`, VS Code's "Reopen as Text"), or None.

    The file on disk decides: an editor's text of a binary file is its bytes decoded with
    replacement characters, which no reader can sniff. A buffer named after the file that
    holds its decoded view (Neovim, Vim, Emacs) is the view, not the bytes."""
    head = data[: registry.SNIFF_BYTES]
    # a text file holds no NUL and no U+FFFD (what a decoder puts for a byte it cannot
    # read): a document without them is not worth reading its file for
    if (
        not path
        or data.startswith(HEADER.encode())
        or (b"\x00" not in head and "\ufffd".encode() not in head)
        or not os.path.isfile(path)
    ):
        return None
    try:
        plugin = registry.sniff_path(path)
    except OSError:
        return None
    if plugin is None or not plugin.binary:
        return None
    name = os.path.basename(path)
    return (
        f"{name} is a binary {plugin.label} file: its bytes are no text to read or edit. "
        f"Its tokens: the command tokenizer-lsp.decodedVocabulary (a decoded view, one row per "
        f"token), or `tokenizer-lsp decode {name}` in a terminal."
    )
