""".tiktoken rank files: `base64(bytes) rank` per line, read exactly as tiktoken reads them.

The parse; the lines tiktoken's loader fails on are its reading's own findings (where the
file stops being loadable, as a JSON syntax error is), every other finding is checks.py's."""

from __future__ import annotations

import base64

from ...decoding.display import quoted
from ...decoding.tokens import Scheme
from ...model import Finding, Vocabulary
from ..json.doc import TokenRef
from ..line_doc import LineDocument

U32_MAX = 0xFFFFFFFF  # tiktoken's Rust core holds ranks as u32; u32::MAX means "no merge"


def _unpack_error(fields: list[bytes]) -> str:
    """What tiktoken's `token, rank = line.split()` raises on this many fields."""
    try:
        _token, _rank = fields
    except ValueError as e:
        return str(e)
    return ""


class TiktokenDocument(LineDocument):
    """A rank file read as tiktoken's loader (tiktoken/load.py, load_tiktoken_bpe) reads it:

        for line in contents.splitlines():
            if not line: continue
            token, rank = line.split()
            ret[base64.b64decode(token)] = int(rank)

    `splitlines` on bytes ends lines at \\n, \\r\\n and \\r only, as LineDocument does;
    `split()` splits at runs of ASCII whitespace; `b64decode` without validate=True drops
    characters outside the base64 alphabet (`=` alone is the empty token); the dict is keyed
    by the decoded bytes, so the last rank of repeated bytes wins. A line is malformed only
    where that code raises. The vocabulary is keyed by the canonical base64 of the bytes (the
    field itself in every real file), so keys and bytes correspond one to one."""

    format = "tiktoken"

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        tokens: dict[str, int] = {}
        self.entry_line: list[int] = []  # ordinal -> line
        # line -> (vocab key, rank, start of the base64 field, its length)
        self.line_entry: dict[int, tuple[str, int, int, int]] = {}
        self.line_findings: list[Finding] = []
        dup_spans: list[tuple[int, int, str]] = []
        # repeated bytes where a field is not the canonical base64: (line, earlier line)
        self.byte_dups: list[tuple[int, int]] = []
        self.odd_ranks = False  # ranks tiktoken reads but its encoder cannot use
        repeats: list[tuple[str, int]] = []
        last_line: dict[str, int] | None = None  # key -> last line (built at the first repeat)
        b64decode, b64encode, starts = base64.b64decode, base64.b64encode, self.starts
        for i, line in enumerate(self.lines):
            if not line:
                continue  # tiktoken's loader skips empty lines (`if not line: continue`)
            fields = line.split()  # as tiktoken's loader: runs of ASCII whitespace
            start = starts[i]
            if len(fields) != 2:
                n = len(fields)
                self.line_findings.append(
                    Finding(
                        "tiktoken-malformed",
                        start,
                        start + len(line),
                        f"expected `base64 rank`, found {n} field{'s' if n != 1 else ''}"
                        + (" (a line of blanks: tiktoken's loader skips only empty lines)" if not n else "")
                        + f": tiktoken's loader fails on this line (ValueError: {_unpack_error(fields)})",
                    )
                )
                continue
            b64, rank = fields
            # `ret[base64.b64decode(token)] = int(rank)`: Python evaluates the right-hand side
            # first, so a bad rank is what tiktoken reports even when the base64 is bad too
            try:
                r = int(rank)
            except ValueError as e:
                self.line_findings.append(
                    Finding(
                        "tiktoken-malformed",
                        start,
                        start + len(line),
                        f"rank {quoted(rank[:20].decode('utf-8', 'replace'))} is not a non-negative "
                        f"integer: tiktoken's loader fails on this line (ValueError: {e})",
                    )
                )
                continue
            try:
                token_bytes = b64decode(b64)
            except ValueError as e:  # binascii.Error
                self.line_findings.append(
                    Finding(
                        "tiktoken-malformed",
                        start,
                        start + len(line),
                        f"{quoted(b64[:100].decode('utf-8', 'replace'))} is not valid base64: tiktoken's "
                        f"loader fails on this line (binascii.Error: {e})",
                    )
                )
                continue
            at = line.find(b64)
            b64_start = start + at
            canonical = b64encode(token_bytes)
            token = canonical.decode("ascii")
            if not 0 <= r < U32_MAX:
                self.odd_ranks = True
                rs = start + line.find(rank, at + len(b64))
                self.line_findings.append(Finding("tiktoken-malformed", rs, rs + len(rank), _odd_rank(r)))
            self.line_entry[i] = (token, r, b64_start, len(b64))
            if token in tokens:
                # tiktoken builds a dict keyed by bytes: the last rank of repeated bytes wins
                if last_line is None:
                    last_line = {e[0]: j for j, e in self.line_entry.items() if j != i}
                earlier = last_line[token]
                if canonical == b64 and self.field(earlier) == b64:
                    dup_spans.append((b64_start, b64_start + len(b64), token))
                else:
                    self.byte_dups.append((i, earlier))
                repeats.append((token, i))
                tokens[token] = r
                last_line[token] = i
                continue
            tokens[token] = r
            self.entry_line.append(i)
            if last_line is not None:
                last_line[token] = i
        if repeats:  # an entry's line is the one whose rank tiktoken keeps: the last
            ordinal = {t: o for o, t in enumerate(tokens)}
            for token, i in repeats:
                self.entry_line[ordinal[token]] = i
        self.vocab = Vocabulary(scheme=Scheme.RAW_BYTES, tokens=tokens)
        self.dups = dup_spans

    def field(self, line: int) -> bytes:
        """The base64 field of an entry's line, as written."""
        _, _, s, n = self.line_entry[line]
        return self.data[s : s + n]

    def stored_fields(self) -> dict[str, str]:
        """vocab key -> its base64 field as the file spells it (`=` for the empty token,
        whose canonical key is ""): what `decode` shows as the stored token."""
        out: dict[str, str] = {}
        for line in self.entry_line:
            key, _, s, n = self.line_entry[line]
            # a field is bytes; anything outside ASCII was dropped by b64decode but is stored
            out[key] = self.data[s : s + n].decode("utf-8", "replace")
        return out

    def ranks(self) -> dict[bytes, int]:
        """bytes -> rank: what tiktoken's load_tiktoken_bpe returns for this file (when it
        does not raise: see the `tiktoken-malformed` findings)."""
        return {base64.b64decode(t): r for t, r in self.vocab.tokens.items()}

    def vocab_span(self, ordinal: int) -> tuple[int, int] | None:
        """The base64 field of the rank's line (the last line of repeated bytes)."""
        if not 0 <= ordinal < len(self.entry_line):
            return None
        _, _, s, n = self.line_entry[self.entry_line[ordinal]]
        return s, s + n

    def _refs_on_line(self, i: int) -> list[TokenRef]:
        entry = self.line_entry.get(i)
        if entry is None:
            return []
        token, rank, start, n = entry
        # the token is the canonical base64 of the bytes: what decodes them; the range is the field
        return [TokenRef(start, start + n, "tiktoken", token, rank, None)]

    def vocab_key(self, ordinal: int) -> str:
        return self.line_entry[self.entry_line[ordinal]][0]


def _odd_rank(r: int) -> str:
    shown = str(r) if len(str(r)) <= 24 else f"{str(r)[:20]}… ({len(str(r))} digits)"
    if r == U32_MAX:
        return (
            f"rank {r} is u32::MAX, tiktoken's \"no merge\" marker: its byte-pair merging never "
            "produces this token (only a piece of exactly these bytes encodes to it)"
        )
    what = "negative" if r < 0 else f"above {U32_MAX}"
    return (
        f"rank {shown} is {what}: tiktoken's loader reads it, but its encoder holds ranks as "
        "unsigned 32-bit integers, so building an Encoding from this file fails "
        "(OverflowError: out of range integral type conversion attempted)"
    )
