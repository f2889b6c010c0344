"""The index of a binary table file's decoded view (core/formats/decoded_view.py): its rows
are the table's, read from the file the view names, shown through the index types
(core/formats/table_doc.py) and checked as the file is (core/checks/tables.py)."""

from __future__ import annotations

from .document import DocumentIndex, collector_paused


def decoded_view_index(data: bytes, path: str | None) -> DocumentIndex | None:
    """The index of the text of a decoded view, else None (not one)."""
    from ..formats.decoded_view import HEADER, view_table

    if not data.startswith(HEADER.encode()):
        return None
    from ..formats.parsed import Parsed
    from ..formats.table import FormatError
    from ..formats.table_doc import TableDocument

    try:
        got = view_table(data)
    except (OSError, FormatError, ValueError) as e:
        return DocumentIndex(data, path, not_tokenizer_reason=f"decoded view: {e}")
    if got is None:
        return None
    plugin, table, _ = got
    from ..checks.tables import document_findings

    with collector_paused():
        doc = TableDocument(data, table, plugin, view=True)
        return DocumentIndex(data, path, plugin.name, doc, document_findings(Parsed(plugin.name, doc, path=path)))
