"""The checks of a merges file (core/formats/merges): its header, its lines, and its
merges against the vocabulary beside it (core/checks/merges.py)."""

from __future__ import annotations

from ... import checks
from ...decoding.display import quoted
from ...model import Finding
from ..parsed import Parsed


def document_findings(parsed: Parsed) -> list[Finding]:
    """merges-header, merge-malformed, and against the vocabulary beside it (when there is
    one) merge-unknown-token and merge-result-missing, in file order."""
    doc = parsed.doc
    out: list[Finding] = []
    first = doc.lines[0] if doc.lines else b""
    if doc.has_header and not doc.header_at_start:
        out.append(Finding("merges-header", 0, len(first.rstrip(b"\r")), _late_header_message(first)))
    elif doc.bom and doc.has_header:
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
    elif not doc.has_header and first.strip():
        out.append(
            Finding(
                "merges-header",
                0,
                len(first.rstrip(b"\r")),
                "no `#version` header: older loaders (transformers' slow GPT2Tokenizer) drop the "
                "first line of a merges file, losing this merge",
            )
        )
    if doc.external_vocab:
        pending = checks.merge_findings(doc.vocab)
    else:
        pending = [p for p in checks.merge_findings(doc.vocab) if p.code == "merge-malformed"]
    for line in doc.blank_lines:
        s = doc.starts[line]
        out.append(
            Finding(
                "merge-malformed",
                s,
                s + len(doc.lines[line].rstrip(b"\r")),
                "empty line: a merges file holds one `a b` merge on every line, and "
                "tokenizers refuses to load one with an empty line",
            )
        )
    for line, at in doc.bad_utf8.items():
        s = doc.starts[line]
        raw = doc.lines[line]
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
        line = doc.merge_lines[p.ref.key]
        if line in doc.bad_utf8:
            continue  # its parts hold U+FFFD for the bad bytes: said once above
        s, e = doc.part_span(line, p.ref.part if p.code == "merge-unknown-token" else None)
        out.append(Finding(p.code, s, e, p.message))
    out.sort(key=lambda f: f.start)
    return out


def _late_header_message(first: bytes) -> str:
    """A first line with text before its `#version` (CLIP's): a header to CLIP's loader and to
    this tool, a merge to tokenizers' BPE.from_file, which skips only lines starting `#version`."""
    parts = first.rstrip(b"\r").decode("utf-8", "replace").split(" ")
    if len(parts) == 2:
        read = (
            f"reads this one as the merge {quoted(parts[0])} + {quoted(parts[1])} "
            f"(Token {quoted(parts[0])} out of vocabulary)"
        )
    else:
        read = "fails on this one (Merges text file invalid at line 1)"
    return (
        "text before `#version` in the header: CLIP's loader skips the first line, as this tool "
        f"does, but tokenizers' BPE.from_file skips only lines starting with `#version` and {read}; "
        "start the line with `#version` to load the file there"
    )
