"""Reading a Mistral tekken file (`tekken_*.json`) into a token table, as mistral-common's
`Tekkenizer.from_file` reads it (mistral_common/tokens/tokenizers/tekken.py, 1.13.1):

- special tokens come first: ids 0 .. default_num_special_tokens - 1. A file's own
  `special_tokens` list (v7 and later) names the first ones; a file without one (v3) gets
  `Tekkenizer.DEPRECATED_SPECIAL_TOKENS`; the rest are fillers `<SPECIAL_{id}>`;
- then the vocabulary: entry of rank r has id r + default_num_special_tokens, and only
  the first default_vocab_size - default_num_special_tokens entries are used
  (`_reload_mergeable_ranks(vocab, max_vocab=inner_vocab_size)`).

mistral-common itself is not imported here: it pulls numpy and pydantic into the server
for a list of twenty names (a test checks the copy below against it).

Each entry's place in the text (its `token_bytes` literal, a special token's `token_str`)
is found by one scan for the flat objects of the file, so a hover can find its entry.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass

import orjson

from ..table import FormatError, TableFinding, TableRow, TokenTable

# Tekkenizer.DEPRECATED_SPECIAL_TOKENS (mistral-common 1.13.1): the specials of a file
# without `special_tokens`, all control tokens, rank = place
DEFAULT_SPECIALS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)
FILLER = "<SPECIAL_{id}>"  # Tekkenizer.SPECIAL_TOKEN_TEMPLATE
# the special tokens Tekkenizer's bos_id / eos_id / unk_id / pad_id look up by text
NAMED_SPECIALS = {"unk": "<unk>", "bos": "<s>", "eos": "</s>", "pad": "<pad>"}
# versions whose files must list their specials (TokenizerVersion > v7 raises without them)
_V7 = 7

# a JSON object without nested objects or arrays, strings read whole (a token_str "{" or
# "}" is common): tekken's vocab and special entries, and its config
_STRING = rb'"(?:[^"\\]|\\.)*"'
_FLAT_OBJECT = re.compile(rb"\{(?:" + _STRING + rb'|[^{}\[\]"])*\}', re.S)
_TOKEN_BYTES = re.compile(rb'"token_bytes"\s*:\s*(' + _STRING + rb")")
_SPECIALS_KEY = re.compile(rb'"special_tokens"\s*:\s*\[')
_FIELD = re.compile(rb'"(token_bytes|token_str)"\s*:\s*(' + _STRING + rb"|null)", re.S)


@dataclass(frozen=True)
class TekkenTable(TokenTable):
    """A tekken table, with what the checks need beyond the rows: every vocab entry as
    written (rank, token_bytes, token_str), and the special tokens as the file lists them."""

    entries: tuple = ()  # (rank, token_bytes as written, token_str) per vocab entry
    file_specials: tuple | None = None  # (rank, token_str, is_control) per listed special
    special_spans: tuple = ()  # the token_str literal of each listed special (or None)
    path: str | None = None  # the file it was read from (encode loads Tekkenizer from it)


def sniff(head: bytes, path: str | None = None) -> bool:
    """A JSON object holding `token_bytes` entries with ranks (the vocabulary starts near
    the top: `config` is a few hundred bytes)."""
    from ...detect import TEKKEN_KEYS  # the rule the VS Code client applies too (detect_rules.json)

    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return (
        start.startswith(b"{") and all(k in head for k in TEKKEN_KEYS) and (b'"config"' in head or b'"vocab"' in head)
    )


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _version_number(version) -> int | None:
    m = re.fullmatch(r"v(\d+)(?:m\d+)?", version) if isinstance(version, str) else None
    return int(m.group(1)) if m else None


def read_bytes(data: bytes, path: str | None = None) -> TekkenTable:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise FormatError(f"not valid JSON: {e}") from None
    if not isinstance(obj, dict):
        raise FormatError("a tekken file is a JSON object with `config` and `vocab`")
    config, vocab = obj.get("config"), obj.get("vocab")
    if not isinstance(config, dict) or not isinstance(vocab, list):
        raise FormatError("a tekken file needs a `config` object and a `vocab` list")
    pattern = config.get("pattern")
    size, n_special = _int(config.get("default_vocab_size")), _int(config.get("default_num_special_tokens"))
    if not isinstance(pattern, str) or size is None or n_special is None or size < 0 or n_special < 0:
        raise FormatError(
            "`config` needs `pattern` (a string), `default_vocab_size` and "
            "`default_num_special_tokens` (non-negative integers)"
        )
    version = config.get("version")
    listed = obj.get("special_tokens")
    findings: list[TableFinding] = []

    entries = []
    for i, e in enumerate(vocab):
        if not isinstance(e, dict) or not isinstance(e.get("token_bytes"), str):
            raise FormatError(f"vocab entry {i} is not an object with a `token_bytes` string")
        ts = e.get("token_str")
        entries.append((e.get("rank"), e["token_bytes"], ts if isinstance(ts, str) else None))
    specials: list[tuple] = []
    if listed is None:
        vn = _version_number(version)
        if vn is not None and vn > _V7:
            findings.append(
                TableFinding(
                    "special-id",
                    f"version {version} without `special_tokens`: "
                    "mistral-common refuses the file (Special tokens not found)",
                    key="special_tokens",
                )
            )
        specials = [(i, s, True) for i, s in enumerate(DEFAULT_SPECIALS)]
        file_specials = None
    elif isinstance(listed, list):
        for i, s in enumerate(listed):
            if not isinstance(s, dict) or not isinstance(s.get("token_str"), str):
                raise FormatError(f"special_tokens[{i}] is not an object with a `token_str` string")
            specials.append((s.get("rank"), s["token_str"], bool(s.get("is_control", True))))
        file_specials = tuple(specials)
    else:
        raise FormatError("`special_tokens` is not a list")

    spans, special_spans = _spans(data, entries, len(specials) if file_specials is not None else 0)
    rows: list[TableRow] = []
    row_spans: list = []
    # specials by place, as Tekkenizer's `_all_special_tokens[token_id]`; fillers up to the count
    for i in range(n_special):
        if i < len(specials):
            _, text, _ = specials[i]
        else:
            text = FILLER.format(id=i)
        rows.append(TableRow(i, text, text.encode("utf-8", "surrogatepass"), special=True))
        # a special without a place in the text (a default one, a filler): (0, 0), an empty span
        # at the start, never None (the shared checks unpack every row's span)
        span = special_spans[i] if file_specials is not None and i < len(special_spans) else None
        row_spans.append(span if span is not None else (0, 0))
    inner = max(0, min(size - n_special, len(entries)))
    a2b_base64 = binascii.a2b_base64
    for i in range(inner):
        _, b64, ts = entries[i]
        try:
            raw = a2b_base64(b64)  # = mistral-common's base64.b64decode(token_bytes), without its per-call checks
        except (binascii.Error, ValueError) as e:
            raise FormatError(f"vocab entry {i}: token_bytes is not base64 ({e})") from None
        # the token as stored (docs/formats/tekken.md): token_str, or where the file has none (bytes
        # that are not UTF-8) the token_bytes field itself, never a rendering of the bytes
        token = ts if ts is not None else b64
        rows.append(TableRow(n_special + i, token, raw))
        row_spans.append(spans[i] if spans is not None else (0, 0))
    meta = {
        "version": version,
        "pattern": pattern,
        "default_vocab_size": size,
        "default_num_special_tokens": n_special,
        "num_vocab_tokens": config.get("num_vocab_tokens"),
        "vocab_entries": len(entries),
        "special_tokens_listed": None if file_specials is None else len(file_specials),
    }
    for role, text in NAMED_SPECIALS.items():
        meta[f"{role}_id"] = next((i for i, r in enumerate(rows[:n_special]) if r.token == text), None)
    return TekkenTable(
        format="tekken",
        rows=tuple(rows),
        meta=meta,
        spans=tuple(row_spans) if spans is not None else None,
        read_findings=tuple(findings),
        entries=tuple(entries),
        file_specials=file_specials,
        special_spans=tuple(special_spans),
        path=path,
    )


def read(path: str) -> TekkenTable:
    with open(path, "rb") as f:
        return read_bytes(f.read(), path)


def _spans(data: bytes, entries: list, n_special: int):
    """(the token_bytes literal of each vocab entry, the token_str literal of each listed
    special), in file order; no vocab spans when the scan does not find exactly the entries
    the parser read (then no hover finds an entry, but none points at a wrong one).

    A key `"token_bytes"` cannot occur inside a JSON string (its quotes would be escaped),
    so one scan for it finds the entries; each literal found is compared with the parsed one."""
    vocab_spans = [m.span(1) for m in _TOKEN_BYTES.finditer(data)]
    if len(vocab_spans) != len(entries) or any(
        data[s + 1 : e - 1] != b.encode() for (s, e), (_, b, _) in zip(vocab_spans, entries)
    ):
        vocab_spans = None
    special_spans: list = [None] * n_special
    listed = _SPECIALS_KEY.search(data) if n_special else None
    if listed is not None:
        found = []
        for m in _FLAT_OBJECT.finditer(data, listed.end()):
            f = _FIELD.search(data, m.start(), m.end())
            found.append(f.span(2) if f is not None and f.group(1) == b"token_str" else None)
            if len(found) == n_special:
                break
        if len(found) == n_special:
            special_spans = found
    return vocab_spans, special_spans
