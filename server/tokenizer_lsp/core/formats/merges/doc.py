"""merges.txt / vocab.bpe: an optional `#version` header, then one `a b` merge per line."""

from __future__ import annotations

from array import array

from ... import checks
from ...decoding.tokens import CLIP_SUFFIX, Scheme
from ...detect import is_merges_header
from ...model import Finding, Vocabulary, split_merge
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


def _late_header_message(first: bytes) -> str:
    """A first line with text before its `#version` (CLIP's): a header to CLIP's loader and to
    this tool, a merge to tokenizers' BPE.from_file, which skips only lines starting `#version`."""
    parts = first.rstrip(b"\r").decode("utf-8", "replace").split(" ")
    if len(parts) == 2:
        read = (
            f"reads this one as the merge {checks._q(parts[0])} + {checks._q(parts[1])} "
            f"(Token {checks._q(parts[0])} out of vocabulary)"
        )
    else:
        read = "fails on this one (Merges text file invalid at line 1)"
    return (
        "text before `#version` in the header: CLIP's loader skips the first line, as this tool "
        f"does, but tokenizers' BPE.from_file skips only lines starting with `#version` and {read}; "
        "start the line with `#version` to load the file there"
    )


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

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        first = self.lines[0] if self.lines else b""
        if self.has_header and not self.header_at_start:
            out.append(Finding("merges-header", 0, len(first.rstrip(b"\r")), _late_header_message(first)))
        elif self.bom and self.has_header:
            out.append(
                Finding(
                    "merges-header",
                    0,
                    len(first.rstrip(b"\r")),
                    "the `#version` header starts with a UTF-8 byte order mark: tokenizers' BPE.from_file "
                    "does not see a header there and reads the line as a merge (Token `\\uFEFF#version:` "
                    "out of vocabulary); save the file without the BOM",
                )
            )
        elif not self.has_header and first.strip():
            out.append(
                Finding(
                    "merges-header",
                    0,
                    len(first.rstrip(b"\r")),
                    "no `#version` header: older loaders (transformers' slow GPT2Tokenizer) drop the "
                    "first line of a merges file, losing this merge",
                )
            )
        if self.external_vocab:
            pending = checks.merge_findings(self.vocab)
        else:
            pending = [p for p in checks.merge_findings(self.vocab) if p.code == "merge-malformed"]
        for line in self.blank_lines:
            s = self.starts[line]
            out.append(
                Finding(
                    "merge-malformed",
                    s,
                    s + len(self.lines[line].rstrip(b"\r")),
                    "empty line: a merges file holds one `a b` merge on every line, and "
                    "tokenizers refuses to load one with an empty line",
                )
            )
        for line, at in self.bad_utf8.items():
            s = self.starts[line]
            raw = self.lines[line]
            what = f"byte {raw[at]:02X}"
            n = 1
            if raw[at] == 0xED and len(raw) >= at + 3 and 0xA0 <= raw[at + 1] <= 0xBF and 0x80 <= raw[at + 2] <= 0xBF:
                # a lone surrogate (an editor's text may hold one): its 3 bytes, one character
                n, what = 3, f"the lone surrogate U+{ord(raw[at : at + 3].decode('utf-8', 'surrogatepass')):04X}"
            out.append(
                Finding(
                    "merge-malformed",
                    s + at,
                    s + at + n,
                    f"{what} is not valid UTF-8: a merges file is UTF-8 "
                    "text (tokenizers refuses to load it); this merge is not checked",
                )
            )
        for p in pending:
            line = self.merge_lines[p.ref.key]
            if line in self.bad_utf8:
                continue  # its parts hold U+FFFD for the bad bytes: said once above
            s, e = self._part_span(line, p.ref.part if p.code == "merge-unknown-token" else None)
            out.append(Finding(p.code, s, e, p.message))
        out.sort(key=lambda f: f.start)
        return out

    def _part_span(self, line: int, part: int | None) -> tuple[int, int]:
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
        return self._part_span(self.merge_lines[rank], part)

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
