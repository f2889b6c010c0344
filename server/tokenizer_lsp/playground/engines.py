"""The tokenizers a playground serves: each PATH of the command line loaded once into its
own engine (the encode command's path: core/behaviour/encode.py, and cli/tables.py for the
format plug-ins) and kept for the life of the server. The API names them by index only, so
no request can make the server read a file the command line did not name."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any


class PlaygroundError(Exception):
    """A PATH that cannot be served: one line, said before the server starts."""


@dataclass
class Served:
    index: int
    path: str  # as given on the command line (a folder stays a folder: render takes it)
    file: str  # the tokenizer file read for encode
    format: str  # the names `stats` prints: tokenizer.json, tiktoken, sentencepiece, ...
    plugin: Any = None  # a format plug-in and its table, or
    table: Any = None
    loaded: Any = None  # a LoadedTokenizer (tokenizer.json, vocab.json + merges, .tiktoken)
    # engines are called from the server's request threads: one call at a time per engine
    # (tokenizers' post-processor swap and the plug-ins' caches are not made for sharing)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def describe(self) -> dict:
        return {"index": self.index, "path": self.path, "format": self.format}

    def encode(self, text: str) -> dict:
        """The `encode --format json` object of `text` (no special tokens added)."""
        with self.lock:
            if self.plugin is not None:
                from ..cli.table_encode import encode_result

                return encode_result(self.plugin, self.table, text, False, os.path.dirname(os.path.abspath(self.file)))
            from ..core.behaviour.encode import encode

            return encode(self.loaded, text, False, self.file)

    def special_ids(self) -> list[int]:
        """Ids of the special (control) tokens: the page marks them."""
        if self.plugin is not None:
            return sorted({r.id for r in self.table.rows if r.special or r.type == "CONTROL"})
        if self.loaded.kind == "tokenizers":
            return sorted(i for i, t in self.loaded.engine.get_added_tokens_decoder().items() if t.special)
        enc = self.loaded.engine  # tiktoken: a bare .tiktoken file has none
        return sorted(enc.encode_single_token(s) for s in enc.special_tokens_set)


def load_all(paths: list[str]) -> list[Served]:
    return [load_one(k, p) for k, p in enumerate(paths)]


def load_one(index: int, path: str) -> Served:
    """PATH's tokenizer in its engine, or PlaygroundError (one line)."""
    from ..cli.common import main_tokenizer_file
    from ..cli.tables import _read
    from ..core.behaviour.load import load_tokenizer_file
    from ..core.behaviour.loaded import LoadError

    if not os.path.exists(path):
        raise PlaygroundError(f"{path}: no such file or folder")
    file = _quiet(main_tokenizer_file, path)
    if file is None:
        raise PlaygroundError(f"{path}: no tokenizer file in this folder")
    got = _read(file)
    if isinstance(got, str):
        raise PlaygroundError(got)
    if got is not None:
        plugin, table = got
        return _warm(Served(index, path, file, plugin.name, plugin=plugin, table=table))
    try:
        loaded = load_tokenizer_file(file)
    except OSError as e:
        raise PlaygroundError(f"{file}: cannot read: {e.strerror or e}") from None
    except LoadError as e:
        raise PlaygroundError(str(e)) from None
    return _warm(Served(index, path, file, loaded.source or loaded.kind, loaded=loaded))


def _warm(served: Served) -> Served:
    """One encode now: a plug-in builds its engine on the first (Tekkenizer: seconds), which
    belongs to the start, not to the first keystroke; a file its engine refuses is said here."""
    from ..core.formats.table import FormatError

    try:
        served.encode("warm up")
    except FormatError as e:
        raise PlaygroundError(f"{served.file}: cannot encode: {e}") from None
    return served


def _quiet(fn, *args):
    """fn(*args) with its own stderr line held back: the caller says it in one line."""
    import contextlib
    import io

    with contextlib.redirect_stderr(io.StringIO()):
        return fn(*args)
