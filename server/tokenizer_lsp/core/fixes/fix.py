"""A fix as byte edits (the type every fix module makes; fixes/__init__ picks them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

QUICKFIX = "quickfix"
REWRITE = "refactor.rewrite"
FIX_ALL = "source.fixAll.tokenizer-lsp"

Edit = tuple[int, int, bytes]  # replace data[start:end] by the bytes


@dataclass
class Fix:
    title: str
    kind: str
    code: str | None = None  # the diagnostic code it fixes (None: a rewrite on no finding)
    span: tuple[int, int] | None = None  # the finding's byte range
    preferred: bool = False
    safe: bool = False  # cannot change meaning: part of source.fixAll
    edits: list[Edit] = field(default_factory=list)
    # for a large rewrite: computes the edits when the client resolves the action
    compute: Callable[[], list[Edit]] | None = None
    key: dict = field(default_factory=dict)  # what recomputes it (codeAction/resolve data)

    def resolved_edits(self) -> list[Edit]:
        return self.edits if self.compute is None else self.compute()
