"""Values built from files on disk, kept while each file stays as it was."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class FileCache(Generic[T]):
    """`build(path)` once per version of a file (its size and modification time); at most
    `keep` files at once when given (the oldest goes first)."""

    def __init__(self, build: Callable[[str], T | None], keep: int | None = None) -> None:
        self.build, self.keep = build, keep
        self._items: dict[str, tuple[tuple[int, int], T | None]] = {}

    def get(self, path: str) -> T | None:
        """The value for the file as it is now; None when it cannot be read."""
        try:
            st = os.stat(path)
            stamp = (st.st_mtime_ns, st.st_size)
            found = self._items.get(path)
            if found is not None and found[0] == stamp:
                return found[1]
            value = self.build(path)
        except OSError:
            return None
        self._items.pop(path, None)
        while self.keep is not None and self._items and len(self._items) >= self.keep:
            self._items.pop(next(iter(self._items)))
        self._items[path] = (stamp, value)
        return value
