"""What a format plug-in makes of one version of a text, before any check runs.

A plug-in parses (its `document` hook, or for a table plug-in the generic TableDocument
of table_doc.py); the checks of its format then make the findings of what it parsed
(core/index/build.py calls both). Nothing here judges the text: `error` is only where it
stops being readable (broken JSON, a binary file by a text format's name).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Finding


@dataclass
class Parsed:
    format: str | None = None  # "tokenizer.json", "merges.txt", "tekken", ...; None: not a tokenizer file
    doc: Any = None  # the document the editor navigates (JsonDocument, TableDocument, ...)
    reason: str = ""  # why it is not a tokenizer file (format None)
    error: Finding | None = None  # where the text stops being readable (its only finding when doc is None)
    path: str | None = None
    salvaged: Any = None  # broken JSON: what salvage recovered (formats/json/salvage.py)
