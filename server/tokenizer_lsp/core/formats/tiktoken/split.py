"""The inferred split of a tiktoken rank: tiktoken's byte-pair merging run on the token's
own bytes with only the ranks below its own (a rank file has no merges list)."""

from __future__ import annotations

import base64
from collections.abc import Callable


def rank_lookup(tokens) -> Callable[[bytes], int | None]:
    """bytes -> rank through the rank file's vocabulary (keyed by canonical base64)."""

    def rank(data: bytes) -> int | None:
        return tokens.get(base64.b64encode(data).decode("ascii"))

    return rank


def inferred_split(data: bytes, own_rank: int, rank: Callable[[bytes], int | None]) -> list[bytes]:
    """The pieces left when merging stops: two for a token one merge builds, more when no
    single merge does, one for a single byte."""
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        best = None
        for i in range(len(parts) - 1):
            r = rank(parts[i] + parts[i + 1])
            if r is not None and r < own_rank and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            break
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts
