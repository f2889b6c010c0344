"""The code actions of a chat template: moving tokenizer_config.json's chat_template to
chat_template.jinja and back leaves a folder that transformers renders the same
(AutoTokenizer.from_pretrained before and after the WorkspaceEdit is applied, on the standard
chats); a chat-template-portability finding's portable spelling as a quick fix.
"""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tokenizer_lsp.core.chat.chats import standard_chats, with_next_turn

from tests.chat import oracle
from tests.conftest import corpus_file
from tests.lsp.harness import capabilities, open_doc
from tests.lsp.test_chat_template_files import qwen3_folder

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")


def _caps() -> types.ClientCapabilities:
    caps = capabilities()
    caps.workspace.workspace_edit = types.WorkspaceEditClientCapabilities(
        document_changes=True,
        resource_operations=[types.ResourceOperationKind.Create, types.ResourceOperationKind.Delete],
    )
    return caps


async def _session(lsp_client: LanguageClient):
    lsp_client.published = {}
    default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def recording(params):
        lsp_client.published[(params.uri, params.version)] = params.diagnostics
        return default(params)

    lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        return None

    await lsp_client.initialize_session(types.InitializeParams(capabilities=_caps()))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
async def client(lsp_client: LanguageClient):
    await _session(lsp_client)
    yield
    await lsp_client.shutdown_session()


# a stand-in for the portability module (core/chat/portability.py, written apart): one
# "construct" (`.strip()`) and its portable spelling (`| trim`), at its characters
STAND_IN = textwrap.dedent('''
    import re, sys, types
    from dataclasses import dataclass

    @dataclass
    class Issue:  # core/chat/portability.py's PortabilityIssue
        engine: str
        construct: str
        start: int
        end: int
        message: str
        portable: str | None

    def portability_issues(source, kwargs, ours):
        return [Issue("stand-in", "`.strip()`", m.start(), m.end(), "stand-in engine rejects .strip()", "| trim")
                for m in re.finditer(r"\\.strip\\(\\)", source)]

    module = types.ModuleType("tokenizer_lsp.core.chat.portability")
    module.portability_issues = portability_issues
    sys.modules[module.__name__] = module
    from tokenizer_lsp.cli import run
    run()
''')


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", STAND_IN]))
async def stand_in_client(lsp_client: LanguageClient):
    await _session(lsp_client)
    yield
    await lsp_client.shutdown_session()


def renders(folder) -> dict[str, str]:
    """What transformers makes of each standard chat (and with one more turn, and with the
    generation prompt) with the folder's template: the text, or the error it raises."""
    tok = oracle.auto_tokenizer(str(folder))  # loaded once a content of the folder's files
    out = {}
    for name, (_, chat) in standard_chats().items():
        for label, kwargs in (
            (name, chat),
            (name + "+turn", with_next_turn(chat)),
            (name + "+prompt", {**chat, "add_generation_prompt": True}),
        ):
            try:
                rest = {k: v for k, v in kwargs.items() if k != "messages"}
                out[label] = tok.apply_chat_template(kwargs["messages"], tokenize=False, **rest)
            except Exception as e:  # noqa: BLE001 - what it raises is part of what it does
                out[label] = f"raises {type(e).__name__}: {e}"
    return out


def read_exactly(path) -> str:
    with open(path, encoding="utf-8", newline="") as f:  # \r\n kept
        return f.read()


def _offset(text: str, line: int, character: int) -> int:
    start = 0
    for _ in range(line):
        start = text.index("\n", start) + 1
    units, at = 0, start
    while units < character:
        units += 2 if ord(text[at]) > 0xFFFF else 1
        at += 1
    return at


def apply_workspace_edit(edit) -> None:
    """What an editor does with the WorkspaceEdit: files created, edited, deleted."""
    from pygls.uris import to_fs_path

    for change in edit["documentChanges"]:
        if change.get("kind") == "create":
            path = to_fs_path(change["uri"])
            with open(path, "x", encoding="utf-8", newline=""):
                pass
        elif change.get("kind") == "delete":
            import os

            os.unlink(to_fs_path(change["uri"]))
        else:
            path = to_fs_path(change["textDocument"]["uri"])
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            for e in sorted(
                change["edits"],
                key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                reverse=True,
            ):
                a = _offset(text, e["range"]["start"]["line"], e["range"]["start"]["character"])
                b = _offset(text, e["range"]["end"]["line"], e["range"]["end"]["character"])
                text = text[:a] + e["newText"] + text[b:]
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)


async def actions(client, uri, line, character, diagnostics=()):
    got = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(line, character), types.Position(line, character)),
            types.CodeActionContext(diagnostics=list(diagnostics)),
        )
    )
    return [client.protocol._converter.unstructure(a) for a in got or []]


@pytest.mark.parametrize("template", ["real", "escapes"])
async def test_move_out_and_back_renders_the_same(client, tmp_path, template):
    real = json.loads(corpus_file("qwen3/tokenizer_config.json").read_text(encoding="utf-8"))["chat_template"]
    text = real if template == "real" else ('{{- "é😀 \\"quoted\\"\\t" }}\n' + real + "\n{# \u2028 \\u00e9 #}")
    folder = qwen3_folder(tmp_path, text)
    before = renders(folder)
    assert before["plain"].startswith("<|im_start|>user\nHello!") or before["plain"].startswith('é😀 "quoted"')
    config = folder / "tokenizer_config.json"
    config_text = config.read_text(encoding="utf-8")
    await open_doc(client, config.as_uri(), config_text)
    line = config_text[: config_text.index('"chat_template"')].count("\n")
    found = [a for a in await actions(client, config.as_uri(), line, 4) if a["title"].startswith("Move the chat")]
    assert len(found) == 1 and "disabled" not in found[0]
    apply_workspace_edit(found[0]["edit"])
    assert read_exactly(folder / "chat_template.jinja") == text
    assert "chat_template" not in json.loads(config.read_text(encoding="utf-8"))
    assert renders(folder) == before
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(config.as_uri())))

    jinja = folder / "chat_template.jinja"
    await open_doc(client, jinja.as_uri(), text, language="jinja")
    found = [a for a in await actions(client, jinja.as_uri(), 0, 0) if a["title"].startswith("Move chat_template")]
    assert len(found) == 1 and "disabled" not in found[0]
    apply_workspace_edit(found[0]["edit"])
    assert not jinja.exists()
    assert json.loads(config.read_text(encoding="utf-8"))["chat_template"] == text
    assert renders(folder) == before


async def test_move_out_is_disabled_when_a_jinja_takes_effect(client, tmp_path):
    folder = qwen3_folder(tmp_path, "{{ messages[0].content }}", "{{ messages[-1].content }}")
    config = folder / "tokenizer_config.json"
    config_text = config.read_text(encoding="utf-8")
    await open_doc(client, config.as_uri(), config_text)
    line = config_text[: config_text.index('"chat_template"')].count("\n")
    found = [a for a in await actions(client, config.as_uri(), line, 4) if a["title"].startswith("Move the chat")]
    assert len(found) == 1 and "exists already" in found[0]["disabled"]["reason"] and "edit" not in found[0]


async def test_portable_spelling_quick_fix(stand_in_client, tmp_path):
    template = (
        "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content.strip() }}<|im_end|>\n"
        "{%- endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    folder = qwen3_folder(tmp_path, 'é😀\n' + template)
    config = folder / "tokenizer_config.json"
    text = config.read_text(encoding="utf-8")
    diags = await open_doc(stand_in_client, config.as_uri(), text)
    found = [d for d in diags if d.code == "chat-template-portability"]
    at = text.index(".strip()")
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1)  # the JSON text is ASCII (\\u escapes): columns are characters
    assert [(d.range.start.line, d.range.start.character, d.range.end.character) for d in found] == [
        (line, column, column + len(".strip()"))
    ]
    got = await actions(stand_in_client, config.as_uri(), line, column, found)
    fix = [a for a in got if a["title"].startswith("Write it portably")]
    assert len(fix) == 1
    apply_workspace_edit(
        {"documentChanges": fix[0]["edit"]["documentChanges"]}
        if "documentChanges" in fix[0]["edit"]
        else {
            "documentChanges": [
                {"textDocument": {"uri": config.as_uri()}, "edits": e} for e in fix[0]["edit"]["changes"].values()
            ]
        }
    )
    assert json.loads(config.read_text(encoding="utf-8"))["chat_template"] == 'é😀\n' + template.replace(
        ".strip()", "| trim"
    )
