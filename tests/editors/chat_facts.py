"""Chat templates in a real editor: model folders built from the corpus' qwen3 with one defect
each, and what the editor must show for them, worked out with tokenizers, transformers' jinja2
set-up and the files' own text, never with tokenizer-lsp. Used by scripts/nvim-e2e.sh
(imported) and scripts/emacs-e2e.sh (run):

    python tests/editors/chat_facts.py QWEN3_DIR DEST > facts.json

DEST gets
  chat/       tokenizer.json (a symlink to qwen3's), tokenizer_config.json without its
              chat_template, chat_template.jinja = qwen3's template with its second
              `<|im_start|>` misspelt `<|im_strat|>`, additional_chat_templates/tool_use.jinja
              = qwen3's template with its first `{%- endfor %}` left unclosed (`{%- endfor`)
  inline/     tokenizer.json (symlink) and tokenizer_config.json whose chat_template string
              holds the same typo
  web/        page.jinja: a Jinja file that is no chat template (no server for it)
and the facts: per file, the diagnostics expected (code, 0-based line, UTF-16 columns) and the
hovers (position, what the text must contain).
"""

from __future__ import annotations

import json
import os
import sys

TYPO, RIGHT = "<|im_strat|>", "<|im_start|>"
ENDFOR = "{%- endfor %}"


def _position(text: str, index: int) -> dict:
    """0-based line and UTF-16 column of text[index] (LSP positions)."""
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return {"line": line, "character": len(text[start:index].encode("utf-16-le")) // 2}


def _literal(text: str, literal: str, nth: int = 1, after: int = 0) -> dict:
    """The range of the nth `literal` in text from index `after`."""
    at = after - 1
    for _ in range(nth):
        at = text.index(literal, at + 1)
    start = _position(text, at)
    return {
        "line": start["line"],
        "character": start["character"],
        "end_character": start["character"] + len(literal.encode("utf-16-le")) // 2,
    }


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def _folder(dest: str, qwen3: str, config: dict) -> str:
    os.makedirs(dest, exist_ok=True)
    link = os.path.join(dest, "tokenizer.json")
    if not os.path.lexists(link):
        os.symlink(os.path.join(qwen3, "tokenizer.json"), link)
    _write(os.path.join(dest, "tokenizer_config.json"), json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    return dest


def build(qwen3: str, dest: str) -> list[dict]:
    import jinja2
    from tokenizers import Tokenizer
    from transformers.utils.chat_template_utils import _compile_jinja_template

    with open(os.path.join(qwen3, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    template = config.pop("chat_template")
    tok = Tokenizer.from_file(os.path.join(qwen3, "tokenizer.json"))
    im_start = tok.token_to_id(RIGHT)
    eos = config["eos_token"]
    eos = eos["content"] if isinstance(eos, dict) else eos
    eos_id = tok.token_to_id(eos)
    if im_start is None or eos_id is None or template.count(RIGHT) < 2 or ENDFOR not in template:
        sys.exit(f"chat_facts: {qwen3} is not the qwen3 folder this test expects")

    second = template.index(RIGHT, template.index(RIGHT) + 1)
    misspelt = template[:second] + TYPO + template[second + len(RIGHT) :]
    i = template.index(ENDFOR)
    unclosed = template[:i] + "{%- endfor" + template[i + len(ENDFOR) :]
    try:  # where transformers' jinja2 set-up says the template breaks
        _compile_jinja_template(unclosed)
        sys.exit("chat_facts: transformers compiles the template with an unclosed endfor")
    except jinja2.TemplateSyntaxError as e:
        syntax_line, syntax_message = e.lineno - 1, e.message
    unclosed_lines = unclosed.split("\n")
    line_text = unclosed_lines[syntax_line]
    syntax = {
        "line": syntax_line,
        "character": len(line_text) - len(line_text.lstrip()),
        "end_character": len(line_text.encode("utf-16-le")) // 2,
        "jinja2": syntax_message,
    }

    chat = _folder(os.path.join(dest, "chat"), qwen3, config)
    os.makedirs(os.path.join(chat, "additional_chat_templates"), exist_ok=True)
    jinja_path = os.path.join(chat, "chat_template.jinja")
    _write(jinja_path, misspelt)
    tool_path = os.path.join(chat, "additional_chat_templates", "tool_use.jinja")
    _write(tool_path, unclosed)

    inline = _folder(os.path.join(dest, "inline"), qwen3, dict(config, chat_template=misspelt))
    config_path = os.path.join(inline, "tokenizer_config.json")
    with open(config_path, encoding="utf-8") as f:
        config_text = f.read()
    in_string = config_text.index('"chat_template"')

    web = os.path.join(dest, "web")
    os.makedirs(web, exist_ok=True)
    _write(
        os.path.join(web, "page.jinja"), "<title>{{ title }}</title>\n{% for x in items %}<|im_strat|>{% endfor %}\n"
    )

    hovers = [
        {"literal": RIGHT, "contains": [f"id {im_start}"]},
        {"literal": "eos_token", "contains": [eos, f"id {eos_id}"]},
    ]

    def hover_at(text: str, after: int = 0) -> list[dict]:
        return [dict(h, **_literal(text, h["literal"], after=after)) for h in hovers if h["literal"] in text[after:]]

    return [
        {
            "kind": "chat",
            "filetype": "jinja",
            "path": jinja_path,
            "diagnostics": [dict(code="chat-template-token", exact=True, **_literal(misspelt, TYPO))],
            "hovers": hover_at(misspelt),
        },
        {
            "kind": "chat",
            "filetype": "jinja",
            "path": tool_path,
            "diagnostics": [dict(code="chat-template-syntax", exact=False, **syntax)],
            "hovers": hover_at(unclosed)[:1],
        },
        {
            "kind": "chat",
            "filetype": "json",
            "path": config_path,
            "diagnostics": [
                dict(code="chat-template-token", exact=True, **_literal(config_text, TYPO, after=in_string))
            ],
            "hovers": hover_at(config_text, in_string)[:1],
        },
        {
            "kind": "chat-other",
            "filetype": "jinja",
            "path": os.path.join(web, "page.jinja"),
            "diagnostics": [],
            "hovers": [],
        },
    ]


if __name__ == "__main__":
    json.dump({"files": build(sys.argv[1], sys.argv[2])}, sys.stdout, ensure_ascii=False, indent=1)
