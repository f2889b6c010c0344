"""`diff`: what differs between two tokenizers by meaning, not by bytes.

Both files are read by our own parsers (no engine: diff/sides.py): config sections compare as parsed
JSON values, model flags with an absent flag read as `tokenizers`' default, vocabularies
as token -> id maps, merges as ranked pairs whatever their serialization (`"a b"` and
`["a", "b"]` are the same merge), added tokens by content. Only what differs is listed.

The comparisons run on whole maps and lists (dict and set operations in C): a 150k-entry
vocabulary and its merges compare in a few tens of milliseconds when nothing differs.
"""

from __future__ import annotations

from bisect import bisect_left
from operator import methodcaller

from ...decoding.display import visible_text
from ...index.document import collector_paused
from .flat import added_at, converted_pair, split_added
from .sides import SECTIONS, Side
from .verdict import verdicts

# a flag a tokenizer.json leaves out means tokenizers' default (models/*/serialization.rs)
MODEL_DEFAULTS: dict[str, dict] = {
    "BPE": {
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
    },
    "WordPiece": {"unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100},
    "WordLevel": {"unk_token": "<unk>"},
    "Unigram": {"unk_id": None, "byte_fallback": False},
}
ADDED_DEFAULTS = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": True, "special": False}
_EMPTY_IS_NONE = ("continuing_subword_prefix", "end_of_word_suffix")
_COUNT_SPACES = methodcaller("count", " ")
_NONE = object()  # equal to no id


# ---- comparing -------------------------------------------------------------------------


def compare(old: Side, new: Side) -> dict:
    """The differences as plain JSON data; `same` is True when nothing is listed."""
    with collector_paused():  # set operations make a tuple per entry: no collection passes
        return _compare(old, new)


def _compare(old: Side, new: Side) -> dict:
    out: dict = {
        "old": {"path": old.path, "format": old.format, "model_type": old.model_type, "style": old.scheme.value},
        "new": {"path": new.path, "format": new.format, "model_type": new.model_type, "style": new.scheme.value},
        "config": _config(old, new),
        "model": _model(old, new),
        "vocab": _vocab(old, new),
        "merges": _merges(old, new),
        "added_tokens": _added(old, new),
        "notes": _notes(old, new),
    }
    if old.types is not None and new.types is not None:  # both formats store piece types
        out["types"] = _types(old, new)
    elif converted_pair(old, new) is not None:  # a GGUF against its HF source: types as converted
        out["types"] = sorted(out["added_tokens"].pop("types"), key=lambda e: _id_order(e["id"]))
    out["added_tokens"].pop("types", None)
    v = out["vocab"]
    if v["added"] or v["removed"] or v["renumbered"]:
        ko, kn, _, _ = _keyed(old, new)
        out["verdict"] = verdicts(old, new, v, len(ko.items() & kn.items()), len(ko.keys() & kn.keys()))
    else:
        out["verdict"] = []
    out["counts"] = counts(out)
    out["same"] = not any(out["counts"].values())
    return out


def _types(old: Side, new: Side) -> list[dict]:
    """Tokens both files hold whose piece type differs (NORMAL -> CONTROL...), by new id."""
    changed = [(t, a, new.types[t]) for t, a in old.types.items() if t in new.types and new.types[t] != a]
    changed.sort(key=lambda x: _id_order(new.vocab.get(x[0]) if new.vocab else 0))
    return [
        {
            "token": t,
            "text": new.text_of(t),
            "id": new.vocab.get(t) if new.vocab else None,
            "old_type": a,
            "new_type": b,
        }
        for t, a, b in changed
    ]


def counts(d: dict) -> dict:
    """How many differences of each kind (what the text rendering says first)."""
    v, m, a = d["vocab"], d["merges"], d["added_tokens"]
    c = {
        "config_sections": len(d["config"]),
        "model_flags": len(d["model"]),
        "vocab_added": len(v["added"]),
        "vocab_removed": len(v["removed"]),
        "vocab_renumbered": len(v["renumbered"]),
        "vocab_rescored": len(v["rescored"]),
        "merges_added": len(m["added"]),
        "merges_removed": len(m["removed"]),
        "merges_reranked": len(m["reranked"]),
        "added_tokens_added": len(a["added"]),
        "added_tokens_removed": len(a["removed"]),
        "added_tokens_changed": len(a["changed"]),
    }
    if "types" in d:
        c["types_changed"] = len(d["types"])
    if d.get("text") is not None:
        c["text_encodings"] = 0 if d["text"]["old_ids"] == d["text"]["new_ids"] else 1
    return c


def with_text(
    d: dict,
    text: str,
    old_ids: list[int],
    new_ids: list[int],
    old_tokens: list[str] | None = None,
    new_tokens: list[str] | None = None,
) -> dict:
    """Add the two encodings of `text` (and whether they differ) to a comparison."""
    d["text"] = {
        "text": text,
        "old_ids": old_ids,
        "new_ids": new_ids,
        "old_count": len(old_ids),
        "new_count": len(new_ids),
        "count_change": len(new_ids) - len(old_ids),
        "old_tokens": old_tokens,
        "new_tokens": new_tokens,
    }
    d["counts"] = counts(d)
    d["same"] = not any(d["counts"].values())
    return d


def _config(old: Side, new: Side) -> list[dict]:
    if old.config is None or new.config is None:
        return []
    out = []
    for name in SECTIONS:
        a, b = old.config.get(name), new.config.get(name)
        if a != b and _meaning(a) != _meaning(b):
            out.append({"section": name, "old": a, "new": b, "changes": value_changes(a, b, name)})
    return out


# a Sequence's list of steps, by section type (tokenizers' serialization)
_STEPS = ("normalizers", "pretokenizers", "processors", "decoders")


def _meaning(section):
    """A section as it acts: a Sequence of no steps does what no section does (`normalizer:
    null` and `{"type": "Sequence", "normalizers": []}` leave every text as it is)."""
    if (
        isinstance(section, dict)
        and section.get("type") == "Sequence"
        and any(section.get(k) == [] for k in _STEPS)
        and len(section) == 2
    ):
        return None
    return section


def value_changes(a, b, path: str, limit: int = 50) -> list[dict]:
    """The leaves that differ between two JSON values, by path (`normalizers[0].type`)."""
    out: list[dict] = []

    def walk(x, y, p: str) -> None:
        if len(out) >= limit or x == y:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in list(dict.fromkeys([*x, *y])):
                walk(x.get(k), y.get(k), f"{p}.{k}")
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (xi, yi) in enumerate(zip(x, y)):
                walk(xi, yi, f"{p}[{i}]")
        else:
            out.append({"path": p, "old": x, "new": y})

    walk(a, b, path)
    return out


def _model(old: Side, new: Side) -> list[dict]:
    out = []
    if old.model_type != new.model_type:
        out.append({"flag": "type", "old": old.model_type, "new": new.model_type})
    defaults_old = MODEL_DEFAULTS.get(old.model_type, {})
    defaults_new = MODEL_DEFAULTS.get(new.model_type, {})
    for k in dict.fromkeys([*defaults_old, *old.model, *new.model]):
        a, b = old.model.get(k, defaults_old.get(k)), new.model.get(k, defaults_new.get(k))
        if k in _EMPTY_IS_NONE:  # BPE prepends or appends nothing either way
            a, b = a or None, b or None
        if a != b:
            out.append({"flag": k, "old": a, "new": b})
    return out


def _keyed(old: Side, new: Side) -> tuple[dict, dict, dict, dict]:
    """Both vocabularies keyed alike: by the stored form when both files store tokens the
    same way, else by their bytes (a tokenizer.json against a .tiktoken). Also key -> stored."""
    if old.scheme == new.scheme:
        return old.vocab, new.vocab, {}, {}
    ko, so = old.by_bytes()
    kn, sn = new.by_bytes()
    return ko, kn, so, sn


def _vocab(old: Side, new: Side) -> dict:
    out: dict = {"added": [], "removed": [], "renumbered": [], "rescored": []}
    if old.vocab is None or new.vocab is None:
        return out
    if old.scores is not None and new.scores is not None and old.scores != new.scores:
        for token, score in old.scores.items():
            if token in new.scores and new.scores[token] != score:
                out["rescored"].append(
                    {"token": token, "text": new.text_of(token), "old_score": score, "new_score": new.scores[token]}
                )
    ko, kn, so, sn = _keyed(old, new)
    if ko == kn:
        return out

    def show(side: Side, stored: dict, key) -> dict:
        if stored:  # keyed by bytes: the key is what the token stands for, decoded already
            return {"token": stored.get(key, key), "text": visible_text(key)}
        return {"token": key, "text": side.text_of(key)}

    flat = converted_pair(old, new)
    held = added_at(flat) if flat is not None else {}  # a GGUF's added tokens: content -> id
    for key in sorted(ko.keys() - kn.keys(), key=lambda k: _id_order(ko[k])):
        if flat is new and held.get(so.get(key, key), _NONE) == ko[key]:
            continue  # the GGUF holds it as an added token at that id: the same token
        out["removed"].append({**show(old, so, key), "id": ko[key]})
    for key in sorted(kn.keys() - ko.keys(), key=lambda k: _id_order(kn[k])):
        if flat is old and held.get(sn.get(key, key), _NONE) == kn[key]:
            continue
        out["added"].append({**show(new, sn, key), "id": kn[key]})
    moved = [(key, i) for key, i in ko.items() - kn.items() if key in kn]
    for key, i in sorted(moved, key=lambda kv: _id_order(kv[1])):
        out["renumbered"].append({**show(new, sn, key), "old_id": i, "new_id": kn[key]})
    return out


def _id_order(tid) -> tuple:
    """Ids in order; an id that is not an integer (a `schema` finding) after them all."""
    return (0, tid, "") if type(tid) is int else (1, 0, repr(tid))


def merge_keys(merges: list) -> list:
    """Each merge as one comparable key: `"a b"` for both forms when that reads one way; a
    pair whose parts hold a space, or a string that is not two parts, stays apart."""
    types = set(map(type, merges))
    if types == {str} and all(map((1).__eq__, map(_COUNT_SPACES, merges))):
        return merges  # every string splits one way: it is its own key
    if types == {list}:
        try:
            keys = list(map(" ".join, merges))
        except TypeError:  # a part that is not a string
            return [("other", repr(m)) for m in merges]
        if sum(map(_COUNT_SPACES, keys)) == len(keys) and all(len(m) == 2 for m in merges):
            return keys
        return [k if k.count(" ") == 1 and len(m) == 2 else ("pair", *m) for k, m in zip(keys, merges)]
    out = []
    for m in merges:
        if type(m) is str:
            out.append(m if m.count(" ") == 1 else ("string", m))
        elif type(m) is list and len(m) == 2 and all(type(p) is str for p in m):
            k = " ".join(m)
            out.append(k if k.count(" ") == 1 else ("pair", *m))
        else:
            out.append(("other", repr(m)))
    return out


def _ranks(keys: list) -> dict:
    """key -> its lowest rank (a repeated merge keeps its first place, as tokenizers does)."""
    ranks = dict(zip(keys, range(len(keys))))
    if len(ranks) != len(keys):
        ranks = {}
        for rank, key in enumerate(keys):
            ranks.setdefault(key, rank)
    return ranks  # in rank order


def _merges(old: Side, new: Side) -> dict:
    out: dict = {"added": [], "removed": [], "reranked": []}
    if old.merges is None or new.merges is None:
        return out
    ok, nk = merge_keys(old.merges), merge_keys(new.merges)
    if ok == nk:
        return out
    ro, rn = _ranks(ok), _ranks(nk)
    for key in sorted(ro.keys() - rn.keys(), key=ro.__getitem__):
        out["removed"].append({"merge": _parts(key), "rank": ro[key]})
    for key in sorted(rn.keys() - ro.keys(), key=rn.__getitem__):
        out["added"].append({"merge": _parts(key), "rank": rn[key]})
    # the common merges in the new order, by old rank: any fall is a change of order; the
    # fewest merges that moved are those off a longest rising run
    common = [key for key in rn if key in ro]
    olds = list(map(ro.__getitem__, common))
    if olds != sorted(olds):
        keep = _longest_rising(olds)
        for k, key in enumerate(common):
            if k not in keep:
                out["reranked"].append({"merge": _parts(key), "old_rank": ro[key], "new_rank": rn[key]})
    return out


def _parts(key) -> list:
    if isinstance(key, str):
        return key.split(" ")
    return list(key[1:]) if key[0] == "pair" else [key[1]]


def _longest_rising(seq: list[int]) -> set[int]:
    """Positions of one longest strictly rising subsequence (patience sorting)."""
    tails: list[int] = []  # smallest tail value of a rising run of each length
    tail_at: list[int] = []  # its position
    prev = [-1] * len(seq)
    for i, x in enumerate(seq):
        j = bisect_left(tails, x)
        if j == len(tails):
            tails.append(x)
            tail_at.append(i)
        else:
            tails[j] = x
            tail_at[j] = i
        prev[i] = tail_at[j - 1] if j else -1
    keep: set[int] = set()
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        keep.add(i)
        i = prev[i]
    return keep


def _added(old: Side, new: Side) -> dict:
    out: dict = {"added": [], "removed": [], "changed": []}

    def by_content(side: Side) -> dict:
        found = {}
        for a in side.added:
            content = a.get("content")
            if isinstance(content, str) and content not in found:
                found[content] = {"id": a.get("id"), **{k: a.get(k, d) for k, d in ADDED_DEFAULTS.items()}}
        return found

    ao, an = by_content(old), by_content(new)
    if converted_pair(old, new) is not None:  # a GGUF: only what it stores, kinds as types
        out["types"] = split_added(old, new, out, ao, an)
        for group in ("added", "removed", "changed"):
            out[group].sort(key=lambda e: (e["id"] if isinstance(e["id"], int) else -1, e["content"]))
        return out
    if ao == an:
        return out
    for c in ao.keys() - an.keys():
        out["removed"].append({"content": c, **ao[c]})
    for c in an.keys() - ao.keys():
        out["added"].append({"content": c, **an[c]})
    for c in ao.keys() & an.keys():
        if ao[c] != an[c]:
            fields = {k: {"old": ao[c][k], "new": an[c][k]} for k in ao[c] if ao[c][k] != an[c][k]}
            out["changed"].append({"content": c, "id": an[c]["id"], "fields": fields})
    for group in out.values():
        group.sort(key=lambda e: (e["id"] if isinstance(e["id"], int) else -1, e["content"]))
    return out


def _notes(old: Side, new: Side) -> list[str]:
    """What could not be compared, said once (never counted as a difference)."""
    notes = []
    if (old.config is None) != (new.config is None):
        one = old if old.config is None else new
        notes.append(
            f"{one.format} has no normalizer, pre-tokenizer, post-processor or decoder: those sections are not compared"
        )
    if (old.merges is None) != (new.merges is None):
        one = old if old.merges is None else new
        why = "its ranks imply them" if one.format == "tiktoken" else "no merges file beside it"
        notes.append(f"{one.format} lists no merges ({why}): merges are not compared")
    for side in (old, new):
        if side.vocab is None:
            notes.append(f"no vocab.json beside {side.path or 'the merges file'}: vocabularies are not compared")
    if old.scheme != new.scheme:
        notes.append(
            f"the files store tokens differently ({old.scheme.value} and {new.scheme.value}): "
            "tokens are compared by their bytes"
        )
    return notes
