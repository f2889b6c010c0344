"""transformers as the oracle of chat templates (5.24: `AutoTokenizer.apply_chat_template`,
and `render_jinja_template`, the function it renders with). Never imported by the product."""

from __future__ import annotations

import copy
import os
import shutil

os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def auto_tokenizer(folder: str):
    """The folder's AutoTokenizer, loaded once for each content of its files: tests write
    the same folder under new temporary paths (0.4 s a load of qwen3's), and a folder
    rewritten in place is loaded again."""
    return _loaded(_contents(folder), folder)


def _contents(folder: str) -> tuple:
    import hashlib

    found = []
    for root, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            with open(os.path.join(root, name), "rb") as f:  # a linked tokenizer.json: its target's bytes
                found.append((os.path.relpath(os.path.join(root, name), folder), hashlib.sha1(f.read()).digest()))
    return tuple(found)


_LOADED: dict = {}  # contents -> AutoTokenizer, the last 8


def _loaded(contents: tuple, folder: str):
    from transformers import AutoTokenizer

    if contents not in _LOADED:
        if len(_LOADED) >= 8:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[contents] = AutoTokenizer.from_pretrained(folder)
    return _LOADED[contents]


def apply(folder: str, request: dict, **options):
    """apply_chat_template on the folder's AutoTokenizer with `request` as keyword arguments
    (a fresh copy: transformers' own inputs stay untouched either way)."""
    kw = copy.deepcopy(request)
    messages = kw.pop("messages")
    return auto_tokenizer(folder).apply_chat_template(messages, **kw, **options)


def render_text(template: str, request: dict, special: dict) -> str:
    """What apply_chat_template(tokenize=False) renders for `template` with these special
    tokens: transformers' own render_jinja_template."""
    from transformers.utils.chat_template_utils import render_jinja_template

    kw = copy.deepcopy(request)
    messages = kw.pop("messages")
    rendered, _ = render_jinja_template(conversations=[messages], chat_template=template, **special, **kw)
    return rendered[0]


def generation_indices(template: str, request: dict, special: dict) -> list[tuple[int, int]]:
    from transformers.utils.chat_template_utils import render_jinja_template

    kw = copy.deepcopy(request)
    messages = kw.pop("messages")
    _, indices = render_jinja_template(
        conversations=[messages], chat_template=template, return_assistant_tokens_mask=True, **special, **kw
    )
    return [tuple(x) for x in indices[0]]


def folder_with(tmp_path, base, files: dict) -> str:
    """A copy of a corpus folder's tokenizer.json (linked) with the given files written."""
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    os.symlink(base / "tokenizer.json", folder / "tokenizer.json")
    for name, text in files.items():
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return str(folder)


__all__ = ["apply", "auto_tokenizer", "folder_with", "generation_indices", "render_text", "shutil"]
