"""What a config file's literal names, and where a token is named in config files."""

from __future__ import annotations

from ..decoding.display import code_span
from ..index.document import DocumentIndex
from ..navigation.pieces import Piece
from .config_doc import ConfigDocument, ConfigItem
from .facts import TokenizerFacts

Span = tuple[int, int]


def config_item_at(idx: DocumentIndex, offset: int) -> ConfigItem | None:
    doc = idx.doc
    return doc.item_at(offset) if isinstance(doc, ConfigDocument) else None


def named_by(item: ConfigItem, facts: TokenizerFacts | None) -> str | None:
    """The token a literal names: its text, or the token of its id."""
    if item.role in ("id", "decoder-key"):
        return facts.token_of(item.tid) if facts is not None and item.tid is not None else None
    return item.token


def config_occurrences(idx: DocumentIndex, token: str, tid: int | None) -> list[Span]:
    """The literals of a config file that name the token: its string (a value, an
    added_tokens_decoder content, a chat_template literal) or its id, in file order."""
    doc = idx.doc
    if not isinstance(doc, ConfigDocument):
        return []
    out = []
    for item in doc.items:
        if item.role == "decoder-key":
            continue  # the entry is found by its content
        if item.role == "id" and tid is not None and item.tid == tid or item.role != "id" and item.token == token:
            out.append((item.start, item.end))
    return out


def describe(item: ConfigItem, facts: TokenizerFacts | None) -> str:
    """The first line of a hover on a config literal: what it is and what it names."""
    where = facts.name if facts is not None else "the tokenizer"
    if item.role in ("id", "decoder-key"):
        token = named_by(item, facts)
        what = "added_tokens_decoder key" if item.role == "decoder-key" else item.key
        if token is None:
            return f"{what} {item.tid}: **no token has this id** in {where}"
        return f"{what} {item.tid} names {code_span(facts.shown(token))} in {where}"
    tid = facts.id_of(item.token) if facts is not None else None
    if tid is None:
        return f"{item.key}: **not a token** of {where}"
    if item.role == "template":  # what the model receives: one id, special or not
        v = facts.vocab
        kind = (
            "a special token"
            if item.token in v.special
            else "an added token, not special"
            if item.token in v.added
            else "a token of the vocabulary, not special"
        )
        return f"{item.key} names id {tid} in {where}: {kind}"
    return f"{item.key} names id {tid} in {where}"


def token_piece(tokenizer: DocumentIndex, token: str, start: int, end: int) -> Piece | None:
    """The token as a hover shows it, from the tokenizer's index, at a config literal."""
    v = tokenizer.vocab
    if v is None or v.id_of(token) is None:
        return None
    in_vocab = token in v.tokens
    return Piece(start, end, token, v.decode(token, in_vocab), v.id_of(token), "vocab" if in_vocab else "added")
