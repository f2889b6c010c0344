"""Line-based formats: merges.txt / vocab.bpe and .tiktoken rank files."""

from __future__ import annotations

import base64
import binascii
import re
from array import array
from bisect import bisect_right
from itertools import accumulate

from .. import checks
from ..checks import PendingFinding, Ref
from ..decoding.display import hex_head
from ..decoding.tokens import CLIP_SUFFIX, Scheme
from ..decoding.utf8 import short_fragment_kind
from ..model import Finding, Vocabulary, split_merge
from .json_doc import TokenRef

_EOL = re.compile(rb"(\r\n|\r|\n)")


def _split_lines(data: bytes) -> tuple[list[bytes], list[int]]:
    """Lines without their line breaks, and their start offsets (\\n, \\r\\n and \\r end lines)."""
    if b"\r" in data:
        parts = _EOL.split(data)
        lines = parts[0::2]
        starts = [0]
        pos = 0
        for i in range(0, len(parts) - 1, 2):
            pos += len(parts[i]) + len(parts[i + 1])
            starts.append(pos)
        return lines, starts
    lines = data.split(b"\n")
    starts = list(accumulate((len(l) + 1 for l in lines[:-1]), initial=0))
    return lines, starts


class LineDocument:
    """Entries one per line; every position is known from the line split itself."""

    format = ""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.lines, self.starts = _split_lines(data)
        self._starts_arr = array("q", self.starts)
        self.extra: list[Finding] = []

    tables_ready = True

    def build_tables(self) -> None:
        pass

    def _line_at(self, offset: int) -> int:
        return bisect_right(self._starts_arr, offset) - 1

    def token_at(self, offset: int) -> TokenRef | None:
        i = self._line_at(offset)
        for ref in self._refs_on_line(i):
            if ref.start <= offset < ref.end:
                return ref
        return None

    def tokens_in(self, start: int, end: int) -> list[TokenRef]:
        out: list[TokenRef] = []
        first = max(0, self._line_at(start))
        last = self._line_at(max(start, end - 1))
        for i in range(first, last + 1):
            out.extend(r for r in self._refs_on_line(i) if start <= r.start and r.end <= end)
        return out

    def _refs_on_line(self, i: int) -> list[TokenRef]:
        return []  # each format lists the token literals of a line


_BOM = b"\xef\xbb\xbf"


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
        self.has_header = first[len(_BOM) if self.bom else 0 :].startswith(b"#version")
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

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        first = self.lines[0] if self.lines else b""
        if self.bom and self.has_header:
            out.append(Finding(
                "merges-header", 0, len(first.rstrip(b"\r")),
                "the `#version` header starts with a UTF-8 byte order mark: tokenizers' BPE.from_file "
                "does not see a header there and reads the line as a merge (Token `\\uFEFF#version:` "
                "out of vocabulary); save the file without the BOM",
            ))
        elif not self.has_header and first.strip():
            out.append(Finding(
                "merges-header", 0, len(first.rstrip(b"\r")),
                "no `#version` header: older loaders (transformers' slow GPT2Tokenizer) drop the "
                "first line of a merges file, losing this merge",
            ))
        if self.external_vocab:
            pending = checks.merge_findings(self.vocab)
        else:
            pending = [p for p in checks.merge_findings(self.vocab) if p.code == "merge-malformed"]
        for line in self.blank_lines:
            s = self.starts[line]
            out.append(Finding("merge-malformed", s, s + len(self.lines[line].rstrip(b"\r")),
                               "empty line: a merges file holds one `a b` merge on every line, and "
                               "tokenizers refuses to load one with an empty line"))
        for line, at in self.bad_utf8.items():
            s = self.starts[line]
            out.append(Finding("merge-malformed", s + at, s + at + 1,
                               f"byte {self.lines[line][at]:02X} is not valid UTF-8: a merges file is UTF-8 "
                               "text (tokenizers refuses to load it); this merge is not checked"))
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


class TiktokenDocument(LineDocument):
    format = "tiktoken"

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        tokens: dict[str, int] = {}
        self.entry_line: list[int] = []  # ordinal -> line
        self.line_entry: dict[int, tuple[str, int]] = {}
        self.line_findings: list[Finding] = []
        dup_spans: list[tuple[int, int, str]] = []
        repeats: list[tuple[str, int]] = []
        for i, raw in enumerate(self.lines):
            line = raw.rstrip(b"\r")
            if not line:
                continue  # tiktoken's loader skips empty lines (`if line`)
            fields = line.split()  # as tiktoken's loader: any run of whitespace
            start = self.starts[i]
            problem = None
            if len(fields) != 2:
                problem = (f"expected `base64 rank`, found {len(fields)} field{'s' if len(fields) != 1 else ''}"
                           + (" (a line of blanks: tiktoken's loader fails on it)" if not fields else ""))
            else:
                b64, rank = fields
                try:
                    base64.b64decode(b64, validate=True)
                except (binascii.Error, ValueError):
                    problem = f"{checks._q(b64[:40].decode('utf-8', 'replace'))} is not valid base64"
                if not rank.isdigit():
                    problem = f"rank {checks._q(rank[:20].decode('utf-8', 'replace'))} is not a non-negative integer"
            if problem:
                self.line_findings.append(Finding("tiktoken-malformed", start, start + len(line), problem))
                continue
            token = b64.decode("ascii")
            r = int(rank)
            b64_start = start + line.find(b64)
            self.line_entry[i] = (token, r, b64_start)
            if token in tokens:
                # tiktoken builds a dict: the last rank of a repeated token wins
                dup_spans.append((b64_start, b64_start + len(b64), token))
                repeats.append((token, i))
                tokens[token] = r
                continue
            tokens[token] = r
            self.entry_line.append(i)
        if repeats:  # an entry's line is the one whose rank tiktoken keeps: the last
            ordinal = {t: o for o, t in enumerate(tokens)}
            for token, i in repeats:
                self.entry_line[ordinal[token]] = i
        self.vocab = Vocabulary(scheme=Scheme.RAW_BYTES, tokens=tokens)
        self._dups = dup_spans

    def findings(self) -> list[Finding]:
        out = list(self.line_findings)
        pending = checks.id_findings(self.vocab, self._dups)
        for ordinal, token in enumerate(self.vocab.tokens):
            data = base64.b64decode(token)
            if not data.isascii():
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    pending.append(PendingFinding(
                        "utf8-fragment", Ref("vocab", ordinal),
                        f"rank {self.vocab.tokens[token]} = bytes {hex_head(data)}: "
                        f"{short_fragment_kind(data)}",
                    ))
        for p in pending:
            if p.ref.kind == "span":
                s, e = p.ref.key, p.ref.end
            elif p.ref.kind == "vocab":
                _, _, s = self.line_entry[self.entry_line[p.ref.key]]
                e = s + len(self.vocab_key(p.ref.key))
            else:
                s, e = 0, 0
            out.append(Finding(p.code, s, e, p.message))
        out.sort(key=lambda f: f.start)
        return out

    def _refs_on_line(self, i: int) -> list[TokenRef]:
        entry = self.line_entry.get(i)
        if entry is None:
            return []
        token, rank, start = entry
        return [TokenRef(start, start + len(token), "tiktoken", token, rank, None)]

    def vocab_key(self, ordinal: int) -> str:
        return self.line_entry[self.entry_line[ordinal]][0]
