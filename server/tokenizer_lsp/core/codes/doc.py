"""One diagnostic code's documentation (core.codes holds every code's; codes.table_formats the
Part 3 codes')."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CodeDoc:
    summary: str  # one line: when it is reported
    why: str  # why it matters to someone shipping or using the tokenizer
    fix: str  # what to change (markdown)
    # files (name -> text) that trigger it: `check` runs on them (a folder when several)
    example: dict[str, str] = field(default_factory=dict)
    # the output to show when the example cannot be run here (binary formats, no text to
    # show), as `check` prints it
    shown: str = ""
