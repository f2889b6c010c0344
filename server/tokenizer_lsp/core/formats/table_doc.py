"""A text table format (tekken, WordPiece vocab.txt) as an editor document: the token table
a plug-in read, shown through the index types every handler already serves (a Vocabulary
and TokenRefs at the rows' spans), so hover, inlay hints, diagnostics, symbols and
navigation work unchanged. Built once from the table, never changed.

A row's key in the Vocabulary is what decodes to its bytes under the format's scheme:
tekken's the base64 of its bytes (as a .tiktoken rank's, Scheme.RAW_BYTES), its special
tokens added tokens (matched literally); a vocab.txt line its text (Scheme.WORDPIECE, `##`).

The document makes no finding: core/checks/tables.py checks its table and places each
finding with `locate`.
"""

from __future__ import annotations

import binascii
import re
from array import array
from bisect import bisect_left, bisect_right

import orjson

from ..decoding.tokens import Decoded, Scheme
from ..decoding.utf8 import classify
from ..model import Finding, TokenRef, Vocabulary
from .parsed import Parsed
from .table import FormatError, TableFinding, TokenTable

# format -> (scheme, WordPiece prefix), for plug-ins that do not say (a plug-in's `scheme`)
_SCHEMES = {"tekken": (Scheme.RAW_BYTES, ""), "wordpiece": (Scheme.WORDPIECE, "##")}


class TableVocabulary(Vocabulary):
    """A table's Vocabulary: a token's bytes are its row's, as the plug-in read them (a GGUF's
    spelling depends on its tokenizer model, which no one scheme says); the kind and the
    WordPiece prefix come from the scheme."""

    row_of_id = None  # id -> TableRow, set by the TableDocument

    def decode(self, token: str, in_vocab: bool = True) -> Decoded:
        d = super().decode(token, in_vocab)
        tid = self.tokens.get(token) if in_vocab else None
        if tid is None:
            tid = self.added.get(token)
        row = self.row_of_id(tid) if tid is not None and self.row_of_id is not None else None
        if row is None or row.data == d.data:
            return d
        return Decoded(row.data, d.kind, classify(row.data), d.continues, d.ends_word)


# what a format's library makes of a row, for plug-ins without a `hover_note` of their own
_NOTES = {
    "wordpiece": lambda table, row: [f"- id {row.id} = line {row.id + 1}: BERT's ids are the 0-based lines"],
}


class TableDocument:
    tables_ready = True  # everything is known from the table: no lookups to build later

    def __init__(self, data: bytes, table: TokenTable, plugin, view: bool = False) -> None:
        self.data, self.table = data, table
        # a binary file's decoded view (decoded_view.py) shows each row's text and id in its
        # columns already: no inlay hints there
        self.hints = not view
        self.format = table.format
        self.label = plugin.label
        self.plugin = plugin
        scheme, prefix = _SCHEMES.get(table.format, (None, ""))
        if scheme is None:  # the plug-in's style (a Scheme value: `.model`'s sentencepiece), per table if it varies
            style = table.meta.get("style") or getattr(plugin, "style", None)
            scheme = Scheme(style) if style in {s.value for s in Scheme} else Scheme.LITERAL
        raw = scheme is Scheme.RAW_BYTES
        tokens: dict[str, int] = {}
        added: dict[str, int] = {}
        special: set[str] = set()
        self._ordinal_row: list[int] = []  # place in `tokens` -> row index
        spans = table.spans or ()
        # the rows' literals, by start: TokenRefs are made when asked (131k of them took
        # seconds to build for tekken, where a hover needs one)
        placed: list[tuple[int, int, int]] = []  # (start, end, row index)
        b64 = binascii.b2a_base64
        for i, row in enumerate(table.rows):
            # a special token of a raw-bytes table is matched literally (tekken's `<s>`)
            literal = raw and row.special
            key = row.token if not raw or literal else b64(row.data, newline=False).decode("ascii")
            if row.special:
                special.add(key)
            if literal:
                added.setdefault(key, row.id)
            elif key not in tokens:
                tokens[key] = row.id
                self._ordinal_row.append(i)
            span = spans[i] if i < len(spans) else None
            if span is not None and 0 <= span[0] < span[1] <= len(data):
                placed.append((span[0], span[1], i))
        if any(a[0] > b[0] for a, b in zip(placed, placed[1:])):
            placed.sort()
        # three arrays, not a tuple per row (131k of them held 15 MB for tekken)
        self._starts = array("q", (p[0] for p in placed))
        self._ends = array("q", (p[1] for p in placed))
        self._rows = array("q", (p[2] for p in placed))
        self._raw = raw
        self.vocab = TableVocabulary(
            scheme=scheme,
            tokens=tokens,
            added=added,
            special=special,
            subword_prefix=prefix,
            model_type=str(table.meta.get("model_type", "BPE")),
        )
        self.vocab.row_of_id = self.row_of_id

    def _ref(self, k: int) -> TokenRef:
        row = self.table.rows[self._rows[k]]
        literal = self._raw and row.special
        key = row.token if not self._raw or literal else binascii.b2a_base64(row.data, newline=False).decode("ascii")
        return TokenRef(self._starts[k], self._ends[k], "added" if literal else "vocab", key, row.id)

    def build_tables(self) -> None:
        pass

    # ---- lookups by position ---------------------------------------------------------

    def token_at(self, offset: int) -> TokenRef | None:
        k = bisect_right(self._starts, offset) - 1
        if k >= 0 and self._starts[k] <= offset < self._ends[k]:
            return self._ref(k)
        return None

    def tokens_in(self, start: int, end: int, limit: int | None = None) -> list[TokenRef]:
        k = bisect_left(self._starts, start)
        out = []
        while k < len(self._starts) and self._ends[k] <= end and (limit is None or len(out) < limit):
            out.append(self._ref(k))
            k += 1
        return out

    def vocab_span(self, ordinal: int) -> tuple[int, int] | None:
        if not 0 <= ordinal < len(self._ordinal_row):
            return None
        spans = self.table.spans
        row = self._ordinal_row[ordinal]
        return spans[row] if spans is not None and row < len(spans) else None

    def row_of_id(self, tid: int):
        rows = self.table.rows
        if 0 <= tid < len(rows) and rows[tid].id == tid:
            return rows[tid]
        return next((r for r in rows if r.id == tid), None)

    # ---- where a finding is ------------------------------------------------------------

    def locate(self, f: TableFinding) -> Finding:
        """A table finding at its span, else at its key's name in the text (`"default_vocab_size"`),
        else at its row's span, else at the document's first line: always inside the text."""
        n = len(self.data)
        start, end = f.start, f.end
        if start is None and f.key is not None:
            m = re.search(b'"' + re.escape(f.key.rsplit(".", 1)[-1].encode()) + b'"', self.data)
            if m is not None:
                start, end = m.span()
        if start is None and f.id is not None and self.table.spans is not None:
            row = self.row_of_id(f.id)
            span = self.table.spans[self.table.rows.index(row)] if row is not None else None
            if span is not None:
                start, end = span
        if start is None or not 0 <= start <= end <= n:
            first = self.data.find(b"\n")
            start, end = 0, first if first > 0 else min(n, 1)
        return Finding(f.code, start, end, f.message, f.level)

    # ---- what the outline and hovers add ----------------------------------------------

    def sections(self) -> list[tuple[str, str, int, int]]:
        """(name, detail, start, end) of the file's parts: its rows as one section."""
        spans = [s for s in (self.table.spans or ()) if s is not None]
        n = len(self.data)
        if not spans:
            return [(f"{self.format} ({len(self.table.rows):,} tokens)", self.label, 0, n)]
        return [(f"tokens ({len(self.table.rows):,})", self.label, min(s for s, _ in spans), max(e for _, e in spans))]

    def hover_lines(self, token_id: int | None) -> list[str]:
        """What the format's own library says of the row with this id."""
        row = self.row_of_id(token_id) if token_id is not None else None
        if row is None:
            return []
        note = getattr(self.plugin, "hover_note", None) or _NOTES.get(self.format)
        lines = note(self.table, row) if note is not None else []
        if row.type is not None:
            lines.append(f"- type: {row.type}")
        if row.score is not None:
            lines.append(f"- score: {row.score:g}")
        return lines


def table_document(plugin, data: bytes, path: str | None) -> Parsed:
    """A table plug-in's text as a document: the table it reads (no check run), why a
    binary one has nothing to show as text, or where it stops being readable."""
    if plugin.binary:  # a .model or .gguf sent as text: its decoded view shows it
        return Parsed(
            reason=f"a binary {plugin.label} file: open its decoded view (command tokenizer-lsp.decodedVocabulary)",
            path=path,
        )
    try:
        table = plugin.read_bytes(data, path)
    except FormatError as e:
        return unreadable_table(data, path, plugin, str(e))
    return Parsed(plugin.name, TableDocument(data, table, plugin), path=path)


def unreadable_table(data: bytes, path: str | None, plugin, reason: str) -> Parsed:
    """A file of a plug-in's format that it cannot read (broken JSON while typing): one
    finding where the parser stopped, else on the first line; the last good index serves."""
    from .json.errors import _locate

    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):  # a JSON format (tekken): where it stops parsing
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError as err:
            found, _ = _locate(data, err)
            error = Finding("json-syntax", found.start, found.end, f"{plugin.label}: {found.message}")
            return Parsed(plugin.name, None, error=error, path=path)
    end = min(re.search(rb"\r\n|\r|\n|$", data).start(), len(data))  # the first line, without its break
    error = Finding("schema", 0, end, f"{plugin.label}: {reason}")
    return Parsed(plugin.name, None, error=error, path=path)
