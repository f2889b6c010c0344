"""`tokenizer-lsp.renderChat` and the code lens of a chat template. The rendered text and ids
are held to transformers' apply_chat_template (tokenize=False / True) on the same folder, the
editor's unsaved text included; what the lens says a template rejects to transformers raising
on that standard chat. A runaway template renders in the engine helper: a hover sent after it
is answered first.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from tokenizer_lsp.core.chat.chats import sample, standard_chats

from tests.chat import oracle
from tests.conftest import corpus_file
from tests.lsp.harness import hover, open_doc
from tests.lsp.harness import shared_client as client  # noqa: F401
from tests.lsp.test_chat_template_files import jinja_error, qwen3_folder

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")


def expected(folder, request: dict) -> tuple[str, list[int]]:
    tok = oracle.auto_tokenizer(str(folder))  # loaded once a content of the folder's files
    rest = {k: v for k, v in request.items() if k != "messages"}
    text = tok.apply_chat_template(request["messages"], tokenize=False, **rest)
    ids = tok.apply_chat_template(request["messages"], tokenize=True, **rest)
    ids = ids["input_ids"] if not isinstance(ids, list) else ids
    return text, list(ids)


async def render_chat(client, *arguments):  # noqa: F811
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="tokenizer-lsp.renderChat", arguments=list(arguments))
    )


def real_template() -> str:
    return json.loads(corpus_file("qwen3/tokenizer_config.json").read_text(encoding="utf-8"))["chat_template"]


async def test_render_chat_is_transformers(client, tmp_path):  # noqa: F811
    folder = qwen3_folder(tmp_path, real_template())
    config = folder / "tokenizer_config.json"
    await open_doc(client, config.as_uri(), config.read_text(encoding="utf-8"))
    got = await render_chat(client, config.as_uri())
    text, ids = expected(folder, sample())
    assert got["text"] == text and got["ids"] == ids
    assert got["template"]["source"].startswith("tokenizer_config.json")
    mine = {"messages": [{"role": "user", "content": "Bonjour 😀"}], "add_generation_prompt": True}
    got = await render_chat(client, config.as_uri(), mine)
    assert (got["text"], got["ids"]) == expected(folder, mine)


async def test_render_chat_reads_the_unsaved_template(client, tmp_path):  # noqa: F811
    folder = qwen3_folder(tmp_path, None, real_template())
    jinja = folder / "chat_template.jinja"
    await open_doc(client, jinja.as_uri(), real_template(), language="jinja")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=jinja.as_uri(), version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="EDITED "
                )
            ],
        )
    )
    got = await render_chat(client, jinja.as_uri())
    other = qwen3_folder(tmp_path, None, "EDITED " + real_template(), name="edited")
    assert (got["text"], got["ids"]) == expected(other, sample())
    assert got["text"].startswith("EDITED")  # the template begins `{%-`: the space goes


async def test_a_failing_template_is_one_error(client, tmp_path):  # noqa: F811
    folder = qwen3_folder(tmp_path, "{{ raise_exception('no system messages here') }}")
    config = folder / "tokenizer_config.json"
    await open_doc(client, config.as_uri(), config.read_text(encoding="utf-8"))
    with pytest.raises(Exception, match="no system messages here"):
        await render_chat(client, config.as_uri())
    with pytest.raises(Exception, match="messages"):
        await render_chat(client, config.as_uri(), {"no": "messages"})


async def test_a_runaway_template_does_not_hold_hovers(client, tmp_path):  # noqa: F811
    runaway = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}<|im_start|>"
    folder = qwen3_folder(tmp_path, None, runaway)
    jinja = folder / "chat_template.jinja"
    await open_doc(client, jinja.as_uri(), runaway, language="jinja")
    at = runaway.index("<|im_start|>") + 2
    assert await hover(client, jinja.as_uri(), 0, at) is not None  # the tokenizer beside it read once
    rendering = asyncio.ensure_future(render_chat(client, jinja.as_uri()))
    await asyncio.sleep(0)  # the request is written before the hover's
    shown = await hover(client, jinja.as_uri(), 0, at)
    assert shown is not None and not rendering.done()
    with pytest.raises(Exception, match="ran for more than 5 s"):
        await rendering


def lens_titles(lenses) -> list[str]:
    return [lens.command.title for lens in lenses]


async def test_code_lens_on_the_config_template(client, tmp_path):  # noqa: F811
    folder = qwen3_folder(tmp_path, real_template())
    config = folder / "tokenizer_config.json"
    text = config.read_text(encoding="utf-8")
    await open_doc(client, config.as_uri(), text)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(config.as_uri()))
    )
    tok = oracle.auto_tokenizer(str(folder))  # loaded once a content of the folder's files
    rejected = []
    for what, chat in standard_chats().values():
        try:
            tok.apply_chat_template(
                chat["messages"], tokenize=False, **{k: v for k, v in chat.items() if k != "messages"}
            )
        except Exception:  # noqa: BLE001
            rejected.append(what)
    assert rejected  # qwen3's template rejects content given as parts
    _, ids = expected(folder, sample())
    assert lens_titles(lenses) == [
        "renders",
        "rejects " + ", ".join(rejected),
        f"{len(ids)} tokens for the sample chat",
        "Preview",
    ]
    key = text.index('"chat_template"')
    assert {(lens.range.start.line, lens.range.start.character) for lens in lenses} == {
        (text.count("\n", 0, key), key - text.rfind("\n", 0, key) - 1)
    }
    assert lenses[-1].command.command == "tokenizerLsp.openPlayground"


async def test_code_lens_on_a_broken_jinja(client, tmp_path):  # noqa: F811
    broken = "{% for m in messages %}{{ m.content }}"
    folder = qwen3_folder(tmp_path, None, broken)
    jinja = folder / "chat_template.jinja"
    await open_doc(client, jinja.as_uri(), broken, language="jinja")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(jinja.as_uri()))
    )
    titles = lens_titles(lenses)
    said = jinja_error(broken).message  # jinja2's own words, as transformers compiles it
    assert titles[0].startswith("fails: does not compile: " + said[:40]) and titles[-1] == "Preview"
    assert {(lens.range.start.line, lens.range.start.character) for lens in lenses} == {(0, 0)}
