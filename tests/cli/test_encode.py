"""encode: ids exactly as HF tokenizers / tiktoken give them, on every corpus tokenizer, from
the library API, the command line, the engine helper process and the LSP command.

Expected ids come from the engines themselves (tokenizers.Tokenizer.from_file, BPE.from_file,
tiktoken's own registry fed the corpus file through its cache), never from our code."""

import asyncio
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from functools import cache

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tokenizer_lsp.core.behaviour.encode import encode, render_text
from tokenizer_lsp.core.behaviour.load import load_tokenizer, load_tokenizer_file
from tokenizer_lsp.core.behaviour.loaded import LoadError

from tests.conftest import corpus_file, process_state
from tests.lsp.harness import capabilities

TOKENIZER_JSONS = [
    "qwen3/tokenizer.json",
    "llama3/tokenizer.json",
    "gemma3/tokenizer.json",
    "llama2/tokenizer.json",
    "all-minilm-l6-v2/tokenizer.json",
]
PAIRS = [("gpt2-openai/encoder.json", "gpt2-openai/vocab.bpe"), ("whisper-gpt2/vocab.json", "whisper-gpt2/merges.txt")]
O200K = "openai-tiktoken/o200k_base.tiktoken"

SAMPLES = {
    "multilingual": "The quick brown fox. Der Bär läuft über die Straße. 我们今天去北京。 Привет, мир! "
    "こんにちは世界 مرحبا بالعالم नमस्ते दुनिया ελληνικά",
    "code": 'def f(x):\n\treturn {"a": [1, 2.5e-3]}  # ok\n\nif (a != b && c >= 0) { x += 1; }\n',
    "emoji": "Hi 👋🏽 family 👨‍👩‍👧 flags 🇫🇷🇯🇵 ok ✔️ 𝕏",
    "whitespace": "a\tb\t\tc\r\nd\r\n\r\n    e      f\n\n\n  \t \u00a0g\u3000h ",
    "nul": "before\x00after\x00\x00 end",
    "lone-surrogate": "a\ud800b \udfff c\ud83d",
    "empty": "",
}


def no_surrogates(text: str) -> str:
    """What a user of HF tokenizers can pass at all: it refuses lone surrogates (TypeError),
    so the contract is tiktoken's own replacement, one U+FFFD each."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


@cache
def hf_reference(rel: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(corpus_file(rel)))


@cache
def pair_reference(vocab: str, merges: str):
    from tokenizers import Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE

    t = Tokenizer(BPE.from_file(str(corpus_file(vocab)), str(corpus_file(merges))))
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    return t


@cache
def ours(rel: str):
    return load_tokenizer_file(str(corpus_file(rel)))


def check_offsets(result: dict, text: str, exact_text: bool) -> None:
    """Half-open code-point spans inside the text, starts never going back; with no
    normalizer, a token with valid UTF-8 covers exactly its own text."""
    last = 0
    for t in result["tokens"]:
        assert 0 <= t["start"] <= t["end"] <= len(text), t
        assert t["start"] >= last, t
        last = t["start"]
        data = bytes.fromhex(t["bytes"])
        assert t["text"] == (data.decode("utf-8") if _valid(data) else None)
        if exact_text and t["text"] is not None and t["end"] > t["start"]:
            assert no_surrogates(text)[t["start"] : t["end"]] == t["text"], t
    assert result["ids"] == [t["id"] for t in result["tokens"]]


def _valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("rel", TOKENIZER_JSONS)
def test_tokenizer_json_ids_equal_tokenizers(rel):
    ref, loaded = hf_reference(rel), ours(rel)
    for name, text in SAMPLES.items():
        for special in (False, True):
            got = encode(loaded, text, special)
            want = ref.encode(no_surrogates(text), add_special_tokens=special)
            assert got["ids"] == want.ids, (rel, name, special)
            assert [t["token"] for t in got["tokens"]] == want.tokens
            check_offsets(got, text, exact_text=rel.startswith(("llama3", "qwen3")))


@pytest.mark.parametrize("vocab,merges", PAIRS)
def test_vocab_and_merges_ids_equal_tokenizers(vocab, merges):
    ref = pair_reference(vocab, merges)
    for loaded in (ours(vocab), ours(merges)):  # opened from either file of the pair
        assert loaded.source in ("vocab.json", "merges.txt")
        for name, text in SAMPLES.items():
            got = encode(loaded, text)
            assert got["ids"] == ref.encode(no_surrogates(text), add_special_tokens=False).ids, name
            check_offsets(got, text, exact_text=True)
            # byte-level with no prefix space: the pieces are the text's bytes, in order
            assert "".join(t["bytes"] for t in got["tokens"]) == no_surrogates(text).encode().hex()


@pytest.fixture(scope="module")
def o200k_registry(tmp_path_factory):
    """tiktoken's own o200k_base, offline: its loader reads the corpus file from its cache
    (named by the SHA-1 of the download URL) and checks the SHA-256 it expects."""
    import tiktoken
    import tiktoken.registry

    src = corpus_file(O200K)
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    shutil.copy(src, cache / hashlib.sha1(url.encode()).hexdigest())
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    try:
        tiktoken.registry.ENCODINGS.pop("o200k_base", None)
        yield tiktoken.get_encoding("o200k_base")
    finally:
        tiktoken.registry.ENCODINGS.pop("o200k_base", None)
        if old is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


def test_o200k_ids_equal_tiktoken(o200k_registry):
    loaded = ours(O200K)
    assert loaded.encoding_name == "o200k_base"
    for name, text in SAMPLES.items():
        got = encode(loaded, text)
        assert got["ids"] == o200k_registry.encode_ordinary(text), name  # tiktoken's own surrogate handling
        check_offsets(got, text, exact_text=True)
        for t in got["tokens"]:  # token: the base64 field as the file writes it
            assert bytes.fromhex(t["bytes"]) == o200k_registry.decode_single_token_bytes(t["id"])
            assert t["token"] == __import__("base64").b64encode(bytes.fromhex(t["bytes"])).decode()


def test_split_surrogate_pair_offsets_point_into_the_text_as_given():
    text = "x\ud83d\ude00y"  # a pair held as two code points (tiktoken joins them)
    got = encode(ours(O200K), text)
    assert got["tokens"][-1]["text"] == "y" and got["tokens"][-1]["start"] == 3
    assert all(t["end"] <= len(text) for t in got["tokens"])


# ---- loading: known encodings, patterns, refusals ----------------------------------------------


def test_renamed_and_rewritten_o200k_is_recognised_by_content(tmp_path):
    data = corpus_file(O200K).read_bytes()
    (tmp_path / "renamed.tiktoken").write_bytes(data)
    assert load_tokenizer_file(str(tmp_path / "renamed.tiktoken")).encoding_name == "o200k_base"
    crlf = load_tokenizer(data.replace(b"\n", b"\r\n"), str(tmp_path / "other.tiktoken"))
    assert crlf.encoding_name == "o200k_base"


def test_unknown_tiktoken_needs_a_pattern(tmp_path):
    head = b"".join(corpus_file(O200K).read_bytes().splitlines(keepends=True)[:1000])
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(head)
    p = cli("encode", path, "hello")
    assert p.returncode == 2 and "--pattern" in p.stderr and "Traceback" not in p.stderr
    p = cli("encode", "--format", "json", "--pattern", r"\w+|\s+", path, "hello world")
    assert p.returncode == 0
    import tiktoken

    ranks = {__import__("base64").b64decode(line.split()[0]): int(line.split()[1]) for line in head.splitlines()}
    want = tiktoken.Encoding("t", pat_str=r"\w+|\s+", mergeable_ranks=ranks, special_tokens={})
    assert json.loads(p.stdout)["ids"] == want.encode_ordinary("hello world")


def test_a_defect_is_reported_where_and_why(tmp_path):
    """Not "data did not match any variant of untagged enum ModelWrapper": the line and
    column of the bad entry, and what is wrong with it."""
    text = corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8")
    at = text.index('"▁the": ')
    bad = text[:at] + '"▁the": "278"' + text[text.index(",", at) :]
    line = bad.count("\n", 0, at) + 1
    with pytest.raises(LoadError) as err:
        load_tokenizer(bad.encode(), "tokenizer.json")
    msg = str(err.value)
    assert re.search(rf":{line}:\d+: ", msg) and "▁the" in msg and "integer" in msg and "untagged" not in msg
    path = tmp_path / "tokenizer.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")  # truncated
    p = cli("encode", path, "hi")
    last = text[: len(text) // 2].count("\n") + 1
    # a broken tokenizer file is a finding at error level: 1, as `check` gives it (cli/report.py)
    assert p.returncode == 1 and f":{last}:" in p.stderr and "json-syntax" in p.stderr


def test_a_bad_merge_is_reported_in_the_merges_file(tmp_path):
    vocab = corpus_file("whisper-gpt2/vocab.json").read_bytes()
    lines = corpus_file("whisper-gpt2/merges.txt").read_bytes().split(b"\n")
    lines[10] = "Ġt zzzq".encode()
    shutil.copy(corpus_file("whisper-gpt2/vocab.json"), tmp_path / "vocab.json")
    (tmp_path / "merges.txt").write_bytes(b"\n".join(lines))
    for opened in ("vocab.json", "merges.txt"):  # either file of the pair
        p = cli("encode", tmp_path / opened, "hi")
        assert p.returncode == 1 and f"{tmp_path / 'merges.txt'}:11:" in p.stderr and "zzzq" in p.stderr
    with pytest.raises(LoadError, match="merge-unknown-token"):
        load_tokenizer(vocab, "vocab.json", b"\n".join(lines))


def test_a_merges_file_without_vocabulary_is_refused(tmp_path):
    path = tmp_path / "merges.txt"
    shutil.copy(corpus_file("whisper-gpt2/merges.txt"), path)
    p = cli("encode", path, "hi")
    assert p.returncode == 2 and "vocab.json" in p.stderr


# ---- command line -------------------------------------------------------------------------------


def cli(*args, stdin: bytes | None = None):
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)],
        check=False,
        input=stdin,
        capture_output=True,
        text=stdin is None,
    )


def test_cli_json_and_text():
    path = corpus_file("qwen3/tokenizer.json")
    text = SAMPLES["whitespace"] + SAMPLES["emoji"]
    p = cli("encode", "--format", "json", path, text)
    assert p.returncode == 0
    got = json.loads(p.stdout)
    assert got["ids"] == hf_reference("qwen3/tokenizer.json").encode(text, add_special_tokens=False).ids
    p = cli("encode", path, text)
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and len(lines) == len(got["ids"]) + 2  # a header and a footer
    for line, tok in zip(lines[1:-1], got["tokens"]):
        assert line.split()[0] == str(tok["id"])
        assert "\n" not in line and "\t" not in line and "\r" not in line
    assert any("\\r\\n" in line or "\\n" in line for line in lines)  # invisibles escaped


def test_cli_file_and_stdin_keep_exact_bytes(tmp_path):
    content = "line one\r\nline two\r\n\ttabbed\n"
    path = tmp_path / "input.txt"
    path.write_bytes(content.encode())
    tok = corpus_file("llama3/tokenizer.json")
    want = hf_reference("llama3/tokenizer.json").encode(content, add_special_tokens=False).ids
    p = cli("encode", "--format", "json", "--file", path, tok)
    assert p.returncode == 0 and json.loads(p.stdout)["ids"] == want
    p = cli("encode", "--format", "json", tok, stdin=content.encode())
    assert p.returncode == 0 and json.loads(p.stdout)["ids"] == want
    p = cli("encode", "--format", "json", "--special", tok, "hi")
    assert json.loads(p.stdout)["ids"] == hf_reference("llama3/tokenizer.json").encode("hi").ids


# ---- the helper process -------------------------------------------------------------------------


async def test_worker_exits_when_idle_and_restarts(monkeypatch):
    from tokenizer_lsp.lsp.engine_client import EngineClient

    monkeypatch.setenv("TOKENIZER_LSP_ENGINE_IDLE_S", "0.5")
    client = EngineClient()
    try:
        vocab, merges = corpus_file(PAIRS[0][0]), corpus_file(PAIRS[0][1])
        data, companion = vocab.read_bytes(), merges.read_bytes()
        want = pair_reference(*PAIRS[0]).encode("hello world").ids
        got = await client.encode(("v", 1), data, str(vocab), companion, "hello world")
        assert got["ids"] == want
        proc = client._proc
        for _ in range(600):  # until it has left by itself
            if proc.poll() is not None:
                break
            await asyncio.sleep(0.05)
        assert proc.poll() == 0
        got = await client.encode(("v", 1), data, str(vocab), companion, "hello world")
        assert got["ids"] == want and client.starts == 2
        with pytest.raises(LoadError):  # a broken file is the user's problem, and the worker lives on
            await client.encode(("v", 2), data[:100], str(vocab), companion, "x")
        assert (await client.encode(("v", 1), data, str(vocab), companion, "hi"))["ids"] == pair_reference(
            *PAIRS[0]
        ).encode("hi").ids
        assert client.starts == 2
    finally:
        client.close()


async def test_a_request_that_takes_too_long_ends_with_a_clear_error(monkeypatch):
    from tokenizer_lsp.lsp import engine_client

    client = engine_client.EngineClient()
    path = corpus_file("llama2/tokenizer.json")
    try:
        monkeypatch.setattr(engine_client, "ENCODE_TIMEOUT_S", 0.001)
        with pytest.raises(engine_client.EngineError, match="did not answer within"):
            await client.encode(("l", 1), path.read_bytes(), str(path), None, "hi")
        monkeypatch.setattr(engine_client, "ENCODE_TIMEOUT_S", 120.0)
        got = await client.encode(("l", 1), path.read_bytes(), str(path), None, "hi")
        assert got["ids"] == hf_reference("llama2/tokenizer.json").encode("hi", add_special_tokens=False).ids
    finally:
        client.close()


def test_the_worker_survives_a_bad_request():
    from tokenizer_lsp.engine import read_frame, write_frame

    proc = subprocess.Popen(
        [sys.executable, "-m", "tokenizer_lsp.engine.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    try:
        vocab = corpus_file("gpt2-openai/encoder.json")
        merges = corpus_file("gpt2-openai/vocab.bpe").read_bytes()
        write_frame(
            proc.stdin.fileno(),
            {"op": "encode", "key": 1, "data": vocab.read_bytes(), "path": str(vocab), "companion": merges},
        )  # no "text"
        assert "error" in read_frame(proc.stdout.fileno())
        write_frame(proc.stdin.fileno(), {"op": "encode", "key": 1, "text": "hi"})  # loaded once, kept
        assert read_frame(proc.stdout.fileno())["result"]["ids"] == pair_reference(*PAIRS[0]).encode("hi").ids
        write_frame(proc.stdin.fileno(), {"op": "encode", "key": 2, "text": "hi"})  # never sent: asks for it
        assert read_frame(proc.stdout.fileno()) == {"missing": True}
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0  # EOF: the server is gone
    finally:
        if proc.poll() is None:
            proc.kill()


def _alive(pid: int) -> bool:
    return process_state(pid) not in (None, "Z")  # a zombie is dead


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_worker_dies_with_its_server_even_when_its_stdin_stays_open():
    """A server killed while the worker computes (its stdin's EOF is not read then) must not
    leave the worker running: here a pipe held open by the test stands for that."""
    import time

    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import subprocess, sys, time\n"
                f"w = subprocess.Popen([sys.executable, '-m', 'tokenizer_lsp.engine.worker'], stdin={read_end}, "
                "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                "print(w.pid, flush=True)\n"
                "time.sleep(120)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        pass_fds=(read_end,),
    )
    try:
        worker = int(server.stdout.readline())
        time.sleep(1.0)  # the worker is up and waiting for a request that never comes
        assert _alive(worker)
        server.kill()
        server.wait()
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker)
    finally:
        os.close(read_end)
        os.close(write_end)
        if server.poll() is None:
            server.kill()


# ---- over LSP -----------------------------------------------------------------------------------


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
async def client(lsp_client: LanguageClient):
    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        return None

    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    lsp_client.commands = result.capabilities.execute_command_provider.commands
    yield
    await lsp_client.shutdown_session()


async def execute(client, *arguments):
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="tokenizer-lsp.encode", arguments=list(arguments))
    )


async def test_lsp_encode_uses_the_unsaved_text(client: LanguageClient, tmp_path):
    """encoder.json (one line) with its vocab.bpe beside it; an unsaved edit renumbers
    `Hello`: the command encodes with the edited vocabulary."""
    assert "tokenizer-lsp.encode" in client.commands
    folder = tmp_path / "gpt2"
    folder.mkdir()
    shutil.copy(corpus_file("gpt2-openai/encoder.json"), folder / "encoder.json")
    shutil.copy(corpus_file("gpt2-openai/vocab.bpe"), folder / "vocab.bpe")
    text = (folder / "encoder.json").read_text(encoding="utf-8")
    uri = (folder / "encoder.json").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    sample = "Hello world, 你好 👋\r\n\tend"
    want = pair_reference(*PAIRS[0]).encode(sample).ids
    got = await execute(client, uri, sample)
    assert got["ids"] == want
    assert [t["id"] for t in got["tokens"]] == want and got["tokens"][0]["start"] == 0

    # lone surrogates cross the protocol too (a JSON "\ud800"), and become U+FFFD as in tiktoken
    got = await execute(client, uri, "a\ud800b")
    assert got["ids"] == pair_reference(*PAIRS[0]).encode("a\ufffdb").ids

    at = text.index('"Hello": 15496') + len('"Hello": ')
    assert "\n" not in text[:at]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, at), types.Position(0, at + 5)), text="99999"
                )
            ],
        )
    )
    got = await execute(client, uri, "Hello")  # at once: the edit is not indexed yet
    assert got["ids"] == [99999]
    assert got["tokens"][0] == {
        "id": 99999,
        "token": "Hello",
        "bytes": b"Hello".hex(),
        "text": "Hello",
        "start": 0,
        "end": 5,
    }


async def test_lsp_encode_errors(client: LanguageClient, tmp_path):
    with pytest.raises(Exception, match="not open"):
        await execute(client, (tmp_path / "tokenizer.json").as_uri(), "x")
    path = tmp_path / "tokenizer.json"
    text = corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=path.as_uri(), language_id="json", version=1, text=text[: len(text) // 3])
        )
    )
    with pytest.raises(Exception, match="json-syntax"):
        await execute(client, path.as_uri(), "x")
    ranks = tmp_path / "mine.tiktoken"
    head = b"".join(corpus_file(O200K).read_bytes().splitlines(keepends=True)[:300])
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=ranks.as_uri(), language_id="tiktoken", version=1, text=head.decode())
        )
    )
    with pytest.raises(Exception, match="pattern"):
        await execute(client, ranks.as_uri(), "hello")
    got = await execute(client, ranks.as_uri(), "hello", {"pattern": r"\w+"})
    assert b"".join(bytes.fromhex(t["bytes"]) for t in got["tokens"]) == b"hello"


def test_text_rendering_is_one_line_per_token():
    text = "a\nb\u2028c\x00 d\r\n"
    result = encode(ours("qwen3/tokenizer.json"), text)
    lines = render_text(result, text).split("\n")
    assert len(lines) == len(result["ids"]) + 2
    assert not any(ch in line for line in lines for ch in "\r\u2028\x00")
    assert "\\u0000" in "".join(lines) and "\\r\\n" in "".join(lines)


def test_frames_carry_large_bytes_beside_the_pickle_unchanged():
    """A document's text travels out of band (never copied into the pickle): what arrives is
    byte-equal, in place among the message's other fields, with small bytes in band."""
    import threading

    from tokenizer_lsp.engine import large, read_frame, write_frame

    text = bytes(range(256)) * 4000  # 1 MB, every byte value
    message = {"op": "load", "data": large(text), "companion": large(b"small"), "key": ("u", 3)}
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=lambda: (write_frame(write_end, message), write_frame(write_end, {"op": "ping"})))
    writer.start()
    try:
        got = read_frame(read_end)
        assert got == {"op": "load", "data": text, "companion": b"small", "key": ("u", 3)}
        assert read_frame(read_end) == {"op": "ping"}
    finally:
        writer.join()
        os.close(read_end)
        os.close(write_end)


async def test_the_text_handed_over_for_unreachable_is_let_go_once_sent(monkeypatch):
    """The server hands a document's text over in a list the client empties once the worker
    has it (a 30 MB text is not kept for the seconds of the computation); a worker that dies
    after that is a clear EngineError, and the next request with the text works. Without
    fork, so that qwen3 goes to the worker (elsewhere it is read off the file in a forked
    child of the server: tests/unit/test_engine_memory.py)."""
    from tokenizer_lsp.lsp import engine_client
    from tokenizer_lsp.runtime import forked

    monkeypatch.setattr(forked, "can_fork", lambda: False)

    vocab, merges = corpus_file(PAIRS[0][0]), corpus_file(PAIRS[0][1])
    qwen3 = corpus_file("qwen3/tokenizer.json")
    client = engine_client.EngineClient()
    try:
        handed = [vocab.read_bytes()]
        found = await client.unreachable(("u", 1), handed, str(vocab), merges.read_bytes())
        assert handed == [] and [e["id"] for e in found] == [50256]  # the corpus fact
        handed = [qwen3.read_bytes()]
        task = asyncio.ensure_future(client.unreachable(("q", 1), handed, str(qwen3), None))
        for _ in range(1000):  # sent: the worker loads and computes (seconds)
            if not handed:
                break
            await asyncio.sleep(0.01)
        assert handed == []
        client._proc.kill()
        with pytest.raises(engine_client.EngineError, match="stopped while working"):
            await task
        found = await client.unreachable(("u", 1), [vocab.read_bytes()], str(vocab), merges.read_bytes())
        assert [e["id"] for e in found] == [50256] and client.starts == 2
    finally:
        client.close()
