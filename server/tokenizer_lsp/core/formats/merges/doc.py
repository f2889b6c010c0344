"""merges.txt / vocab.bpe: an optional `#version` header, then one `a b` merge per line.

The parse; its findings are checks.py's."""

from __future__ import annotations

from array import array

from ...decoding.tokens import CLIP_SUFFIX, Scheme
from ...detect import is_merges_header
from ...model import Vocabulary, split_merge
from ..json.doc import TokenRef
from ..line_doc import LineDocument

_BOM = b"\xef\xbb\xbf"
# said by `check` (a note) and `stats` for a merges file read without its vocabulary
NO_VOCABULARY = (
    "no vocabulary beside it (vocab.json or encoder.json): its merges were checked for their "
    "form only, not against a vocabulary (give one: `check VOCAB.json MERGES.txt`)"
)


def merges_word_suffix(merges: list[str]) -> str:
    """CLIP's end-of-word suffix when the merges use it (its merges end words with `</w>`:
    `l o</w>`); a look at the first merges is enough."""
    head = merges[:2000]
    ends = sum(1 for m in head if m.endswith(CLIP_SUFFIX))
    return CLIP_SUFFIX if head and ends * 10 >= len(head) else ""


class MergesDocument(LineDocument):
    format = "merges.txt"

    def __init__(self, data: bytes, vocab: Vocabulary | None = None) -> None:
        super().__init__(data)
        lines = self.lines
        if len(lines) > 1 and lines[-1] == b"":  # the break ending the last line opens no line
            lines = lines[:-1]
        self.external_vocab = vocab is not None
        first = lines[0] if lines else b""
        self.bom = first.startswith(_BOM)
        # the header: `#version: 0.2` (tokenizers skips a line starting so), also with text
        # before it: CLIP's bpe_simple_vocab_16e6.txt starts `"bpe_simple_vocab_16e6.txt#version:
        # 0.2` and its loader drops the first line whatever it holds (detect.py's rule)
        self.header_at_start = first[len(_BOM) if self.bom else 0 :].startswith(b"#version")
        self.has_header = self.header_at_start or is_merges_header(first.rstrip(b"\r"))
        merges: list[str] = []
        self.bad_utf8: dict[int, int] = {}  # line -> offset in it of the first invalid byte
        self.blank_lines: list[int] = []
        self.merge_lines: list[int] = []
        self.rank_of_line: dict[int, int] = {}
        for i in range(1 if self.has_header else 0, len(lines)):
            raw = lines[i].rstrip(b"\r")
            if raw.startswith(b"#version"):
                continue  # tokenizers skips such a line wherever it is
            if not raw.strip():
                # tokenizers (BPE.from_file) fails on it: "Merges text file invalid at line N"
                self.blank_lines.append(i)
                continue
            self.rank_of_line[i] = len(merges)
            self.merge_lines.append(i)
            try:
                merges.append(raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                self.bad_utf8[i] = e.start
                merges.append(raw.decode("utf-8", "replace"))
        self.vocab = Vocabulary(
            scheme=Scheme.BYTE_LEVEL,
            tokens=vocab.tokens if vocab else {},
            merges=merges,
            merges_as_pairs=False,
            word_suffix=(vocab.word_suffix if vocab and vocab.word_suffix else merges_word_suffix(merges)),
        )

    @property
    def without_vocabulary(self) -> bool:
        return not self.external_vocab

    def part_span(self, line: int, part: int | None) -> tuple[int, int]:
        """The offending part of a merge line (its first or second token), else the line."""
        raw = self.lines[line].rstrip(b"\r")
        s = self.starts[line]
        sep = raw.find(b" ")
        if part is None or sep < 0:
            return s, s + len(raw)
        return (s, s + sep) if part == 0 else (s + sep + 1, s + len(raw))

    def merge_span(self, rank: int, part: int | None = None) -> tuple[int, int] | None:
        """Source range of a merge line (part None) or of one of its two parts."""
        if not 0 <= rank < len(self.merge_lines):
            return None
        return self.part_span(self.merge_lines[rank], part)

    def merge_columns(self) -> tuple[array, array, array]:
        """Parts and results of every merge as ordinals of the paired vocabulary (-1: none)."""
        tokens = self.vocab.tokens
        ordinal = dict(zip(tokens, range(len(tokens))))
        columns = (array("i"), array("i"), array("i"))
        for m in self.vocab.merges or []:
            a, _, b = m.partition(" ")
            for column, value in zip(columns, (a, b, self.vocab.merge_result(a, b))):
                column.append(ordinal.get(value, -1))
        return columns

    def merge_at(self, rank: int) -> tuple[str, str] | None:
        merges = self.vocab.merges or []
        return split_merge(merges[rank], False) if 0 <= rank < len(merges) else None

    def _refs_on_line(self, i: int) -> list[TokenRef]:
        rank = self.rank_of_line.get(i)
        if rank is None:
            return []
        raw = self.lines[i].rstrip(b"\r")
        start = self.starts[i]
        sep = raw.find(b" ")
        text = self.vocab.merges[rank]
        if sep < 0:
            return [TokenRef(start, start + len(raw), "merge", text, rank, None)]
        a, _, b = text.partition(" ")
        return [
            TokenRef(start, start + sep, "merge", a, rank, 0),
            TokenRef(start + sep + 1, start + len(raw), "merge", b, rank, 1),
        ]
