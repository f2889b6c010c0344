"""A chat template file's index and the findings of the template a path renders with: the
checks of folder_checks.py given what the model folder on disk says (its tokenizer, its
configs). Apart from folder_checks.py because reading a folder goes through
model_folder.folder, whose config checks use folder_checks (no import circle:
tests/unit/test_import_graph.py)."""

from __future__ import annotations

import os

from .checks import template_findings
from .folder_checks import folder_context


def findings_of_path(path: str) -> list[dict]:
    """The template checks of the template a path renders with (its folder's, a .jinja's, a
    GGUF's), as {"code", "severity", "message", "line"} (line: 1-based, in the template):
    what the playground shows beside a rendered chat."""
    from ..model import DEFAULT_SEVERITY
    from ..model_folder.folder import facts_from_disk, read_config, tokenizer_beside
    from .gguf_checks import own_findings
    from .source import chosen, open_source

    source = open_source(path)
    if source.gguf_meta is not None:
        from ..formats.registry import read_table

        got = read_table(path)
        table = got[1] if got is not None else None
        return (
            [
                {"code": f.code, "severity": DEFAULT_SEVERITY[f.code], "message": f.message, "line": None}
                for f in own_findings(table)
            ]
            if table is not None
            else []
        )
    place = chosen(source)
    configs = {}
    for name in ("special_tokens_map.json", "generation_config.json", "config.json"):
        p = os.path.join(source.folder, name)
        if os.path.isfile(p) and (doc := read_config(p)) is not None:
            configs[name] = doc
    tokenizer = tokenizer_beside(os.path.join(source.folder, "tokenizer_config.json"))
    facts = facts_from_disk(tokenizer) if tokenizer is not None else None
    ctx = folder_context(source.folder, source.config, configs, facts)
    return [
        {
            "code": f.code,
            "severity": DEFAULT_SEVERITY[f.code],
            "message": f.message,
            "line": place.text.count("\n", 0, f.start) + 1,
        }
        for f in template_findings(place.text, ctx)
    ]
