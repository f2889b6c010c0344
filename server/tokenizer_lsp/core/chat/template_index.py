"""A chat template file's index and the findings of the template a path renders with: the
checks of folder_checks.py given what the model folder on disk says (its tokenizer, its
configs). Apart from folder_checks.py because reading a folder goes through
model_folder.folder, whose config checks use folder_checks (no import circle:
tests/unit/test_import_graph.py)."""

from __future__ import annotations

import os

from .checks import template_findings
from .folder_checks import _obj, folder_context, jinja_file_findings
from .places import JINJA_DIR, JINJA_FILE


def jinja_index(data: bytes, path: str):
    """A `.jinja` template file's index: its template findings against the model folder it
    stands in (a template with no tokenizer beside it is not a file this tool reports on)."""
    from ..document_index import DocumentIndex
    from ..model_folder.folder import facts_from_disk, read_config, tokenizer_beside
    from .source import model_folder_of

    folder = model_folder_of(path)
    tokenizer = tokenizer_beside(os.path.join(folder, "tokenizer_config.json"))
    if tokenizer is None:
        return DocumentIndex(data, path, not_tokenizer_reason="not a tokenizer file (a .jinja template with no "
                             "tokenizer beside it)")
    configs = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json", "generation_config.json", "config.json"):
        doc = read_config(os.path.join(folder, name)) if os.path.isfile(os.path.join(folder, name)) else None
        if doc is not None:
            configs[name] = doc
    config = _obj(configs.get("tokenizer_config.json")) or {}
    ctx = folder_context(folder, config if isinstance(config, dict) else {}, configs, facts_from_disk(tokenizer))
    return DocumentIndex(data, path, "chat-template", None, jinja_file_findings(data, ctx))


def template_files_in(folder: str) -> list[str]:
    """chat_template.jinja and additional_chat_templates/*.jinja of a folder: what `check DIR` adds."""
    out = []
    if os.path.isfile(p := os.path.join(folder, JINJA_FILE)):
        out.append(p)
    extra = os.path.join(folder, JINJA_DIR)
    if os.path.isdir(extra):
        out += [os.path.join(extra, n) for n in sorted(os.listdir(extra)) if n.endswith(".jinja")]
    return out


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
        return [{"code": f.code, "severity": DEFAULT_SEVERITY[f.code], "message": f.message, "line": None}
                for f in own_findings(table)] if table is not None else []
    place = chosen(source)
    configs = {}
    for name in ("special_tokens_map.json", "generation_config.json", "config.json"):
        p = os.path.join(source.folder, name)
        if os.path.isfile(p) and (doc := read_config(p)) is not None:
            configs[name] = doc
    tokenizer = tokenizer_beside(os.path.join(source.folder, "tokenizer_config.json"))
    facts = facts_from_disk(tokenizer) if tokenizer is not None else None
    ctx = folder_context(source.folder, source.config, configs, facts)
    return [{"code": f.code, "severity": DEFAULT_SEVERITY[f.code], "message": f.message,
             "line": place.text.count("\n", 0, f.start) + 1} for f in template_findings(place.text, ctx)]
