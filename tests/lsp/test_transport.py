"""Message parsing: a large didOpen's text goes straight to UTF-8 bytes, exactly."""

import json
import random

import pytest
from tokenizer_lsp.runtime import stdio as transport
from tokenizer_lsp.runtime.read_ahead import take as take_prefetched_text


def did_open(text: str, text_first: bool, ascii_only: bool) -> bytes:
    doc = {"uri": "file:///t/tokenizer.json", "languageId": "json", "version": 3, "text": text}
    if text_first:
        doc = {"text": text, "version": 3, "uri": doc["uri"], "languageId": "json"}
    message = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}}
    return json.dumps(message, ensure_ascii=ascii_only).encode()


def received_text(body: bytes) -> tuple[bytes, bool]:
    obj = transport.loads(body)
    fast = take_prefetched_text("file:///t/tokenizer.json", 3)
    if fast is not None:
        assert obj["params"]["textDocument"]["text"] == ""
        return fast, True
    return obj["params"]["textDocument"]["text"].encode("utf-8", "surrogatepass"), False


PIECES = ["a", '"', "\\", "\n", "\\u00e9", "é", "😀", "\t", "/", "\x01", '"}}}', '\\"', "Ġ", "\r\n"]


@pytest.mark.parametrize("seed", range(40))
def test_text_arrives_exactly(seed, monkeypatch):
    monkeypatch.setattr(transport, "_LARGE", 0)
    rng = random.Random(seed)
    text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 60))) * 50
    for text_first in (False, True):
        for ascii_only in (False, True):
            got, _ = received_text(did_open(text, text_first, ascii_only))
            assert got == text.encode()


def test_fast_path_taken_for_editor_style_messages(monkeypatch):
    monkeypatch.setattr(transport, "_LARGE", 0)
    # VS Code's JSON.stringify: raw UTF-8, only quotes, backslashes and controls escaped
    text = '{\n  "model": {"vocab": {"Ġthe": 1, "\\u0120x": 2, "é\\"": 3}}\n}\n'
    got, fast = received_text(did_open(text, False, False))
    assert fast and got == text.encode()
    # \u escapes (a client that escapes non-ASCII) go through orjson
    got, fast = received_text(did_open(text, False, True))
    assert not fast and got == text.encode()


def test_pipe_writer_keeps_order_and_bytes_small_and_large():
    import os
    import threading

    from tokenizer_lsp.runtime.stdio import PipeWriter

    r, w = os.pipe()
    out = os.fdopen(w, "wb")
    writer = PipeWriter(out)
    messages = [b"small-1", b"x" * (PipeWriter.SMALL + 10), b"small-2", bytes(range(256)) * 100]
    got = bytearray()

    def drain():
        for chunk in iter(lambda: os.read(r, 1 << 16), b""):
            got.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    out.write(b"buffered-")  # written through the file object first, not yet flushed
    for m in messages:
        writer.write(m)
    writer.close()
    reader.join()
    os.close(r)
    assert bytes(got) == b"buffered-" + b"".join(messages)


def test_stdin_from_a_file_or_dev_null(tmp_path):
    """Not a pipe: the server reads it to the end and exits, without a traceback."""
    import subprocess
    import sys

    body = b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}'
    msgs = tmp_path / "in"
    msgs.write_bytes(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    for src in ("/dev/null", str(msgs)):
        with open(src, "rb") as stdin:
            p = subprocess.run([sys.executable, "-m", "tokenizer_lsp"], stdin=stdin, capture_output=True, timeout=30)
        assert p.returncode == 0 and b"Traceback" not in p.stderr
    assert b'"id":1' in p.stdout.replace(b" ", b"") and b'"result":null' in p.stdout.replace(b" ", b"")


def test_a_request_with_bad_params_still_gets_an_answer(tmp_path):
    import subprocess
    import sys

    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": 5}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
    ]
    data = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in (json.dumps(m).encode() for m in msgs))
    (tmp_path / "in").write_bytes(data)
    with open(tmp_path / "in", "rb") as stdin:
        p = subprocess.run([sys.executable, "-m", "tokenizer_lsp"], stdin=stdin, capture_output=True, timeout=30)
    replies = [json.loads(part.split(b"\r\n\r\n", 1)[1]) for part in p.stdout.split(b"Content-Length: ")[1:]]
    by_id = {r.get("id"): r for r in replies if "id" in r}
    assert by_id[2]["error"]["code"] == -32602 and "hover" in by_id[2]["error"]["message"]
    assert "result" in by_id[3]
