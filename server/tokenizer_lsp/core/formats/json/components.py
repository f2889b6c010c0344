"""What `tokenizers` requires of a tokenizer.json's configuration: the top-level keys, the
model's fields, and every normalizer, pre-tokenizer, post-processor and decoder (Sequence
items too). The table was derived from `tokenizers` 0.23.3 (each field dropped, then given
a value of every other JSON type); tests/corpus/test_schema_refusals.py loads each case with it.

Pure data checks on the parsed object: a problem names its JSON path; json_schema locates it.
"""

from __future__ import annotations

import re

import orjson

from ...decoding.display import quoted as _q
from .layout import STRING, array_element_spans, value_span

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def _is_uint(v) -> bool:
    return type(v) is int and v >= 0


def _is_pattern(v) -> bool:
    return (
        isinstance(v, dict)
        and len(v) == 1
        and next(iter(v)) in ("String", "Regex")
        and isinstance(next(iter(v.values())), str)
    )


# kind -> (accepts, what it expects, in words)
KINDS = {
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "bool|null": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "string|null": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "char": (lambda v: isinstance(v, str) and len(v) == 1, "a string of one character"),
    "uint": (_is_uint, "a non-negative integer"),
    "uint|null": (lambda v: v is None or _is_uint(v), "a non-negative integer or null"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "object|null": (lambda v: v is None or isinstance(v, dict), "an object or null"),
    "dropout": (lambda v: v is None or (type(v) in (int, float) and 0 <= v <= 1), "null or a number from 0 to 1"),
    "pattern": (_is_pattern, 'an object {"String": ...} or {"Regex": ...}'),
    "behavior": (lambda v: v in BEHAVIORS, "one of " + ", ".join(BEHAVIORS)),
    "prepend_scheme": (lambda v: v in ("first", "never", "always"), "one of first, never, always"),
    "token_id": (
        lambda v: isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and _is_uint(v[1]),
        "a [token, id] pair",
    ),
    "version": (lambda v: v == "1.0", '"1.0"'),
    "any": (lambda v: True, "anything"),
}

_BYTE_LEVEL = {"add_prefix_space": ("bool", True), "trim_offsets": ("bool", True), "use_regex": ("bool", False)}
_METASPACE = {"replacement": ("char", True), "prepend_scheme": ("prepend_scheme", False), "split": ("bool|null", False)}
_REPLACE = {"pattern": ("pattern", True), "content": ("string", True)}

# section -> type -> field -> (kind, required); "items:<section>" is a list of that section's components
COMPONENTS: dict[str, dict[str, dict[str, tuple[str, bool]]]] = {
    "normalizer": {
        "BertNormalizer": {
            "clean_text": ("bool", True),
            "handle_chinese_chars": ("bool", True),
            "strip_accents": ("bool|null", False),
            "lowercase": ("bool", True),
        },
        "ByteLevel": {},
        "Lowercase": {},
        "NFC": {},
        "NFD": {},
        "NFKC": {},
        "NFKD": {},
        "Nmt": {},
        "StripAccents": {},
        "Precompiled": {"precompiled_charsmap": ("string", True)},
        "Prepend": {"prepend": ("string", True)},
        "Replace": _REPLACE,
        "Sequence": {"normalizers": ("items:normalizer", True)},
        "Strip": {"strip_left": ("bool", True), "strip_right": ("bool", True)},
    },
    "pre_tokenizer": {
        "BertPreTokenizer": {},
        "UnicodeScripts": {},
        "Whitespace": {},
        "WhitespaceSplit": {},
        "ByteLevel": _BYTE_LEVEL,
        "CharDelimiterSplit": {"delimiter": ("char", True)},
        "Digits": {"individual_digits": ("bool", True)},
        "FixedLength": {"length": ("uint", False)},
        "Metaspace": _METASPACE,
        "Punctuation": {"behavior": ("behavior", False)},
        "Sequence": {"pretokenizers": ("items:pre_tokenizer", True)},
        "Split": {"pattern": ("pattern", True), "behavior": ("behavior", True), "invert": ("bool", True)},
    },
    "post_processor": {
        "BertProcessing": {"sep": ("token_id", True), "cls": ("token_id", True)},
        "ByteLevel": _BYTE_LEVEL,
        # its two flags take any value (tokenizers falls back to the defaults)
        "RobertaProcessing": {"sep": ("token_id", True), "cls": ("token_id", True)},
        "Sequence": {"processors": ("items:post_processor", True)},
        "TemplateProcessing": {"single": ("list", True), "pair": ("list", True), "special_tokens": ("object", True)},
    },
    "decoder": {
        "BPEDecoder": {"suffix": ("string", True)},
        "ByteFallback": {},
        "Fuse": {},
        "ByteLevel": _BYTE_LEVEL,
        "CTC": {"pad_token": ("string", True), "word_delimiter_token": ("string", True), "cleanup": ("bool", True)},
        "Metaspace": _METASPACE,
        "Replace": _REPLACE,
        "Sequence": {"decoders": ("items:decoder", True)},
        "Strip": {"content": ("char", True), "start": ("uint", True), "stop": ("uint", True)},
        "WordPiece": {"prefix": ("string", True), "cleanup": ("bool", True)},
    },
    # vocab and merges shapes are json_schema's own findings (they name the entries)
    "model": {
        "BPE": {
            "vocab": ("any", True),
            "merges": ("any", True),
            "dropout": ("dropout", False),
            "unk_token": ("string|null", False),
            "continuing_subword_prefix": ("string|null", False),
            "end_of_word_suffix": ("string|null", False),
            "fuse_unk": ("bool|null", False),
            "byte_fallback": ("bool|null", False),
            "ignore_merges": ("bool|null", False),
        },
        "WordPiece": {
            "vocab": ("any", True),
            "unk_token": ("string", True),
            "continuing_subword_prefix": ("string", True),
            "max_input_chars_per_word": ("uint", True),
        },
        "WordLevel": {"vocab": ("any", True), "unk_token": ("string", True)},
        "Unigram": {"vocab": ("any", True), "unk_id": ("uint|null", False), "byte_fallback": ("bool", False)},
    },
}

# An unknown `type` is still loaded when the other fields fit one of these (serde's
# untagged fallback; the others, field-less or tagged, are refused): found by loading each
# component of tokenizers 0.23.3 with its type renamed
UNTAGGED = {
    "normalizer": ("BertNormalizer", "Prepend", "Replace", "Sequence", "Strip"),
    "decoder": ("BPEDecoder", "CTC", "Replace", "Strip", "WordPiece"),
    "post_processor": ("BertProcessing", "RobertaProcessing", "TemplateProcessing"),
}


def _fits(node: dict, fields: dict[str, tuple[str, bool]]) -> bool:
    """Whether an object has every required field of a component, each of its kind."""
    for key, (kind, required) in fields.items():
        if key not in node:
            if required:
                return False
            continue
        accepts = (lambda v: isinstance(v, list)) if kind.startswith("items:") else KINDS[kind][0]
        if not accepts(node[key]):
            return False
    return True


TOP_LEVEL = {
    "version": ("version", False),
    "truncation": ("object|null", False),
    "padding": ("object|null", False),
    "added_tokens": ("list", False),
    "normalizer": ("object|null", False),
    "pre_tokenizer": ("object|null", False),
    "post_processor": ("object|null", False),
    "decoder": ("object|null", False),
    "model": ("object", True),
}

ADDED_TOKEN = {
    "id": ("uint", True),
    "content": ("string", True),
    "single_word": ("bool", True),
    "lstrip": ("bool", True),
    "rstrip": ("bool", True),
    "normalized": ("bool", True),
    "special": ("bool", True),
}

Path = tuple  # of str keys and int indices
# (path of what to flag, "value" | "object" | "key", message)
Problem = tuple[Path, str, str]


def shown_path(path: Path) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def _shown(v) -> str:
    import json

    text = json.dumps(v, ensure_ascii=False)
    return _q(text if len(text) <= 40 else text[:37] + "...")


def field_problems(obj: dict, fields: dict[str, tuple[str, bool]], path: Path, what: str) -> list[Problem]:
    """Missing required fields and fields of the wrong kind of one object."""
    out: list[Problem] = []
    missing = [k for k, (_, required) in fields.items() if required and k not in obj]
    if missing:
        names = ", ".join(f"`{k}`" for k in missing)
        out.append((path, "object", f"{what} has no {names} ({'it is' if len(missing) == 1 else 'they are'} required)"))
    for key, (kind, _) in fields.items():
        if key not in obj:
            continue
        value = obj[key]
        if kind.startswith("items:"):
            section = kind[6:]
            if not isinstance(value, list):
                out.append(
                    (path + (key,), "value", f"`{shown_path(path + (key,))}` must be a list, not {_shown(value)}")
                )
                continue
            for i, item in enumerate(value):
                out.extend(component_problems(section, item, path + (key, i)))
            continue
        accepts, expected = KINDS[kind]
        if not accepts(value):
            out.append(
                (path + (key,), "value", f"`{shown_path(path + (key,))}` must be {expected}, not {_shown(value)}")
            )
    return out


def component_problems(section: str, node, path: Path) -> list[Problem]:
    """An unknown `type`, a missing required field or a field of the wrong kind in one
    normalizer, pre-tokenizer, post-processor, decoder or model (null is no component)."""
    if node is None and section != "model":
        return []
    where = shown_path(path)
    if not isinstance(node, dict):
        return [(path, "value", f"`{where}` must be an object with a `type`, not {_shown(node)}")]
    kinds = COMPONENTS[section]
    if "type" not in node:
        return []  # tokenizers tries each kind by shape (files written before `type`)
    ctype = node["type"]
    if ctype not in kinds and not any(_fits(node, kinds[k]) for k in UNTAGGED.get(section, ())):
        known = ", ".join(kinds)
        return [
            (
                path + ("type",),
                "value",
                f"unknown {section.replace('_', '-')} type {_shown(ctype)} at `{where}` (tokenizers knows {known})",
            )
        ]
    if ctype not in kinds:
        return []  # loaded by its shape, as the type it fits (tokenizers' untagged fallback)
    return field_problems(node, kinds[ctype], path, f"`{where}` of type `{ctype}`")


def configuration_problems(obj: dict) -> list[Problem]:
    """Problems outside model.vocab, model.merges and the added tokens' own entries."""
    out: list[Problem] = []
    for key in obj:
        if key not in TOP_LEVEL:
            known = ", ".join(TOP_LEVEL)
            out.append(((key,), "key", f"tokenizers does not know the top-level key {_q(key)} (it knows {known})"))
    for key, (kind, _) in TOP_LEVEL.items():
        if key in obj and not KINDS[kind][0](obj[key]):
            out.append(((key,), "value", f"`{key}` must be {KINDS[kind][1]}, not {_shown(obj[key])}"))
    for section in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
        if isinstance(obj.get(section), dict):
            out.extend(component_problems(section, obj[section], (section,)))
    model = obj.get("model")
    if isinstance(model, dict):
        out.extend(component_problems("model", model, ("model",)))
    return out


def added_token_problems(entry) -> list[str]:
    """What an added_tokens entry lacks or holds of the wrong kind, in words ([] when fine)."""
    if not isinstance(entry, dict):
        return ["is not an object with `content` and `id`"]
    out = []
    if not isinstance(entry.get("content"), str):
        out.append("no string `content`" if "content" in entry else "no `content`")
    tid = entry.get("id")
    if not _is_uint(tid):
        out.append("an `id` that is not a non-negative integer" if "id" in entry else "no `id`")
    flags = [k for k, (kind, _) in ADDED_TOKEN.items() if kind == "bool"]
    missing = [k for k in flags if k not in entry]
    wrong = [k for k in flags if k in entry and not isinstance(entry[k], bool)]
    if missing:
        out.append("no " + ", ".join(f"`{k}`" for k in missing) + " (true or false, required)")
    if wrong:
        out.append("a " + ", ".join(f"`{k}`" for k in wrong) + " that is not true or false")
    return out


_MEMBER = re.compile(rb'\s*(' + STRING + rb')\s*:\s*')


def member_span(data: bytes, brace: int, key: str) -> tuple[tuple[int, int], int] | None:
    """(key literal span, value start) of `key` in the object opening at `brace`, members
    walked in order (the values before it skipped whole, so nothing nested is mistaken
    for it; the value itself is not scanned: it may be a 30 MB model)."""
    if data[brace : brace + 1] != b"{":
        return None
    pos = brace + 1
    while True:
        m = _MEMBER.match(data, pos)
        if m is None:
            return None
        try:
            name = orjson.loads(m.group(1))
        except orjson.JSONDecodeError:
            return None
        if name == key:
            return m.span(1), m.end()
        value = value_span(data, m.end(1))
        comma = _COMMA.match(data, value[1]) if value else None
        if comma is None:
            return None
        pos = comma.end()


_COMMA = re.compile(rb"\s*,")
_WS = re.compile(rb"\s*")


def path_span(data: bytes, path: Path, kind: str = "value") -> tuple[int, int] | None:
    """The source range of what a problem flags: the value at `path` (an object or list
    whole), or (kind "key") from its member's key to the end of its value."""
    start, end, key_span = _WS.match(data).end(), None, None
    for step in path:
        if isinstance(step, int):
            where = array_element_spans(data, start, {step})
            if step not in where:
                return None
            (start, end), key_span = where[step], None
        else:
            found = member_span(data, start, step)
            if found is None:
                return None
            key_span, start = found
            end = None
    if end is None:
        if key_span is None:
            return None
        value = value_span(data, key_span[1])
        if value is None:
            return None
        end = value[1]
    if kind == "object":  # a missing field: the object's key (a model is megabytes long)
        if key_span is not None:
            return key_span
        found = member_span(data, start, "type")  # a Sequence item: its `"type": "..."`
        value = value_span(data, found[0][1]) if found else None
        return (found[0][0], value[1]) if value else (start, start + 1)
    return (key_span[0] if kind == "key" and key_span else start), end
