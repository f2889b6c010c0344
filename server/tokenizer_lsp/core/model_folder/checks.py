"""The findings of one config file against the tokenizer beside it (and the folder's other
config files, which name the tokens an id must be): config-token-missing,
config-id-mismatch, vocab-size, chat-template-token. Each sits on the offending entry and
says both sides."""

from __future__ import annotations

from ..decoding.display import escaped
from ..model import Finding
from .config_doc import CHECKED_IDS, ConfigDocument, ConfigItem
from .facts import TokenizerFacts

# where the token an id must be is named, first found first
NAMING_FILES = ("tokenizer_config.json", "special_tokens_map.json")
NEAR_MISS = 2  # edits that make a `<name>` in a template a misspelt special token
NEAR_MISS_LENGTH = 8  # ... when it is this long: `<b>` is HTML bold, not a misspelt `<s>`


def _q(token: str) -> str:
    return f"`{escaped(token)}`"


def named_token(which: str, doc: ConfigDocument, folder: dict[str, ConfigDocument]) -> tuple[str, str] | None:
    """(token, file) that the folder names for `which` ("eos"): tokenizer_config.json's
    eos_token, else special_tokens_map.json's, else this file's own."""
    for name in NAMING_FILES:
        other = doc if doc.name == name else folder.get(name)
        token = other.named_token(which) if other is not None else None
        if token is not None:
            return token, name
    token = doc.named_token(which)
    return (token, doc.name) if token is not None else None


def slow_folder_facts(doc: ConfigDocument, folder: dict[str, ConfigDocument], facts: TokenizerFacts) -> TokenizerFacts:
    """Beside a vocab.json (a slow GPT-2 style folder, as whisper's), added_tokens.json
    defines tokens: transformers adds each entry with its id (after the vocabulary), so its
    entries and the config files naming them are held against the vocabulary plus those.
    A tokenizer.json holds its own added tokens; there the file is only checked."""
    if facts.name == "tokenizer.json":
        return facts
    added = doc if doc.name == "added_tokens.json" else folder.get("added_tokens.json")
    if added is None:
        return facts
    return facts.with_added(
        {i.token: i.tid for i in added.items if i.role == "added-json" and i.token is not None and i.tid is not None}
    )


def config_findings(doc: ConfigDocument, folder: dict[str, ConfigDocument], facts: TokenizerFacts) -> list[Finding]:
    out: list[Finding] = []
    facts = slow_folder_facts(doc, folder, facts)
    ids: dict[str, list[ConfigItem]] = {}
    for item in doc.items:
        if item.role == "id":
            ids.setdefault(item.key, []).append(item)
        elif item.role == "template":
            out.extend(_template(item, facts))
        elif item.role in ("token", "decoder", "added-json"):
            out.extend(_token(item, facts, doc.name))
    for key, items in ids.items():
        out.extend(_ids(key, items, doc, folder, facts))
    out.extend(_vocab_size(doc, facts))
    if doc.name == "tokenizer_config.json" and doc.path:
        out.extend(_chat_template(doc, folder, facts))
    out.sort(key=lambda f: (f.start, f.end))
    return out


def _chat_template(doc: ConfigDocument, folder: dict[str, ConfigDocument], facts: TokenizerFacts) -> list[Finding]:
    """The chat-template checks of the templates this file holds, and of the folder's
    templates as a whole (core/chat/folder_checks.py)."""
    import os

    from ..chat.folder_checks import config_template_findings, copies_findings, folder_context, missing_findings

    where = os.path.dirname(os.path.abspath(doc.path))
    ctx = folder_context(where, doc.obj, folder, facts)
    return config_template_findings(doc, ctx) + copies_findings(doc, where, ctx) + missing_findings(doc, where, ctx)


def _where(item: ConfigItem) -> str:
    if item.role == "decoder":
        return f"added_tokens_decoder entry {item.tid if item.tid is not None else '?'}"
    if item.role == "added-json":
        return "added_tokens.json entry"
    return item.key


def _token(item: ConfigItem, facts: TokenizerFacts, here: str):
    token = item.token
    tid = facts.id_of(token)
    if tid is None:
        yield Finding(
            "config-token-missing",
            *item.entry,
            f"{_where(item)} {_q(token)} in {here} is not a token of {facts.name} "
            "(neither in its vocabulary nor an added token)",
        )
        return
    if item.role not in ("decoder", "added-json"):
        return
    if item.tid is None:
        what = "key" if item.role == "decoder" else "id"
        yield Finding(
            "config-id-mismatch",
            *item.entry,
            f"{_q(token)} is id {tid} in {facts.name}, but its {here} {what} is not an id",
        )
    elif item.tid != tid:
        other = facts.token_of(item.tid)
        named = f" ({_q(other)})" if other is not None else " (no token)"
        what = "added_tokens_decoder key" if item.role == "decoder" else "added_tokens.json id"
        yield Finding(
            "config-id-mismatch",
            *item.entry,
            f"{_q(token)} is id {tid} in {facts.name}, but its {what} in {here} is {item.tid}{named}",
        )


def _ids(key: str, items: list[ConfigItem], doc: ConfigDocument, folder, facts: TokenizerFacts):
    which = key[: -len("_token_id")]
    named = named_token(which, doc, folder)
    named_id = facts.id_of(named[0]) if named is not None else None
    single = doc.obj.get(key) is not None and not isinstance(doc.obj.get(key), list)
    if named is None and which not in CHECKED_IDS:
        return  # an id of a token nobody names: nothing to hold it against
    for item in items:
        token = facts.token_of(item.tid) if item.tid >= 0 else None
        if token is None:
            yield Finding(
                "config-id-mismatch",
                *item.entry,
                f"{doc.name} {key} {item.tid} is not an id of {facts.name}"
                + (f" (highest id {facts.highest_id})" if facts.highest_id is not None else ""),
            )
        elif single and named_id is not None and item.tid != named_id:
            yield Finding(
                "config-id-mismatch",
                *item.entry,
                f"{which}_token {_q(named[0])} is id {named_id} in {facts.name}, but {doc.name} "
                f"{key} is {item.tid} ({_q(token)})",
            )
    if not single and named_id is not None and all(i.tid != named_id for i in items):
        span = doc.tree.entry_span(key) if doc.tree is not None else None
        if span is not None:
            listed = ", ".join(f"{i.tid} ({_q(t)})" if (t := facts.token_of(i.tid)) else str(i.tid) for i in items)
            yield Finding(
                "config-id-mismatch",
                *span,
                f"{which}_token {_q(named[0])} is id {named_id} in {facts.name}, but {doc.name} "
                f"{key} [{listed}] does not hold it",
            )


def _vocab_size(doc: ConfigDocument, facts: TokenizerFacts):
    tree, obj = doc.tree, doc.obj
    if tree is None or not isinstance(obj, dict) or facts.highest_id is None:
        return
    places = [((), obj)]
    if isinstance(obj.get("text_config"), dict):  # multimodal configs keep the text model's apart
        places.append((("text_config",), obj["text_config"]))
    needed = facts.highest_id + 1
    for path, holder in places:
        size = holder.get("vocab_size")
        node = tree.find(path)
        span = node.entry_span("vocab_size") if node is not None else None
        if span is None or not isinstance(size, int) or isinstance(size, bool):
            continue
        top = facts.token_of(facts.highest_id)
        top_text = f" ({_q(top)})" if top is not None else ""
        if size < needed:
            yield Finding(
                "vocab-size",
                *span,
                f"vocab_size {size} is below the highest id + 1 of {facts.name} ({needed}: id "
                f"{facts.highest_id}{top_text}): the model has no embedding row for ids "
                f"{size}..{facts.highest_id}",
            )
        elif size > needed:
            yield Finding(
                "vocab-size",
                *span,
                f"vocab_size {size} is above the highest id + 1 of {facts.name} ({needed}): "
                f"{size - needed} embedding rows no token uses (padding)",
                level="information",
            )


def _template(item: ConfigItem, facts: TokenizerFacts):
    token = item.token
    if facts.id_of(token) is not None or not _special_looking(token, facts):
        return
    near = _nearest(token, facts)
    hint = f"; did you mean {_q(near)}?" if near is not None else ""
    yield Finding(
        "chat-template-token",
        *item.entry,
        f"chat_template writes {_q(token)}, which is not a token of {facts.name} "
        f"(neither in its vocabulary nor an added token){hint}",
    )


def _special_looking(token: str, facts: TokenizerFacts) -> bool:
    """`<|...|>` and DeepSeek's full-width `<｜...｜>` always; a `<name>` when it is written like a special token's name (with an
    underscore, `<start_of_turn>`) or is a near miss of one of the tokenizer's added tokens.
    Templates also write XML-ish words in prose for the model to read (Qwen's `<tools>`,
    `<function-name>`), which are not meant as tokens."""
    if token.startswith(("<|", "<｜")):
        return True
    return "_" in token or (len(token) >= NEAR_MISS_LENGTH and _nearest(token, facts) is not None)


def _nearest(token: str, facts: TokenizerFacts) -> str | None:
    best, best_d = None, NEAR_MISS + 1
    for other in facts.vocab.added:
        if abs(len(other) - len(token)) < best_d and other.startswith("<"):
            d = _distance(token, other, best_d)
            if d < best_d:
                best, best_d = other, d
    return best if best_d <= NEAR_MISS else None


def _distance(a: str, b: str, cap: int) -> int:
    """Levenshtein distance, or `cap` once it is certain to reach it."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) >= cap:
            return cap
        prev = cur
    return prev[-1]
