"""Fuzzing the position mapping of chat templates written inside tokenizer_config.json's JSON
string (escapes: \\n, \\", \\uXXXX, surrogate pairs; raw non-BMP characters) and in .jinja
files: a template's findings land on the bytes of the construct they name, a hover finds the
variable under the cursor, and every LSP position lies inside the document at the place
the text itself says (computed from the JSON text, not through our mapping).
"""

from __future__ import annotations

import json

import jinja2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizer_lsp.core.chat.context import ChatContext
from tokenizer_lsp.core.chat.folder_checks import (
    config_template_findings,
    jinja_file_findings,
)
from tokenizer_lsp.core.model_folder.chat_template_file import TemplateDocument
from tokenizer_lsp.core.model_folder.chat_template_hover import template_at, variable_at
from tokenizer_lsp.core.model_folder.config_doc import ConfigDocument
from tokenizer_lsp.core.model_folder.spans import string_offsets
from tokenizer_lsp.core.text.lines import LineIndex
from transformers.utils.chat_template_utils import _compile_jinja_template

# text a template may hold around its constructs: anything but Jinja's delimiters and lone
# surrogates (JSON cannot carry them), with the characters JSON escapes made likely
_CHARS = st.characters(exclude_categories=("Cs",), exclude_characters="{}%#")
_TEXT = st.lists(
    st.one_of(_CHARS, st.sampled_from(['"', "\\", "\n", "\t", "\r", "\u2028", "é", "😀", "𝔘", "\x00"])), max_size=40
).map("".join)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def utf16_position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return line, len(text[start:index].encode("utf-16-le")) // 2


def config_bytes(template: str, before: str, ascii_only: bool) -> tuple[str, bytes]:
    text = json.dumps(
        {"eos_token": "<|im_end|>", "note": before, "chat_template": template}, indent=2, ensure_ascii=ascii_only
    )
    return text, text.encode("utf-8")


@SETTINGS
@given(_TEXT, _TEXT, st.booleans())
def test_each_character_maps_to_its_escape(template, before, ascii_only):
    _, data = config_bytes(template, before, ascii_only)
    doc = ConfigDocument(data, "/m/tokenizer_config.json")
    _, node = doc.tree.keys["chat_template"]
    text, offsets = string_offsets(data, node.start, node.end)
    assert text == template and len(offsets) == len(template) + 1
    for k, ch in enumerate(template):
        assert json.loads(b'"' + data[offsets[k] : offsets[k + 1]] + b'"') == ch


@SETTINGS
@given(_TEXT, _TEXT, _TEXT, st.booleans())
def test_a_syntax_finding_sits_on_its_word(head, tail, before, ascii_only):
    template = head + "{{ bos_token }}" + tail + "{% endfor %}"
    try:
        _compile_jinja_template(template)
        raise AssertionError("compiles")
    except jinja2.TemplateSyntaxError as e:
        assert "'endfor'" in e.message  # jinja2 names the stray word
    text, data = config_bytes(template, before, ascii_only)
    doc = ConfigDocument(data, "/m/tokenizer_config.json")
    findings = config_template_findings(doc, ChatContext())
    assert [f.code for f in findings] == ["chat-template-syntax"]
    f = findings[0]
    assert data[f.start : f.end] == b"endfor"
    # as the editor is told it: where the JSON text itself has that word
    at = text.rindex("endfor")
    lines = LineIndex(data)
    assert lines.positions([f.start, f.end], "utf-16") == [
        utf16_position(text, at),
        utf16_position(text, at + len("endfor")),
    ]
    # a hover on bos_token finds the variable, through the escapes before it
    var_at = data.rindex(b"bos_token")
    for offset in (var_at, var_at + 4, var_at + 8):
        found = template_at(doc, offset)
        assert found is not None
        chars, offsets, k = found
        var = variable_at(chars, k)
        assert var is not None and var[2] == "bos_token" and offsets[var[0]] == var_at


@SETTINGS
@given(_TEXT, _TEXT)
def test_a_jinja_file_finding_sits_on_its_word(head, tail):
    template = head + "{{ bos_token }}" + tail + "{% endfor %}"
    data = template.encode("utf-8")
    findings = jinja_file_findings(data, ChatContext())
    assert [f.code for f in findings] == ["chat-template-syntax"]
    f = findings[0]
    assert data[f.start : f.end] == b"endfor"
    at = template.rindex("endfor")
    lines = LineIndex(data)
    positions = lines.positions([f.start, f.end], "utf-16")
    # LSP counts lines at \n, \r\n and \r alike
    split = template.replace("\r\n", "\n").replace("\r", "\n")
    shift = len(template[:at]) - len(template[:at].replace("\r\n", "\n"))
    assert positions == [utf16_position(split, at - shift), utf16_position(split, at - shift + len("endfor"))]
    doc = TemplateDocument(data, "/m/chat_template.jinja")
    var_at = data.rindex(b"bos_token")
    chars, offsets, k = template_at(doc, var_at + 3)
    var = variable_at(chars, k)
    assert var is not None and offsets[var[0]] == var_at
