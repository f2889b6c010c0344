"""Unreachable-token sets kept on disk, by the content of the files they were computed from.

The set costs the engine's BPE on every vocabulary token (about 1.5 s with loading for
qwen3, 3 s for gemma3); a file opened again, or checked again, as it was gets its set from
here without loading the engine at all. The key is a SHA-256 of everything the answer
depends on: the file's bytes and name (a .tiktoken encoding may be known by its name), the
pair file's bytes, the split pattern, and the versions of this package and of the engines.

Where: $TOKENIZER_LSP_CACHE_DIR when set ("off" or empty: no cache), else the platform's
cache folder (XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%), in
tokenizer-lsp/unreachable/. At most MAX_FILES sets are kept (the least recently used go).
A cache that cannot be read or written is no cache: never an error. A conversion of the
merges between their two forms changes the bytes, not the tokenizer: the server keeps the set
under the converted text's key too (carry_across), so neither the conversion nor its undo
computes it again.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

import orjson

from .... import __version__

ENV = "TOKENIZER_LSP_CACHE_DIR"
MAX_FILES = 64
_FORMAT = b"unreachable/1"  # bumped when the entries' shape or the rule changes


def cache_dir() -> Path | None:
    configured = os.environ.get(ENV)
    if configured is not None:
        return None if configured.strip().lower() in ("", "off", "0", "none") else Path(configured) / "unreachable"
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tokenizer-lsp" / "unreachable"


def key_of(data: bytes, path: str | None, companion: bytes | None, pattern: str | None) -> str:
    return _key_of_pieces((data,), path, companion, pattern)


def _key_of_pieces(data: tuple, path: str | None, companion: bytes | None, pattern: str | None) -> str:
    """key_of the text the pieces make, without joining them (a copy of 30 MB)."""
    h = hashlib.sha256(_FORMAT)
    for part in (__version__, _engine_versions(), os.path.basename(path or ""), pattern or ""):
        _feed(h, part.encode("utf-8", "surrogatepass"))
    _feed(h, *data)
    _feed(h, companion if companion is not None else b"\xff<none>")
    return h.hexdigest()


def _feed(h, *pieces: bytes) -> None:
    # lengths first: no two splits of one stream collide
    h.update(sum(map(len, pieces)).to_bytes(8, "little"))
    for piece in pieces:
        h.update(piece)


def _engine_versions() -> str:
    versions = []
    for name in ("tokenizers", "tiktoken"):
        module = sys.modules.get(name)
        if module is None:
            try:
                module = __import__(name)
            except ImportError:
                versions.append(f"{name}-none")
                continue
        versions.append(f"{name}-{getattr(module, '__version__', '?')}")
    return " ".join(versions)


def read(key: str) -> list[dict] | None:
    folder = cache_dir()
    if folder is None:
        return None
    file = folder / f"{key}.json"
    try:
        entries = orjson.loads(file.read_bytes())
        os.utime(file)  # recently used: kept longest
    except (OSError, orjson.JSONDecodeError):
        return None
    return entries if isinstance(entries, list) else None


def write(key: str, entries: list[dict]) -> None:
    folder = cache_dir()
    if folder is None:
        return
    try:
        body = orjson.dumps(entries)
    except TypeError:  # a lone surrogate in a text: not kept (computed again next time)
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # written whole then renamed: a reader never sees half a set, also across processes
        fd, temp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(temp, folder / f"{key}.json")
        _prune(folder)
    except OSError:
        pass


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in files[: max(0, len(files) - MAX_FILES)]:
        try:
            old.unlink()
        except OSError:
            pass


def carry_across(data: bytes, edit: tuple[int, int, bytes], path: str | None) -> bool:
    """A rewrite that keeps the tokenizer (its merges converted between the string and the
    pair form: core/fixes/convert_merges.py refuses any that would change one) keeps its set:
    the set kept for `data` is kept for the text the edit makes too, so the server reads it
    from here instead of computing it again in a forked child (gemma3: 9 CPU-s after each
    conversion). Only the key a tokenizer.json alone has (no file beside it). Whether a set
    was carried."""
    entries = read(key_of(data, path, None, None))
    if entries is None:
        return False
    start, end, new = edit
    with memoryview(data) as text:  # slices of the text, not copies of it
        key = _key_of_pieces((text[:start], new, text[end:]), path, None, None)
    write(key, entries)
    return True


def unreachable_of_file(path: str, pattern: str | None = None) -> list[dict]:
    """The set of a file on disk (its pair found beside it), from the cache when it has it,
    else read off the merges when the file has that shape, else computed with the engine
    loaded in this process. `pattern`: a .tiktoken file's split regex (`--pattern`).
    LoadError, OSError as loading."""
    from ..load import load_tokenizer, read_with_companion
    from .compute import unreachable_tokens
    from .fast import unreachable_by_structure

    data, other, companion = read_with_companion(path)
    # no cache, no key: neither the hash of the whole file nor the engines' imports for
    # their versions
    key = key_of(data, path, companion, pattern) if cache_dir() is not None else None
    entries = read(key) if key is not None else None
    if entries is not None:
        return entries
    if companion is None:
        entries = unreachable_by_structure(data, path)
    if entries is None:
        entries = unreachable_tokens(load_tokenizer(data, path, companion, pattern, companion_path=other))
    if key is not None:
        write(key, entries)
    return entries
