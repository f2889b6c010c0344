"""`stats`: the summary of a tokenizer file a user reads first, from our own index.

Everything here comes from the parsed vocabulary and the findings already made
(fragments are the `utf8-fragment` findings); nothing loads an engine. The number of
unreachable tokens is the caller's: the command line computes it in-process, the server
passes the count of the findings it holds (None until they are known); where there is none,
`unreachable_not_computed` says why. A format plug-in's table open in the server gets the
keys the command line gives for it (table_stats.py).
"""

from __future__ import annotations

import heapq
import weakref
from collections import Counter
from itertools import pairwise

from ..decoding.display import visible_text
from ..decoding.listing import entries
from ..decoding.tokens import token_bytes
from ..decoding.utf8 import Utf8Kind, classify

LONGEST = 10  # longest tokens listed
_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # index -> what never changes for it


# models unreachable-token does not cover (BPE only: docs/features.md): check reports none for them
_NOT_TESTED_MODELS = ("WordPiece", "WordLevel", "Unigram")


def summarize(idx, unreachable: int | None = None, why: str | None = None) -> dict:
    """The stats of a DocumentIndex as plain JSON data (snake_case keys). `why`: the reason
    `unreachable` is None, said after "not computed"."""
    v = idx.vocab
    doc = idx.doc
    if getattr(doc, "table", None) is not None and getattr(doc, "plugin", None) is not None:
        raise TypeError("a plug-in's table: table_stats.index_summary gives its stats")
    base = _cache.get(idx)
    if base is None:
        base = _summary(idx, v) if v is not None else _empty(idx)
        _cache[idx] = base
    if base["model_type"] in _NOT_TESTED_MODELS and base["format"] == "tokenizer.json":
        # check finds none in such a model because it does not look, not because there are none
        unreachable, why = None, f"`check` tests BPE models only, and this one is {base['model_type']}"
    out = {**base, "unreachable": unreachable}
    if unreachable is None and why:
        out["unreachable_not_computed"] = why
    return out


def _empty(idx) -> dict:
    return {
        "format": idx.format,
        "model_type": None,
        "byte_level_style": None,
        "vocab_size": 0,
        "vocab_size_with_added": 0,
        "merges": None,
        "added_tokens": 0,
        "added_tokens_outside_vocab": 0,
        "special_tokens": 0,
        "id_range": None,
        "id_gaps": {"ranges": 0, "missing_ids": 0},
        "fragments": 0,
        "longest_tokens": [],
        "token_length_histogram": {},
    }


def _summary(idx, v) -> dict:
    doc = idx.doc
    tokens = v.tokens
    pairs = list(entries(tokens))
    scheme, special, prefix, suffix = v.scheme, v.special, v.subword_prefix, v.word_suffix
    # only the bytes (lengths, the longest): judging each token's UTF-8 shape too cost
    # gemma3 0.4 s, and the file's own utf8-fragment findings already count it
    decoded = [token_bytes(t, scheme, t in special, prefix, suffix) for t, _ in pairs]
    lengths = list(map(len, decoded))
    if idx.format == "merges.txt":  # the findings are the merges'; these are its vocabulary's
        fragments = sum(1 for data in decoded if classify(data) is not Utf8Kind.VALID)
    else:
        fragments = sum(1 for f in idx.findings if f.code == "utf8-fragment")
    added_list = getattr(doc, "added_list", []) or []
    outside = [(t, i) for t, i in v.added.items() if t not in tokens]
    ids = {i for _, i in pairs}
    ids.update(i for _, i in outside)
    # a merges file read alone has no vocabulary: its size is unknown, not 0
    alone = getattr(doc, "without_vocabulary", False)
    return {
        "format": idx.format,
        "model_type": None if idx.format == "tiktoken" else v.model_type,
        "byte_level_style": scheme.value,
        "vocab_size": None if alone else len(tokens),
        "vocab_size_with_added": None if alone else len(tokens) + len(outside),
        "merges": _merge_count(idx, v),
        "added_tokens": len(added_list) if added_list else len(v.added),
        "added_tokens_outside_vocab": len(outside),
        "special_tokens": len(v.special),
        "id_range": [min(ids), max(ids)] if ids else None,
        "id_gaps": _gaps(ids),
        "fragments": fragments,
        "longest_tokens": _longest(pairs, decoded, lengths),
        "token_length_histogram": {str(n): c for n, c in sorted(Counter(lengths).items())},
    }


def _merge_count(idx, v) -> int | None:
    """Merges in the file, without parsing them again: a served index keeps their count."""
    if idx.format in ("tiktoken", "vocab.json") or v.model_type != "BPE":
        return None  # the file lists none (tiktoken: its ranks imply them)
    if idx.format == "merges.txt" or v.merges is not None:
        return len(v.merges or [])
    count = getattr(idx.doc, "merge_count", 0) or getattr(idx.doc, "checked_merge_count", 0)
    if count or idx.lookups_ready:
        return count
    return len(idx.merges())


def _gaps(ids: set[int]) -> dict:
    """How many runs of ids are missing between the lowest and the highest, and how many ids."""
    if not ids:
        return {"ranges": 0, "missing_ids": 0}
    ordered = sorted(ids)
    ranges = sum(1 for a, b in pairwise(ordered) if b - a > 1)
    return {"ranges": ranges, "missing_ids": ordered[-1] - ordered[0] + 1 - len(ordered)}


def _longest(pairs: list, decoded: list[bytes], lengths: list[int]) -> list[dict]:
    top = heapq.nsmallest(LONGEST, range(len(pairs)), key=lambda k: (-lengths[k], pairs[k][1]))
    return [
        {"id": pairs[k][1], "token": pairs[k][0], "text": visible_text(decoded[k]), "bytes": lengths[k]} for k in top
    ]


# ---- text ------------------------------------------------------------------------------

_BUCKETS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 8), (9, 16), (17, 32), (33, None))


def render(stats: dict, path: str | None = None) -> str:
    """The summary as aligned text: what the file is first, then sizes, then details."""
    n = _num
    rows: list[tuple[str, str]] = []
    what: list[str] = []
    for part in (stats["format"], stats.get("model_type"), stats.get("byte_level_style")):
        # a .model is "sentencepiece" in style too, a vocab.txt "wordpiece" in model and style: once
        if part and part.lower() not in (w.lower() for w in what):
            what.append(part)
    rows.append(("format", ", ".join(what)))
    size = (
        n(stats["vocab_size"])
        if stats["vocab_size"] is not None
        else "none: no vocab.json or encoder.json beside this merges file"
    )
    if stats["vocab_size_with_added"] != stats["vocab_size"]:
        size += f" ({n(stats['vocab_size_with_added'])} with added tokens)"
    elif stats.get("vocab_entries_used") is not None:  # tekken: the specials, then the entries it uses
        size += (
            f" ({n(stats['special_tokens'])} special + {n(stats['vocab_entries_used'])} of the "
            f"file's {n(stats['vocab_entries_in_file'])} vocab entries)"
        )
    rows.append(("vocab size", size))
    if stats["merges"] is not None:
        rows.append(("merges", n(stats["merges"])))
    if stats["added_tokens"]:
        added = (
            f"{n(stats['added_tokens'])} ({n(stats['special_tokens'])} special, "
            f"{n(stats['added_tokens_outside_vocab'])} outside the vocab)"
        )
        rows.append(("added tokens", added))
    elif stats["special_tokens"]:  # a file without added tokens (.model, tekken, GGUF): its own specials
        rows.append(("special tokens", n(stats["special_tokens"]) + _specials_detail(stats)))
    if stats["id_range"] is not None:
        lo, hi = stats["id_range"]
        gaps = stats["id_gaps"]
        tail = (
            f", {n(gaps['missing_ids'])} missing in {n(gaps['ranges'])} gap{'s' if gaps['ranges'] != 1 else ''}"
            if gaps["ranges"]
            else ", no gaps"
        )
        rows.append(("ids", f"{lo}..{hi}{tail}"))
    rows.append(("fragments", f"{n(stats['fragments'])} (tokens whose bytes are not valid UTF-8)"))
    rows.append(("unreachable", _unreachable_text(stats)))
    width = max(len(k) for k, _ in rows)
    out = [f"{path}" if path else None]
    out += [f"  {k:<{width}}  {val}" for k, val in rows]
    hist = _buckets(stats["token_length_histogram"])
    if hist:
        out.append("  token length (bytes):")
        total = sum(c for _, c in hist) or 1
        for label, count in hist:
            bar = "#" * max(1, round(40 * count / total)) if count else ""
            out.append(f"    {label:>6}  {n(count):>9}  {bar}")
    if stats["longest_tokens"]:
        out.append("  longest tokens:")
        for t in stats["longest_tokens"]:
            text = t["text"] if len(t["text"]) <= 48 else t["text"][:47] + "…"
            out.append(f"    {t['bytes']:>4} bytes  id {t['id']:<8} {text}")
    return "\n".join(line for line in out if line is not None)


def _specials_detail(stats: dict) -> str:
    """What a format's special tokens are, where it says (tekken: control tokens numbered
    before the vocabulary, as mistral-common's Tekkenizer numbers them)."""
    ids = stats.get("special_ids")
    if ids is None:
        return ""
    n = _num
    control = stats.get("control_tokens")
    what = "control tokens" if control == stats["special_tokens"] else f"{n(control)} of them control tokens"
    named, fillers = stats.get("named_special_tokens"), stats.get("filler_special_tokens")
    names = f": {n(named)} named, {n(fillers)} <SPECIAL_n> fillers" if fillers else ""
    return f" ({what} at ids {ids[0]}..{ids[1]}, before the vocabulary{names})"


def _unreachable_text(stats: dict) -> str:
    u = stats.get("unreachable")
    if u is not None:
        return f"{_num(u)} ({stats.get('unreachable_what') or 'tokens the tokenizer never produces'})"
    why = stats.get("unreachable_not_computed")
    return f"not computed: {why}" if why else "not computed"


def _buckets(histogram: dict) -> list[tuple[str, int]]:
    counts = {int(k): c for k, c in histogram.items()}
    out = []
    for lo, hi in _BUCKETS:
        c = sum(v for k, v in counts.items() if k >= lo and (hi is None or k <= hi))
        label = str(lo) if lo == hi else (f"{lo}+" if hi is None else f"{lo}-{hi}")
        out.append((label, c))
    if counts.get(0):
        out.insert(0, ("0", counts[0]))
    while out and out[-1][1] == 0:
        out.pop()
    return out


def _num(x: int) -> str:
    return f"{x:,}"
