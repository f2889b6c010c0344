"""File-level entry points shared by the CLI and the server: load a file, pick its companions."""

from __future__ import annotations

import os

from ..detect import VOCAB_NAMES, is_chat_template_name, is_config_name
from ..model import Vocabulary
from .build import DocumentIndex, build_index, load_vocabulary


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
            from ..model_folder.folder import load_folder

            return load_folder(path)
        if is_chat_template_name(path):  # a chat template: the tokenizer of its model folder
            from ..model_folder.chat_template_file import anchor
            from ..model_folder.folder import load_folder

            return load_folder(anchor(path))
        other = companion_vocab_path(path)
        return load_vocab_file(other) if other else None

    return build_index(data, path, companion=companion)
