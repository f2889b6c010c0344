"""The checks of a `.tiktoken` rank file (core/formats/tiktoken): repeated bytes, missing
ranks, tokens that are not UTF-8 alone; the reader's malformed lines come first."""

from __future__ import annotations

import base64

from ... import checks
from ...decoding.display import hex_head, quoted
from ...decoding.tokens import Scheme
from ...decoding.utf8 import short_fragment_kind
from ...model import Finding, PendingFinding, Ref, Vocabulary
from ..parsed import Parsed
from .doc import U32_MAX


def document_findings(parsed: Parsed) -> list[Finding]:
    """The reader's malformed lines, then duplicate-token, id-gap (of the ranks) and
    utf8-fragment, in file order."""
    doc = parsed.doc
    out = list(doc.line_findings)
    pending = checks.id_findings(doc.vocab, doc.dups)
    if doc.odd_ranks:
        # gaps among the ranks tiktoken's encoder can hold: -5 or 2**40 would make every
        # rank between them and the others look missing (their lines have their own error)
        pending = [p for p in pending if p.code != "id-gap"]
        keys = list(doc.vocab.tokens)
        sane = [o for o, r in enumerate(doc.vocab.tokens.values()) if 0 <= r < U32_MAX]
        sub = Vocabulary(scheme=Scheme.RAW_BYTES, tokens={keys[o]: doc.vocab.tokens[keys[o]] for o in sane})
        for p in checks.id_findings(sub):
            if p.code == "id-gap":
                ref = Ref("vocab", sane[p.ref.key]) if p.ref.kind == "vocab" else p.ref
                pending.append(PendingFinding(p.code, ref, p.message))
    for i, earlier in doc.byte_dups:
        token, _, s, n = doc.line_entry[i]
        data = base64.b64decode(token)
        pending.append(
            PendingFinding(
                "duplicate-token",
                Ref("span", s, s + n),
                f"{quoted(doc.field(i).decode('utf-8', 'replace'))} decodes to the same bytes "
                f"({hex_head(data) if data else 'none: the empty token'}) as "
                f"{quoted(doc.field(earlier).decode('utf-8', 'replace'))} on line {earlier + 1}: "
                f"tiktoken keys its ranks by bytes, so the last rank ({doc.vocab.tokens[token]}) wins "
                "and the earlier entry is lost",
            )
        )
    for ordinal, token in enumerate(doc.vocab.tokens):
        data = base64.b64decode(token)
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                pending.append(
                    PendingFinding(
                        "utf8-fragment",
                        Ref("vocab", ordinal),
                        f"rank {doc.vocab.tokens[token]} = bytes {hex_head(data)}: {short_fragment_kind(data)}",
                    )
                )
    for p in pending:
        if p.ref.kind == "span":
            s, e = p.ref.key, p.ref.end
        elif p.ref.kind == "vocab":
            _, _, s, n = doc.line_entry[doc.entry_line[p.ref.key]]
            e = s + n
        else:
            s, e = 0, 0
        out.append(Finding(p.code, s, e, p.message))
    out.sort(key=lambda f: f.start)
    return out
