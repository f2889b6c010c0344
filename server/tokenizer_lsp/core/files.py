"""File-level entry points shared by the CLI and the server: load, pick companions, rows."""

from __future__ import annotations

import os
from collections.abc import Iterator

from .decoded_listing import entries
from .decoding.tokens import decode_token
from .detect import VOCAB_NAMES, is_config_name
from .index import DocumentIndex, build_index, load_vocabulary
from .model import Vocabulary

def file_beside(path: str, names: tuple[str, ...]) -> str | None:
    """The first of these file names that exists in the folder of `path`."""
    folder = os.path.dirname(os.path.abspath(path))
    for name in names:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def companion_vocab_path(merges_path: str) -> str | None:
    """A vocab.json or encoder.json beside a merges file."""
    return file_beside(merges_path, VOCAB_NAMES)


def load_vocab_file(path: str) -> Vocabulary | None:
    with open(path, "rb") as f:
        return load_vocabulary(f.read(), path)


def index_file(path: str, vocab_override: Vocabulary | None = None) -> DocumentIndex:
    with open(path, "rb") as f:
        data = f.read()

    def companion() -> Vocabulary | None:
        if vocab_override is not None:
            return vocab_override
        if is_config_name(path):  # a model folder's config file: the tokenizer beside it
            from .model_folder.folder import load_folder

            return load_folder(path)
        other = companion_vocab_path(path)
        return load_vocab_file(other) if other else None

    return build_index(data, path, companion=companion)


def decoded_rows(idx: DocumentIndex) -> Iterator[dict]:
    """One row per vocabulary entry, as `decode --format jsonl` prints it."""
    v = idx.vocab
    if v is None:
        return
    if idx.format == "merges.txt":
        for rank, merge in enumerate(v.merges or []):
            a, sep, b = merge.partition(" ")
            d = v.decode(v.merge_result(a, b) if sep else merge)
            yield _row(rank, merge, d)
        return
    scheme, special, prefix, suffix = v.scheme, v.special, v.subword_prefix, v.word_suffix
    # a .tiktoken key is the canonical base64 of the bytes; the row shows the field as stored
    stored = idx.doc.stored_fields() if idx.format == "tiktoken" else {}
    for token, tid in entries(v.tokens):  # a served index's compact vocab: no lookup per key
        d = decode_token(token, scheme, token in special, prefix, suffix)
        yield _row(tid, stored.get(token, token), d)
    for token, tid in v.added.items():
        if token not in v.tokens:
            yield _row(tid, token, v.decode(token, in_vocab=False))


def _row(tid, token, d) -> dict:
    return {
        "id": tid,
        "token": token,
        "bytes": d.data.hex(),
        "text": d.text,
        "utf8": d.utf8.value,
        "kind": d.kind.value,
    }

