"""What the server prepares at startup so that the first keystroke costs what the next ones
do: cattrs' generated readers of every served method's messages (lsp/server.py), and the
typing fast path imported with the server (lsp/jobs/indexing.py)."""

from __future__ import annotations

import builtins
import subprocess
import sys

import orjson

from tokenizer_lsp.lsp.server import TokenizerServer, _prepare_message_hooks

# messages an editor sends while a user types and looks around, as they come off the wire
MESSAGES = [
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": "file:///t/tokenizer.json", "version": 2},
        "contentChanges": [{"range": {"start": {"line": 3, "character": 5}, "end": {"line": 3, "character": 5}},
                            "text": "x"}]}},
    {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///t/tokenizer.json"}, "position": {"line": 3, "character": 6}}},
    {"jsonrpc": "2.0", "id": 8, "method": "textDocument/codeAction", "params": {
        "textDocument": {"uri": "file:///t/tokenizer.json"},
        "range": {"start": {"line": 3, "character": 5}, "end": {"line": 3, "character": 5}},
        "context": {"diagnostics": [], "triggerKind": 2}}},
    {"jsonrpc": "2.0", "id": 9, "method": "textDocument/inlayHint", "params": {
        "textDocument": {"uri": "file:///t/tokenizer.json"},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}}}},
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


def test_prepared_the_first_messages_of_a_session_generate_nothing(monkeypatch):
    server = TokenizerServer()
    _prepare_message_hooks(server)
    compiled = _counting_compiles(monkeypatch)
    for message in MESSAGES:
        read = _read(server, message)
        assert read.method == message["method"]
    assert compiled == []


def test_the_typing_fast_path_is_imported_with_the_server():
    code = ("import sys, tokenizer_lsp.lsp.server\n"
            "print('tokenizer_lsp.core.formats.incremental' in sys.modules,"
            " 'tokenizer_lsp.core.formats.registry' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]
