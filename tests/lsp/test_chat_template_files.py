"""Chat templates in the editor (INTERFACE Part 4 "Chat templates in an editor"): the
findings of tokenizer_config.json's chat_template on the exact characters inside the JSON
string (escapes, UTF-16 columns), and chat_template.jinja / additional_chat_templates/*.jinja
served beside a tokenizer, re-checked when the folder changes, not served elsewhere.

Expected places come from jinja2 compiling the template as transformers does (its line and
the word it names) and from the file's own text; folders are built in tmp_path around a
symlink to the corpus' qwen3 tokenizer.json.
"""

from __future__ import annotations

import json

import jinja2
import pytest
from lsprotocol import types
from transformers.utils.chat_template_utils import _compile_jinja_template

from tests.conftest import corpus_file
from tests.lsp.harness import open_doc
from tests.lsp.harness import shared_client as client  # noqa: F401
from tests.lsp_idle import wait_idle

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

# a template with escapes (\n, \", é, a non-BMP character) before a stray {% endfor %}
BROKEN = (
    'é😀 say "hi"\n{% for m in messages %}{{ m[\'content\'] }}{% endfor %}\n'
    "{{ bos_token }}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}\n{% endfor %}"
)


def qwen3_folder(tmp_path, template=None, jinja=None, name="model"):
    """A model folder: qwen3's tokenizer.json (a symlink) and tokenizer_config.json, its
    chat_template replaced by `template` (None: removed), and a chat_template.jinja."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "tokenizer.json").symlink_to(corpus_file("qwen3/tokenizer.json"))
    config = json.loads(corpus_file("qwen3/tokenizer_config.json").read_text(encoding="utf-8"))
    if template is None:
        config.pop("chat_template", None)
    else:
        config["chat_template"] = template
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=True), encoding="utf-8")
    if jinja is not None:
        (folder / "chat_template.jinja").write_text(jinja, encoding="utf-8", newline="")
    return folder


def jinja_error(template: str) -> jinja2.TemplateSyntaxError:
    try:
        _compile_jinja_template(template)
    except jinja2.TemplateSyntaxError as e:
        return e
    raise AssertionError("transformers compiles the template")


def utf16_position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return line, len(text[start:index].encode("utf-16-le")) // 2


def expected_endfor(text: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where the stray `endfor` of BROKEN is in a file's text: jinja2 names the word and
    its template line (the last line); its last occurrence is on that line."""
    e = jinja_error(BROKEN)
    assert e.lineno == BROKEN.count("\n") + 1 and "'endfor'" in e.message
    at = text.rindex("endfor")
    return utf16_position(text, at), utf16_position(text, at + len("endfor"))


def syntax(diags) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return [
        ((d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character))
        for d in diags
        if d.code == "chat-template-syntax"
    ]


@pytest.mark.parametrize("ascii_only", [True, False])
async def test_config_finding_sits_inside_the_json_string(client, tmp_path, ascii_only):  # noqa: F811
    folder = qwen3_folder(tmp_path, BROKEN)
    config = folder / "tokenizer_config.json"
    obj = json.loads(config.read_text(encoding="utf-8"))
    text = json.dumps(obj, indent=2, ensure_ascii=ascii_only)  # \u00e9 \ud83d\ude00, or é and 😀 as they are
    config.write_text(text, encoding="utf-8")
    assert ('\\ud83d\\ude00' in text) == ascii_only and '\\"hi\\"' in text and "\\n{% for" in text
    diags = await open_doc(client, config.as_uri(), text)
    assert syntax(diags) == [expected_endfor(text)]


async def test_jinja_beside_a_tokenizer_is_served(client, tmp_path):  # noqa: F811
    folder = qwen3_folder(tmp_path, None, BROKEN)
    path = folder / "chat_template.jinja"
    diags = await open_doc(client, path.as_uri(), BROKEN, language="jinja")
    assert syntax(diags) == [expected_endfor(BROKEN)]


async def test_additional_templates_are_served_in_plaintext(client, tmp_path):  # noqa: F811
    folder = qwen3_folder(tmp_path, None)
    (folder / "additional_chat_templates").mkdir()
    path = folder / "additional_chat_templates" / "tool_use.jinja"
    path.write_text(BROKEN, encoding="utf-8", newline="")
    diags = await open_doc(client, path.as_uri(), BROKEN, language="plaintext")
    assert syntax(diags) == [expected_endfor(BROKEN)]


async def test_jinja_without_a_tokenizer_is_not_served(client, tmp_path):  # noqa: F811
    path = tmp_path / "chat_template.jinja"
    path.write_text(BROKEN, encoding="utf-8", newline="")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="jinja", version=1, text=BROKEN))
    )
    await wait_idle(client)
    assert [k for k in client.published if k[0] == uri] == []


async def test_jinja_is_checked_again_when_the_config_changes(client, tmp_path):  # noqa: F811
    """An assistant turn of this template ends with <|im_end|>: a stop token while the
    config's eos_token is <|im_end|> (the folder has no generation_config.json), not once
    the open tokenizer_config.json says <|endoftext|>: the .jinja is checked again."""
    template = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    folder = qwen3_folder(tmp_path, None, template)
    config = folder / "tokenizer_config.json"
    jinja_uri = (folder / "chat_template.jinja").as_uri()
    first = await open_doc(client, jinja_uri, template, language="jinja")
    assert [d.code for d in first] == []  # eos_token <|im_end|> ends the turn
    config_text = config.read_text(encoding="utf-8")
    eos_line = next(k for k, line in enumerate(config_text.split("\n")) if '"eos_token"' in line)
    await open_doc(client, config.as_uri(), config_text)
    old = config_text.split("\n")[eos_line]
    new = old.replace("<|im_end|>", "<|endoftext|>")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=config.as_uri(), version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(eos_line, 0), types.Position(eos_line, len(old))), text=new
                )
            ],
        )
    )
    await wait_idle(client)
    latest = client.published[(jinja_uri, 1)]  # published again for its version
    assert [d.code for d in latest] == ["chat-template-stop-token"]


async def test_a_misspelt_special_token_in_a_jinja(client, tmp_path):  # noqa: F811
    from tokenizers import Tokenizer

    template = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_edn|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    tok = Tokenizer.from_file(str(corpus_file("qwen3/tokenizer.json")))
    assert tok.token_to_id("<|im_edn|>") is None and tok.token_to_id("<|im_end|>") is not None
    folder = qwen3_folder(tmp_path, None, template)
    diags = await open_doc(client, (folder / "chat_template.jinja").as_uri(), template, language="jinja")
    typo = [d for d in diags if d.code == "chat-template-token"]
    at = template.index("<|im_edn|>")
    assert [
        ((d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character)) for d in typo
    ] == [(utf16_position(template, at), utf16_position(template, at + len("<|im_edn|>")))]
    assert "did you mean `<|im_end|>`" in typo[0].message
