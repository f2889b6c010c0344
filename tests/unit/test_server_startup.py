"""What the server prepares at startup so that the first keystroke costs what the next ones
do: cattrs' code for every served method's messages and answers, kept through cattrs'
cache clearing (lsp/precompiled_converters.py), and the typing fast path imported with the server
(lsp/jobs/indexing.py)."""

from __future__ import annotations

import builtins
import subprocess
import sys

import orjson
from lsprotocol import types
from pygls.protocol import JsonRPCResponseMessage
from tokenizer_lsp.lsp import precompiled_converters
from tokenizer_lsp.lsp.routes import ROUTES
from tokenizer_lsp.lsp.server import TokenizerServer

# messages an editor sends while a user types and looks around, as they come off the wire
MESSAGES = [
    {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": "file:///t/tokenizer.json", "version": 2},
            "contentChanges": [
                {"range": {"start": {"line": 3, "character": 5}, "end": {"line": 3, "character": 5}}, "text": "x"}
            ],
        },
    },
    {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": "file:///t/tokenizer.json"}, "position": {"line": 3, "character": 6}},
    },
    {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "textDocument/codeAction",
        "params": {
            "textDocument": {"uri": "file:///t/tokenizer.json"},
            "range": {"start": {"line": 3, "character": 5}, "end": {"line": 3, "character": 5}},
            "context": {"diagnostics": [], "triggerKind": 2},
        },
    },
    {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "textDocument/inlayHint",
        "params": {
            "textDocument": {"uri": "file:///t/tokenizer.json"},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}},
        },
    },
]


def _counting_compiles(monkeypatch) -> list[str]:
    """The names of the sources compiled from now on (cattrs compiles what it generates)."""
    compiled: list[str] = []
    real = builtins.compile

    def counting(source, filename, *args, **kwargs):
        compiled.append(str(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", counting)
    return compiled


def _read(server: TokenizerServer, message: dict):
    # as the stdio loop reads one (runtime/stdio.py): the message object through the hook
    return server.protocol.structure_message(orjson.loads(orjson.dumps(message)))


def test_a_fresh_server_generates_code_when_a_didchange_first_arrives(monkeypatch):
    # the premise: without the preparation, reading a method's first message writes code
    server = TokenizerServer()
    compiled = _counting_compiles(monkeypatch)
    _read(server, MESSAGES[0])
    assert any("cattrs generated" in name for name in compiled)


def _prepared() -> TokenizerServer:
    server = TokenizerServer()
    assert precompiled_converters.prepare(server.protocol, ROUTES)
    return server


def test_prepared_the_first_messages_of_a_session_generate_nothing(monkeypatch):
    server = _prepared()
    compiled = _counting_compiles(monkeypatch)
    for message in MESSAGES:
        read = _read(server, message)
        assert read.method == message["method"]
    assert compiled == []


def test_the_typing_fast_path_is_imported_with_the_server():
    code = (
        "import sys, tokenizer_lsp.lsp.server\n"
        "print('tokenizer_lsp.core.formats.json.incremental' in sys.modules,"
        " 'tokenizer_lsp.core.formats.registry' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


def _range(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))


HOVER = types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "`Ġthe` id 262"), _range(3, 5, 11))
ANSWERS = [
    ("the first list answered (inlay hints)", [types.InlayHint(types.Position(3, 11), ": the")]),
    ("a hover", HOVER),
    ("definition's locations", [types.Location("file:///t/merges.txt", _range(9, 0, 4))]),
    ("an outline", [types.DocumentSymbol("model", types.SymbolKind.Object, _range(1, 0, 2), _range(1, 1, 6))]),
    ("a hover again", HOVER),
]


def test_a_fresh_converter_compiles_a_hover_answer_again_after_the_first_list(monkeypatch):
    # the premise: cattrs empties its cache when it meets a new kind of list
    converter = TokenizerServer().protocol._converter
    converter.unstructure(JsonRPCResponseMessage(id=1, result=HOVER, jsonrpc="2.0"))
    converter.unstructure(JsonRPCResponseMessage(id=2, result=ANSWERS[0][1], jsonrpc="2.0"))
    compiled = _counting_compiles(monkeypatch)
    converter.unstructure(JsonRPCResponseMessage(id=3, result=HOVER, jsonrpc="2.0"))
    assert any("cattrs generated" in name for name in compiled)


def test_prepared_answers_and_what_the_server_sends_compile_nothing_and_read_back(monkeypatch):
    converter = _prepared().protocol._converter
    compiled = _counting_compiles(monkeypatch)
    for i, (what, result) in enumerate(ANSWERS):
        data = converter.unstructure(JsonRPCResponseMessage(id=i, result=result, jsonrpc="2.0"))
        # what was written reads back as the same objects (the code kept is the right code)
        kind = list[type(result[0])] if isinstance(result, list) else type(result)
        assert converter.structure(orjson.loads(orjson.dumps(data["result"])), kind) == result, what
    refresh = converter.unstructure(types.InlayHintRefreshRequest(id=9))
    progress = converter.unstructure(
        types.ProgressNotification(
            types.ProgressParams("t1", types.WorkDoneProgressReport(message="hover lookups", percentage=70))
        )
    )
    assert refresh["method"] == "workspace/inlayHint/refresh"
    assert progress["params"]["value"] == {"kind": "report", "message": "hover lookups", "percentage": 70}
    assert [name for name in compiled if "cattrs generated" in name and "unstructure" in name] == []


def test_a_converter_that_cannot_generate_ahead_is_left_as_it_is():
    class Protocol:
        _converter = object()  # no get_structure_hook: cattrs older than 23.2

    assert precompiled_converters.prepare(Protocol(), {*ROUTES}) is False
