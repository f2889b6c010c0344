"""Where a model folder's chat templates live, and which one takes effect (docs/guides/check-a-chat-template.md
"Where a chat template lives").

The order is transformers 5.24's (`PreTrainedTokenizerBase.from_pretrained` /
`_from_pretrained` and `get_chat_template`):
1. `chat_template.jinja` and `additional_chat_templates/*.jinja`: when either exists they
   replace tokenizer_config.json's `chat_template` entirely ("independent chat template files
   take priority"). One default file alone is the template; otherwise they form a dict of
   named templates, `chat_template.jinja` being "default".
2. tokenizer_config.json's `chat_template`: a string, or a list of {"name", "template"}.
3. With named templates: the name asked for, else "tool_use" when tools are given, else
   "default", else transformers raises ("multiple chat templates with no default").
`chat_template.json` ({"chat_template": ...}) is the processors' older layout: AutoTokenizer
never reads it; it is listed, and never takes effect here.
A GGUF holds `tokenizer.chat_template` (default) and `tokenizer.chat_template.NAME`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import orjson

JINJA_FILE = "chat_template.jinja"
JINJA_DIR = "additional_chat_templates"
LEGACY_JSON = "chat_template.json"
CONFIG = "tokenizer_config.json"


@dataclass(frozen=True)
class TemplatePlace:
    """One template: its text, its name, and where it is written."""

    name: str  # "default" for the single/default template
    text: str
    path: str  # the file holding it
    key: str | None = None  # inside a JSON file: "chat_template", "chat_template[2]", a GGUF key
    effective: bool = False  # the one (or among the named ones) transformers loads

    @property
    def label(self) -> str:
        where = os.path.basename(self.path)
        if os.path.basename(os.path.dirname(self.path)) == JINJA_DIR:
            where = f"{JINJA_DIR}/{where}"
        return f"{where} ({self.key})" if self.key else where


def template_files_in(folder: str) -> list[str]:
    """chat_template.jinja and additional_chat_templates/*.jinja of a folder: what `check DIR` adds
    (here, not beside the checks: `check` on files imports no Jinja)."""
    out = []
    if os.path.isfile(p := os.path.join(folder, JINJA_FILE)):
        out.append(p)
    extra = os.path.join(folder, JINJA_DIR)
    if os.path.isdir(extra):
        out += [os.path.join(extra, n) for n in sorted(os.listdir(extra)) if n.endswith(".jinja")]
    return out


class NoTemplate(LookupError):
    """No template, or no template of that name: a one-line reason."""


def _read_text(path: str) -> str | None:
    try:
        # universal newlines, as transformers reads chat_template.jinja (`open(..., encoding=
        # "utf-8")`): a template saved with \r\n renders with \n there, so here too
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _load_json(path: str):
    try:
        with open(path, "rb") as f:
            return orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return None


def config_templates(obj, path: str) -> list[TemplatePlace]:
    """The templates of a tokenizer_config.json object (a string, or named ones)."""
    value = obj.get("chat_template") if isinstance(obj, dict) else None
    if isinstance(value, str):
        return [TemplatePlace("default", value, path, "chat_template")]
    out = []
    if isinstance(value, list):
        for k, item in enumerate(value):
            if isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("template"), str):
                out.append(TemplatePlace(item["name"], item["template"], path, f"chat_template[{k}]"))
    return out


def folder_places(folder: str, config_obj=None) -> list[TemplatePlace]:
    """Every template of a model folder, those transformers loads marked `effective`."""
    files: list[TemplatePlace] = []
    jinja = os.path.join(folder, JINJA_FILE)
    if os.path.isfile(jinja) and (text := _read_text(jinja)) is not None:
        files.append(TemplatePlace("default", text, jinja))
    extra_dir = os.path.join(folder, JINJA_DIR)
    if os.path.isdir(extra_dir):
        for name in sorted(os.listdir(extra_dir)):
            p = os.path.join(extra_dir, name)
            if name.endswith(".jinja") and os.path.isfile(p) and (text := _read_text(p)) is not None:
                files.append(TemplatePlace(name[: -len(".jinja")], text, p))
    config_path = os.path.join(folder, CONFIG)
    if config_obj is None and os.path.isfile(config_path):
        config_obj = _load_json(config_path)
    inline = config_templates(config_obj, config_path)
    legacy_path = os.path.join(folder, LEGACY_JSON)
    legacy = []
    if os.path.isfile(legacy_path):
        obj = _load_json(legacy_path)
        if isinstance(obj, dict) and isinstance(obj.get("chat_template"), str):
            legacy.append(TemplatePlace("default", obj["chat_template"], legacy_path, "chat_template"))
    taking = files if files else inline  # files replace the config's templates entirely
    marked = [TemplatePlace(p.name, p.text, p.path, p.key, True) for p in taking]
    rest = inline if files else []
    return marked + rest + legacy


def gguf_places(meta: dict, path: str) -> list[TemplatePlace]:
    """A GGUF's templates: `tokenizer.chat_template` and `tokenizer.chat_template.NAME`
    (meta keys as the GGUF reader gives them, full names)."""
    out = []
    for key, value in meta.items():
        if isinstance(value, str) and (key == "tokenizer.chat_template" or key.startswith("tokenizer.chat_template.")):
            name = "default" if key == "tokenizer.chat_template" else key[len("tokenizer.chat_template.") :]
            out.append(TemplatePlace(name, value, path, key, True))
    return out


def effective(places: list[TemplatePlace], name: str | None = None, tools: bool = False) -> TemplatePlace:
    """The template transformers' get_chat_template picks (NoTemplate when it would raise)."""
    taking = [p for p in places if p.effective]
    if not taking:
        raise NoTemplate(
            "no chat template (none in tokenizer_config.json, chat_template.jinja or additional_chat_templates/)"
        )
    named = {p.name: p for p in taking}
    single = (
        len(taking) == 1
        and taking[0].name == "default"
        and taking[0].key in (None, "chat_template", "tokenizer.chat_template")
    )
    if single:
        # one template: transformers takes `chat_template=NAME` as template text, not a name
        if name not in (None, "default"):
            raise NoTemplate(f"no template named {name!r}: the folder has one template ({taking[0].label})")
        return taking[0]
    if name is not None:
        if name in named:
            return named[name]
        raise NoTemplate(f"no template named {name!r}; the folder has: {', '.join(sorted(named))}")
    if tools and "tool_use" in named:
        return named["tool_use"]
    if "default" in named:
        return named["default"]
    raise NoTemplate(
        "This model has multiple chat templates with no default specified; name one with --template "
        f"({', '.join(sorted(named))})"
    )
