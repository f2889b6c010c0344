"""Broken JSON: a json-syntax finding where the parser stopped, and what can still be learnt.

A tokenizer.json that does not parse (truncated, a stray comma, a bad byte) still holds
intact pieces: the sections before the model, the model's vocabulary before the error,
or the whole model when the error lies before it. Each piece is cut out of the original
bytes by its brackets and parsed with orjson on the slice, so every position stays that
of the file. A JsonDocument built from the pieces answers hovers and inlay hints, and
only the checks that hold on partial data run (json/checks.py salvaged_findings, on the
flags set here):

- utf8-fragment and duplicate-token / duplicate-id within what was recovered, always;
- not-byte-level only when the file's own decoder / pre_tokenizer / normalizer say
  byte-level and the added tokens (which are exempt) are known;
- added-token-mismatch when the added tokens were recovered;
- id-gap only when the whole vocabulary and the added tokens were recovered (a part
  would make every later id a gap).
Merges are parsed for hovers and hints (with a whole vocabulary only, and up to
MERGES_BUDGET bytes of them) but not checked: against a partial vocabulary every later
token would be "missing", and against a whole one the check costs as much as indexing
the file, which happens once it parses again.

The json-syntax finding comes first, the others after it in file order: VS Code shows
only the first 1000 diagnostics of a file, and the reason the file cannot load must be
among them. Nothing here raises: any failure falls back to the json-syntax finding alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from ...decoding.bytemap import BYTE_TO_CHAR
from ...decoding.tokens import Scheme
from ...detect import claims_vocab_json
from ...model import Finding
from .doc import JsonDocument
from .errors import _error_base, _locate
from .layout import (
    key_count_estimate,
    object_key_spans,
    value_start,
)
from .pieces import _loads, _section, _strip_comma, parse_prefix, parse_value

_BOM = b"\xef\xbb\xbf"
_WS = b" \t\r\n"
_SECTIONS = ("added_tokens", "normalizer", "pre_tokenizer", "decoder")
# bytes of model.merges parsed at most (for hovers and hints on them): about 0.15 s of
# orjson; qwen3's and llama3's fit, gemma3's 25 MB do not
MERGES_BUDGET = 8 << 20


@dataclass
class Salvaged:
    """What a broken JSON file still tells."""

    error: Finding  # the json-syntax finding
    doc: JsonDocument | None = None  # built from the recovered pieces (None: nothing)
    vocab_complete: bool = False
    # which checks hold on it (json/checks.py salvaged_findings): the added tokens were
    # recovered; the sections that declare the scheme (normalizer, pre_tokenizer, decoder) were
    added_known: bool = True
    scheme_trusted: bool = True
    merges_recovered: int | None = None  # merges parsed (None: none, e.g. vocab partial)


def salvage(data: bytes, err: orjson.JSONDecodeError | None = None, path: str | None = None) -> Salvaged:
    """The json-syntax finding of a broken JSON file and what its intact parts tell.
    `err`: orjson's error on the whole of data, when the caller has it."""
    try:
        base = _error_base(err, data) if err is not None else 0
        if base is None:
            err, base = None, 0  # from a piece parsed apart: parse the file again
        error, limit = _locate(data, err, base)
    except Exception:
        error, limit = Finding("json-syntax", 0, min(1, len(data)), "invalid JSON"), 0
    out = Salvaged(error)
    try:
        _recover(data, limit, path, out)
    except Exception:  # a file broken in a way not foreseen: the finding alone
        out.doc = None
    return out


def _recover(data: bytes, limit: int, path: str | None, out: Salvaged) -> None:
    model_at = value_start(data, "model")
    if model_at is None or data[model_at] != 0x7B:
        _recover_vocab_json(data, limit, path, out)
        return
    # the sections before the model: the added tokens, and what decides the scheme. One
    # missing counts as absent only when the text before the model is intact (the break
    # could have eaten its name)
    intact_head = limit > model_at
    sections = {key: _section(data, key, model_at, limit) for key in _SECTIONS}

    def known(key: str) -> bool:
        status = sections[key][0]
        return status == "ok" or (status == "absent" and intact_head)

    if sections["added_tokens"][0] == "absent" and data.find(b'"added_tokens"', model_at) >= 0:
        sections["added_tokens"] = ("broken", None)  # after the model (or a token so named): unknown
    added = sections["added_tokens"][1]
    added_known = known("added_tokens") and (added is None or isinstance(added, list))
    config_known = all(known(k) for k in ("normalizer", "pre_tokenizer", "decoder"))

    found = _recover_model(data, model_at, limit)
    if found is None:
        return
    model, vocab_complete, vocab_end, merges = found
    obj = {"model": model, "added_tokens": added if added_known and isinstance(added, list) else []}
    for key in ("normalizer", "pre_tokenizer", "decoder"):
        status, value = sections[key]
        if status == "ok":
            obj[key] = value
    doc = JsonDocument(data, obj, "tokenizer.json")
    if not config_known and doc.vocab.scheme is Scheme.LITERAL:
        doc.vocab.scheme = _guess_scheme(doc.vocab.tokens, model)
    _set_key_count(doc, data, vocab_end)
    out.doc = doc
    out.vocab_complete = vocab_complete
    out.merges_recovered = len(merges) if merges is not None else None
    out.added_known, out.scheme_trusted = added_known, config_known


def _recover_model(data: bytes, model_at: int, limit: int):
    """(model dict, vocab complete?, end of the recovered vocab text, merges or None)
    from the model object at model_at, whose text is intact up to `limit`; None when no
    vocabulary is left. The merges are kept only with a whole vocabulary (checked
    against a part of it, every later token would be "missing")."""
    vocab_at = value_start(data, "vocab", model_at + 1)
    if vocab_at is None:
        return None
    # the model's scalars before its vocab (type, byte_fallback, ...), unless the break
    # lies among them (then they do not parse)
    head: dict = {}
    key_at = data.rfind(b'"vocab"', model_at, vocab_at)
    if key_at > model_at:
        value = _loads(data, model_at, _strip_comma(data, model_at + 1, key_at), b"}")
        head = value if isinstance(value, dict) else {}
    merges_at = value_start(data, "merges", vocab_at + 1)
    if merges_at is not None and data[merges_at] != 0x5B:
        merges_at = None
    # HF writes the merges right after the vocab: its end is the last brace before them
    hint = data.rfind(b"}", vocab_at, merges_at) + 1 if merges_at is not None and data[vocab_at] == 0x7B else 0
    if vocab_at < limit:
        found = parse_value(data, vocab_at, limit, hint if 0 < hint <= limit else None)
        complete = found is not None
        if found is None:
            found = parse_prefix(data, vocab_at, limit)
    else:  # the break lies before the vocab: it may be whole
        found = parse_value(data, vocab_at, None, hint or None)
        complete = found is not None
    if found is None or not isinstance(found[0], (dict, list)) or not found[0]:
        return None
    vocab, vocab_end = found
    merges = None
    # merges serve hovers and hints only (they are not checked): past a budget, parsing
    # them costs more than they are worth while the file is broken
    within_budget = merges_at is not None and min(limit, len(data)) - merges_at <= MERGES_BUDGET
    if merges_at is not None and merges_at >= limit:
        within_budget = len(data) - merges_at <= MERGES_BUDGET
    if complete and within_budget and merges_at >= vocab_end:
        if merges_at < limit:
            # intact before the break: whole if it closes before it (the cut points of
            # parse_prefix then find its last merge), else its first part
            tail = trailing_close(data, merges_at, limit)
            found = parse_value(data, merges_at, None, tail, scan=False) if tail is not None else None
            if found is None:
                found = parse_prefix(data, merges_at, limit)
        else:
            found = parse_value(data, merges_at, None, trailing_close(data, merges_at))
        merges = found[0] if found is not None and isinstance(found[0], list) else None
    model = {k: v for k, v in head.items() if k not in ("vocab", "merges")}
    model["vocab"] = vocab
    if merges is not None:
        model["merges"] = merges
    if not isinstance(model.get("type"), str):
        model["type"] = "Unigram" if isinstance(vocab, list) else "BPE"
    return model, complete, vocab_end, merges


def trailing_close(data: bytes, start: int, end: int | None = None) -> int | None:
    """End of the array or object opening at `start` if it is the last value of the
    model, itself the root's last (as HF writes the merges): the bracket before the last
    two braces before `end`. Only a guess: callers parse to verify."""
    end = len(data) if end is None else end
    for _ in range(2):
        end = _skip_back(data, end, start)
        if end <= start or data[end - 1] != 0x7D:
            return None
        end -= 1
    end = _skip_back(data, end, start)
    closer = 0x5D if data[start] == 0x5B else 0x7D
    return end if end > start + 1 and data[end - 1] == closer else None


def _skip_back(data: bytes, end: int, floor: int) -> int:
    while end > floor and data[end - 1] in _WS:
        end -= 1
    return end


def _recover_vocab_json(data: bytes, limit: int, path: str | None, out: Salvaged) -> None:
    """A GPT-2 vocab.json (one token -> id object): its entries before the break."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    while start < len(data) and data[start] in _WS:
        start += 1
    if start >= len(data) or data[start] != 0x7B:
        return
    found = parse_value(data, start, limit) if limit > start else None
    complete = found is not None
    if found is None:
        found = parse_prefix(data, start, limit) if limit > start else None
    if found is None or not isinstance(found[0], dict) or not found[0]:
        return
    obj = found[0]
    if not all(type(v) is int for v in obj.values()):
        return
    if not claims_vocab_json(obj, path):
        return
    doc = JsonDocument(data, obj, "vocab.json")
    _set_key_count(doc, data, found[1])
    out.doc = doc
    out.vocab_complete = complete


def _guess_scheme(tokens, model: dict) -> Scheme:
    """The scheme when the sections that declare it are broken: from the vocabulary."""
    if model.get("byte_fallback") is True or ("<0x41>" in tokens and "<0xE2>" in tokens):
        return Scheme.SENTENCEPIECE
    if "Ġ" in tokens and sum(1 for c in BYTE_TO_CHAR if c in tokens) >= 250:
        return Scheme.BYTE_LEVEL
    return Scheme.LITERAL


def _set_key_count(doc: JsonDocument, data: bytes, end: int) -> None:
    """The number of vocab keys as written in the recovered text (duplicates included),
    set before the document counts them past the break."""
    if doc.vocab_start is None or doc.unigram:
        return
    n = key_count_estimate(data, doc.vocab_start, end)
    if n <= len(doc.vocab.tokens):
        doc.__dict__["source_key_count"] = len(doc.vocab.tokens)
        return
    spans = [s for s in object_key_spans(data, doc.vocab_start) if s[1] <= end]
    doc._exact_key_spans = spans
    doc.__dict__["source_key_count"] = max(len(spans), len(doc.vocab.tokens))
