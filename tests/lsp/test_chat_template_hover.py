"""Hover in a chat template (tokenizer_config.json's chat_template string and a .jinja
beside a tokenizer): a special-token literal shows its id and whether it is special, a
template variable the value apply_chat_template passes. Expected values from transformers'
AutoTokenizer on the same folder (special_tokens_map, convert_tokens_to_ids,
added_tokens_decoder[id].special); DeepSeek's full-width literals with a token added by
`tokenizers` itself.
"""

from __future__ import annotations

import json

import pytest
from lsprotocol import types
from tokenizers import AddedToken, Tokenizer
from transformers import AutoTokenizer

from tests.conftest import corpus_file
from tests.lsp.harness import hover, open_doc
from tests.lsp.harness import shared_client as client  # noqa: F401
from tests.lsp.test_chat_template_files import qwen3_folder

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n"
    "<think>{% endif %}{{ eos_token }}{% if tools %}{{ pad_token }}{% endif %}"
)


def position(text: str, needle: str, inside: int = 1) -> tuple[int, int]:
    """The first `needle` of the template (in a config file: inside its chat_template)."""
    at = text.index(needle, text.find('"chat_template"') + 1) + inside
    line = text.count("\n", 0, at)
    return line, len(text[text.rfind("\n", 0, at) + 1 : at].encode("utf-16-le")) // 2


def value(h) -> str:
    assert h is not None
    return h.contents.value


@pytest.fixture(scope="module")
def deepseek_like(tmp_path_factory):
    """qwen3's tokenizer with DeepSeek's `<｜User｜>` added as a special token (by tokenizers)."""
    folder = tmp_path_factory.mktemp("deepseek")
    tok = Tokenizer.from_file(str(corpus_file("qwen3/tokenizer.json")))
    tok.add_special_tokens([AddedToken("<｜User｜>", special=True, normalized=False)])
    tok.save(str(folder / "tokenizer.json"))
    config = json.loads(corpus_file("qwen3/tokenizer_config.json").read_text(encoding="utf-8"))
    config["added_tokens_decoder"][str(tok.token_to_id("<｜User｜>"))] = {  # as a saved folder has it
        "content": "<｜User｜>",
        "lstrip": False,
        "normalized": False,
        "rstrip": False,
        "single_word": False,
        "special": True,
    }
    config["chat_template"] = "{% for m in messages %}<｜User｜>{{ m.content }}<｜Usr｜>{% endfor %}"
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.mark.parametrize("where", ["jinja", "config"])
async def test_hover_on_literals_and_variables(client, tmp_path, where):  # noqa: F811
    folder = qwen3_folder(tmp_path, TEMPLATE if where == "config" else None, TEMPLATE if where == "jinja" else None)
    path = folder / ("chat_template.jinja" if where == "jinja" else "tokenizer_config.json")
    text = path.read_text(encoding="utf-8")
    await open_doc(client, path.as_uri(), text, language="jinja" if where == "jinja" else "json")
    oracle = AutoTokenizer.from_pretrained(str(folder))
    special = oracle.special_tokens_map
    for literal in ("<|im_start|>", "<think>"):
        tid = oracle.convert_tokens_to_ids(literal)
        shown = value(await hover(client, path.as_uri(), *position(text, literal)))
        assert f"id {tid} " in shown
        assert ("a special token" in shown) == oracle.added_tokens_decoder[tid].special
    eos = value(await hover(client, path.as_uri(), *position(text, "eos_token")))
    assert f"`{special['eos_token']}` (id {oracle.convert_tokens_to_ids(special['eos_token'])} " in eos
    pad = value(await hover(client, path.as_uri(), *position(text, "pad_token")))
    assert f"`{special['pad_token']}` (id {oracle.convert_tokens_to_ids(special['pad_token'])} " in pad
    assert "bos_token" not in special  # qwen3 has none: the template sees it undefined
    assert "not set" in value(await hover(client, path.as_uri(), *position(text, "bos_token")))
    assert "`False` unless" in value(await hover(client, path.as_uri(), *position(text, "add_generation_prompt")))
    assert "conversation" in value(await hover(client, path.as_uri(), *position(text, "messages")))
    assert "`None` unless" in value(await hover(client, path.as_uri(), *position(text, "tools")))
    # definition of a literal: its entry in the tokenizer.json beside it
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(path.as_uri()), types.Position(*position(text, "<|im_start|>"))
        )
    )
    tokenizer_text = (folder / "tokenizer.json").read_text(encoding="utf-8")
    content_line = tokenizer_text[: tokenizer_text.index('"content": "<|im_start|>"')].count("\n")
    assert len(found) == 1 and found[0].uri.endswith("/tokenizer.json")
    assert found[0].range.start.line <= content_line <= found[0].range.end.line
    # an attribute or a key is no variable: `message['role']`, `message.content`
    for needle in ("role", "content"):
        h = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(*position(text, needle)))
        )
        assert h is None


async def test_full_width_literals(client, deepseek_like):  # noqa: F811
    config = deepseek_like / "tokenizer_config.json"
    text = config.read_text(encoding="utf-8")
    diags = await open_doc(client, config.as_uri(), text)
    oracle = AutoTokenizer.from_pretrained(str(deepseek_like))
    tid = oracle.convert_tokens_to_ids("<｜User｜>")
    assert oracle.added_tokens_decoder[tid].special
    shown = value(await hover(client, config.as_uri(), *position(text, "<｜User｜>")))
    assert f"id {tid} " in shown and "a special token" in shown
    typo = [d for d in diags if d.code == "chat-template-token"]
    assert oracle.convert_tokens_to_ids("<｜Usr｜>") == oracle.unk_token_id  # not a token (None: qwen3 has no unk)
    assert [(d.range.start.line, d.range.start.character) for d in typo] == [position(text, "<｜Usr｜>", inside=0)]
    assert "did you mean `<｜User｜>`" in typo[0].message
