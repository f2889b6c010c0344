"""What every command of the command line shares."""

from __future__ import annotations

import sys


def err(msg: str) -> None:
    print(f"tokenizer-lsp: {msg}", file=sys.stderr)
