"""What `tokenizers` refuses to load although the JSON parses: the `schema` findings."""

from __future__ import annotations

import json

import orjson

from ...decoding.display import quoted as _q
from ...model import PendingFinding, Ref
from .components import added_token_problems, path_span
from .layout import Locator, array_element_spans, value_span, value_start

MAX_SCHEMA = 1000  # findings per kind: a wholly wrong file says so without drowning


def _added_entry_ok(entry) -> bool:
    return not added_token_problems(entry)


def _shown_value(source: bytes) -> str:
    """A JSON value for a message: compact (one line whatever its layout), quoted, short."""
    try:
        text = json.dumps(orjson.loads(source), ensure_ascii=False)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        text = source.decode("utf-8", "replace")
    return _q(text if len(text) <= 60 else text[:57] + "...")


def _row_problem(row, source: bytes) -> str:
    """Why a Unigram vocab row is not [piece, score], in words."""
    shown = _shown_value(source)
    if not isinstance(row, list):
        return f"is {shown}, not a list"
    if len(row) != 2:
        return f"{shown} has {len(row)} element{'s' if len(row) != 1 else ''}"
    if not isinstance(row[0], str):
        return f"{shown} has a piece that is not a string"
    return f"{shown} has a score that is not a number"


def _added_problem(entry) -> str:
    if not isinstance(entry, dict):
        return "is not an object with `content` and `id`"
    return "has " + " and ".join(added_token_problems(entry))


def schema_findings(doc) -> list[PendingFinding]:
    """What `tokenizers` would refuse to load although the JSON parses, each at its entry
    with what was expected (json-syntax is for text that is not JSON)."""
    out: list[PendingFinding] = []
    data, cannot = doc.data, "tokenizers cannot load this file"
    if not (
        doc.vocab_shape_error
        or doc.bad_rows
        or doc.bad_ids
        or doc.merges_not_list
        or doc.bad_added
        or doc.config_problems
    ):
        return out  # every file tokenizers writes
    for path, kind, message in doc.config_problems[:MAX_SCHEMA]:
        span = path_span(data, path, kind)
        if span is not None:
            out.append(PendingFinding("schema", Ref("span", *span), f"{message}; {cannot}"))
    model_start = value_start(data, "model") or 0
    if doc.vocab_shape_error and doc.vocab_start is not None:
        key = data.rfind(b'"vocab"', model_start, doc.vocab_start)
        mtype = doc.vocab.model_type
        want = (
            "a list of [piece, score] rows"
            if mtype == "Unigram"
            else "an object of token: id (a list is the Unigram form)"
        )
        out.append(
            PendingFinding(
                "schema",
                Ref("span", key, key + len(b'"vocab"'))
                if key >= 0
                else Ref("span", doc.vocab_start, doc.vocab_start + 1),
                f"model.vocab of a {_q(str(mtype))} model must be {want}; {cannot}",
            )
        )
    elif doc.bad_rows and doc.vocab_start is not None:
        rows = doc.bad_rows[:MAX_SCHEMA]
        where = array_element_spans(data, doc.vocab_start, set(rows))
        for i in rows:
            if i in where:
                why = _row_problem(doc.unigram_list[i], data[where[i][0] : where[i][1]])
                out.append(
                    PendingFinding(
                        "schema",
                        Ref("span", *where[i]),
                        f"Unigram vocab row {i} {why}; a row is [piece, score]; {cannot}",
                    )
                )
    if doc.bad_ids and doc.vocab_start is not None:
        loc = Locator(data, doc.vocab_start)
        for k in doc.bad_ids[:MAX_SCHEMA]:
            span = loc.find(k, b":")
            if span:
                value = value_span(data, span[1]) or span
                out.append(
                    PendingFinding(
                        "schema",
                        Ref("span", *value),
                        f"the id of {_q(k)} must be a non-negative integer, not "
                        f"{_shown_value(data[value[0] : value[1]])}; {cannot}",
                    )
                )
    if doc.merges_not_list:
        at = data.find(b'"merges"', model_start)
        if at >= 0:
            value = value_span(data, at + len(b'"merges"'))
            got = f", not {_shown_value(data[value[0] : value[1]])}" if value else ""
            out.append(
                PendingFinding(
                    "schema",
                    Ref("span", at, at + len(b'"merges"')),
                    f"model.merges must be a list of merges{got}; {cannot}",
                )
            )
    if doc.bad_added and doc.added_start is not None:
        entries = doc.bad_added[:MAX_SCHEMA]
        where = array_element_spans(data, doc.added_start, set(entries))
        for i in entries:
            if i in where:
                s, e = where[i]
                try:
                    entry = orjson.loads(data[s:e])
                except orjson.JSONDecodeError:
                    entry = None
                out.append(
                    PendingFinding("schema", Ref("span", s, e), f"added token {i} {_added_problem(entry)}; {cannot}")
                )
    return out
