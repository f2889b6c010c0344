"""The text a user reads of a `diff`: counts first, then each group, lists cut short.

The JSON (diff.compare) holds every entry; here each list shows its first LIMIT entries
and then "… and N more".
"""

from __future__ import annotations

import orjson

from ...decoding.display import escape

LIMIT = 20


def render(d: dict, limit: int = LIMIT) -> str:
    out = [_side("old", d["old"]), _side("new", d["new"])]
    out.extend(f"verdict: {v}" for v in d.get("verdict") or ())  # what it amounts to, before the lists
    out.append(_summary(d))
    for note in d.get("notes") or []:
        out.append(f"note: {note}")
    if d["config"]:
        out.append("")
        out.append("config")
        for c in d["config"]:
            out.append(f"  {c['section']}: {_presence(c['old'], c['new'])}")
            changes = c["changes"]
            for ch in changes[:limit]:
                out.append(f"    {ch['path']}: {_value(ch['old'])} → {_value(ch['new'])}")
            _more(out, len(changes), limit, "    ")
    if d["model"]:
        out.append("")
        out.append("model")
        for m in d["model"]:
            out.append(f"  {m['flag']}: {_value(m['old'])} → {_value(m['new'])}")
    v = d["vocab"]
    if any(v.values()):
        out.append("")
        head = f"vocab: {len(v['added'])} added, {len(v['removed'])} removed, {len(v['renumbered'])} renumbered"
        out.append(head + (f", {len(v['rescored'])} rescored" if v["rescored"] else ""))
        _list(out, v["added"], limit, lambda e: f"  + {_token(e)}  id {_value(e['id'])}")
        _list(out, v["removed"], limit, lambda e: f"  - {_token(e)}  id {_value(e['id'])}")
        _list(
            out, v["renumbered"], limit, lambda e: f"  ~ {_token(e)}  id {_value(e['old_id'])} → {_value(e['new_id'])}"
        )
        _list(out, v["rescored"], limit, lambda e: f"  ~ {_token(e)}  score {e['old_score']} → {e['new_score']}")
    m = d["merges"]
    if any(m.values()):
        out.append("")
        out.append(f"merges: {len(m['added'])} added, {len(m['removed'])} removed, {len(m['reranked'])} re-ranked")
        _list(out, m["added"], limit, lambda e: f"  + {_merge(e['merge'])}  rank {e['rank']}")
        _list(out, m["removed"], limit, lambda e: f"  - {_merge(e['merge'])}  rank {e['rank']}")
        _list(out, m["reranked"], limit, lambda e: f"  ~ {_merge(e['merge'])}  rank {e['old_rank']} → {e['new_rank']}")
    a = d["added_tokens"]
    if any(a.values()):
        out.append("")
        out.append(f"added tokens: {len(a['added'])} added, {len(a['removed'])} removed, {len(a['changed'])} changed")
        _list(out, a["added"], limit, lambda e: f"  + {_quoted(e['content'])}  id {_value(e['id'])}{_special(e)}")
        _list(out, a["removed"], limit, lambda e: f"  - {_quoted(e['content'])}  id {_value(e['id'])}{_special(e)}")
        _list(
            out,
            a["changed"],
            limit,
            lambda e: (
                f"  ~ {_quoted(e['content'])}  "
                + ", ".join(f"{k} {_value(f['old'])} → {_value(f['new'])}" for k, f in e["fields"].items())
            ),
        )
    if d.get("types"):
        out.append("")
        out.append(f"piece types: {len(d['types'])} changed")
        _list(
            out,
            d["types"],
            limit,
            lambda e: f"  ~ {_token(e)}  id {_value(e['id'])}  {e['old_type']} → {e['new_type']}",
        )
    t = d.get("text")
    if t is not None:
        out.append("")
        out.append(f"text {_quoted(t['text'])}")
        if t["old_ids"] == t["new_ids"]:
            out.append(f"  both: {t['old_count']} tokens  {_ids(t['old_ids'])}")
        else:
            out.append(f"  old: {t['old_count']} tokens  {_ids(t['old_ids'])}")
            out.append(f"  new: {t['new_count']} tokens  {_ids(t['new_ids'])}")
            out.append(f"  change: {t['count_change']:+d} tokens")
    elif d.get("text_note"):
        out.append("")
        out.append(f"text: {d['text_note']}")
    return "\n".join(out)


def _side(label: str, s: dict) -> str:
    what = ", ".join(x for x in (s["format"], s["model_type"], s["style"]) if x)
    return f"{label}: {s['path'] or '-'} ({what})"


def _summary(d: dict) -> str:
    c = d["counts"]
    if d["same"]:
        return "same meaning: no differences"
    parts = []
    for label, keys in (
        ("config sections", ("config_sections",)),
        ("model flags", ("model_flags",)),
        ("vocab", ("vocab_added", "vocab_removed", "vocab_renumbered")),
        ("vocab scores", ("vocab_rescored",)),
        ("merges", ("merges_added", "merges_removed", "merges_reranked")),
        ("added tokens", ("added_tokens_added", "added_tokens_removed", "added_tokens_changed")),
        ("piece types", ("types_changed",)),
    ):
        values = [c.get(k, 0) for k in keys]
        if not any(values):
            continue
        if len(values) == 1:
            parts.append(f"{values[0]} {label if values[0] != 1 else label[:-1]}")
        else:
            signs = [f"+{values[0]}", f"-{values[1]}", f"~{values[2]}"]
            parts.append(f"{label} " + " ".join(s for s, n in zip(signs, values) if n))
    if c.get("text_encodings"):
        parts.append("text encodes differently")
    return "differences: " + ", ".join(parts)


def _list(out: list[str], entries: list, limit: int, line) -> None:
    for e in entries[:limit]:
        out.append(line(e))
    _more(out, len(entries), limit, "  ")


def _more(out: list[str], n: int, limit: int, indent: str) -> None:
    if n > limit:
        out.append(f"{indent}… and {n - limit} more")


def _token(e: dict) -> str:
    stored = _quoted(e["token"])
    text = e.get("text")
    return stored if text is None or text == escape(e["token"]) else f"{stored} ({text})"


def _merge(parts: list) -> str:
    return " + ".join(_quoted(p) for p in parts)


def _quoted(s: str) -> str:
    try:
        return orjson.dumps(s).decode()
    except TypeError:  # a lone surrogate
        return '"' + escape(s) + '"'


def _special(e: dict) -> str:
    return ", special" if e.get("special") else ""


def _presence(a, b) -> str:
    if a is None:
        return "added"
    if b is None:
        return "removed"
    return "changed"


def _value(x) -> str:
    text = orjson.dumps(x).decode() if not isinstance(x, str) else _quoted(x)
    return text if len(text) <= 120 else text[:119] + "…"


def _ids(ids: list[int], limit: int = 64) -> str:
    shown = " ".join(map(str, ids[:limit]))
    return shown + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")
