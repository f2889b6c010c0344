"""The index of a format plug-in's file (core/formats/registry.py): the table a plug-in
reads, shown through the index types (core/formats/table_doc.py); a binary file's decoded
view (core/formats/decoded_view.py) likewise."""

from __future__ import annotations

import os
import re

import orjson

from ..model import Finding
from .document import DocumentIndex, collector_paused


def table_index(data: bytes, path: str | None, assume_tokenizer: bool = False) -> DocumentIndex | None:
    """A format plug-in's file (core/formats/registry.py): its table made an index. A binary
    one (.model, .gguf) sent as text has nothing to show here: its decoded view does.
    `assume_tokenizer` (it was one before): a text no plug-in's sniff takes any longer (a
    vocab.txt line being typed holds a space) is still read by the plug-in its name names."""
    from ..formats.decoded_view import HEADER, view_table
    from ..formats.registry import SNIFF_BYTES, plugins, sniff_head
    from ..formats.table import FormatError
    from ..formats.table_doc import TableDocument

    if data.startswith(HEADER.encode()):  # the decoded view of a binary file: its rows are the table's
        try:
            got = view_table(data)
        except (OSError, FormatError, ValueError) as e:
            return DocumentIndex(data, path, not_tokenizer_reason=f"decoded view: {e}")
        if got is not None:
            plugin, table, _ = got
            with collector_paused():
                doc = TableDocument(data, table, plugin, view=True)
                return DocumentIndex(data, path, plugin.name, doc, doc.findings())
    plugin = sniff_head(data[:SNIFF_BYTES], path)
    if plugin is None and assume_tokenizer and path:
        name = os.path.basename(path).lower()
        plugin = next((p for p in plugins() if not p.binary and getattr(p, "named", None) and p.named(name)), None)
    if plugin is None:
        return None
    if plugin.binary:
        return DocumentIndex(
            data,
            path,
            not_tokenizer_reason=f"a binary {plugin.label} file: open its decoded "
            "view (command tokenizer-lsp.decodedVocabulary)",
        )

    with collector_paused():
        try:
            table = plugin.read_bytes(data, path)
        except FormatError as e:
            return unreadable_table(data, path, plugin, str(e))
        doc = TableDocument(data, table, plugin)
        return DocumentIndex(data, path, plugin.name, doc, doc.findings())


def unreadable_table(data: bytes, path: str | None, plugin, reason: str) -> DocumentIndex:
    """A file of a plug-in's format that it cannot read (broken JSON while typing): one
    finding where the parser stopped, else on the first line; the last good index serves."""
    from ..formats.json.errors import _locate

    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):  # a JSON format (tekken): where it stops parsing
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError as err:
            found, _ = _locate(data, err)
            error = Finding("json-syntax", found.start, found.end, f"{plugin.label}: {found.message}")
            return DocumentIndex(data, path, plugin.name, None, [error], syntax_error=error)
    end = min(re.search(rb"\r\n|\r|\n|$", data).start(), len(data))  # the first line, without its break
    error = Finding("schema", 0, end, f"{plugin.label}: {reason}")
    return DocumentIndex(data, path, plugin.name, None, [error], syntax_error=error)
