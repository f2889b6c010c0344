"""unreachable-token: the tokens a tokenizer can never produce, against the corpus facts
(shared/corpus/README.md) and sets computed here with the engines themselves; `check`
output; the server publishing them after the other findings, across an edit, and not at
all when the code is off.

The whole-vocabulary computations on qwen3 and gemma3 take seconds (the engine's BPE on
every token): they run once per module (fixtures), and gemma3, the slowest, only with
TOKENIZER_LSP_SLOW_TESTS=1.
"""

import asyncio
import base64
import json
import os
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tokenizer_lsp.core.behaviour.load import load_tokenizer_file
from tokenizer_lsp.core.behaviour.reachability import unreachable_tokens
from tokenizer_lsp.core.behaviour.reachability_fast import unreachable_by_structure

from tests.conftest import corpus_file, gpt2_byte_of
from tests.lsp_idle import wait_idle
from tests.lsp.harness import capabilities

slow = pytest.mark.skipif(not os.environ.get("TOKENIZER_LSP_SLOW_TESTS"),
                          reason="several seconds of CPU: set TOKENIZER_LSP_SLOW_TESTS=1")


def gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's bytes_to_unicode (openai/gpt-2 encoder.py), inverted: written here so the
    expected sets do not come from the code under test."""
    return gpt2_byte_of()


def byte_level_unreachable(vocab: dict[str, int], tok) -> set[int]:
    """The definition, token by token (encoded in one batch)."""
    table = gpt2_byte_decoder()
    texts, ids = [], []
    for token, tid in vocab.items():
        try:
            text = bytes(table[c] for c in token).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            continue
        if text:
            texts.append(text)
            ids.append(tid)
    encoded = tok.encode_batch(texts, add_special_tokens=False)
    return {tid for tid, e in zip(ids, encoded) if e.ids != [tid]}


def ids_of(entries: list[dict]) -> set[int]:
    return {e["id"] for e in entries}


# ---- the sets ------------------------------------------------------------------------------


@pytest.mark.parametrize("vocab,merges", [
    ("gpt2-openai/encoder.json", "gpt2-openai/vocab.bpe"),
    ("whisper-gpt2/vocab.json", "whisper-gpt2/merges.txt"),
])
def test_vocab_json_and_merges_pair_has_only_endoftext(vocab, merges):
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers.models import BPE

    vpath, mpath = corpus_file(vocab), corpus_file(merges)
    tok = Tokenizer(BPE.from_file(str(vpath), str(mpath)))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    expected = byte_level_unreachable(json.loads(vpath.read_text(encoding="utf-8")), tok)
    assert expected == {50256}  # corpus README: `<|endoftext|>`, a special token kept in the vocab
    found = unreachable_tokens(load_tokenizer_file(str(vpath)))
    assert ids_of(found) == expected
    (e,) = found
    assert e["token"] == "<|endoftext|>" and e["text"] == "<|endoftext|>"
    assert [p["id"] for p in e["pieces"]] == tok.encode("<|endoftext|>").ids
    assert "pre-tokenizer splits it" in e["reason"]


def test_llama2_has_none():
    """SentencePiece-style with a prefix space (Prepend ▁): each token checked here by
    encoding `«` + its text and dropping what covers the `«`."""
    from tokenizers import Tokenizer

    path = corpus_file("llama2/tokenizer.json")
    tok = Tokenizer.from_file(str(path))
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    kept = [(t, i) for t, i in vocab.items() if not (len(t) == 6 and t.startswith("<0x"))]
    encoded = tok.encode_batch(["«" + t.replace("▁", " ") for t, _ in kept], add_special_tokens=False)
    missed = [tid for (_, tid), e in zip(kept, encoded)
              if [i for i, (_, end) in zip(e.ids, e.offsets) if end > 1] != [tid]]
    # three special tokens live in llama2's vocab: `<unk>`, `<s>`, `</s>` are added tokens
    added = {a["id"] for a in json.loads(path.read_text(encoding="utf-8"))["added_tokens"]}
    assert set(missed) <= added
    assert unreachable_tokens(load_tokenizer_file(str(path))) == []


@pytest.fixture(scope="module")
def qwen3():
    path = corpus_file("qwen3/tokenizer.json")
    return path, unreachable_tokens(load_tokenizer_file(str(path)))


def test_qwen3_facts(qwen3):
    from tokenizers import Tokenizer

    path, found = qwen3
    assert len(found) == 1909  # corpus README
    ids = ids_of(found)
    assert {128244, 128245, 128247} <= ids  # <unk>, <s>, </s> inside model.vocab
    by_token = {e["token"]: e for e in found}
    nfc = by_token["ÃªÌģ"]  # ê + U+0301: NFC makes it ế, one token of its own
    assert nfc["text"] == "ê\u0301" and [p["id"] for p in nfc["pieces"]] == [26068]
    assert nfc["pieces"][0]["text"] == "ế" and "normalizer rewrites it" in nfc["reason"]
    # every reported token really encodes otherwise, to the pieces reported
    tok = Tokenizer.from_file(str(path))
    for e in found:
        assert tok.encode(e["text"], add_special_tokens=False).ids == [p["id"] for p in e["pieces"]] != [e["id"]]
    # and a sample of the others really encodes to itself (one in 20, all kinds of tokens)
    table = gpt2_byte_decoder()
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    for token, tid in list(vocab.items())[::20]:
        try:
            text = bytes(table[c] for c in token).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if tid not in ids:
            assert tok.encode(text, add_special_tokens=False).ids == [tid], token


def test_qwen3_read_off_the_merges_is_the_engines_set(qwen3):
    """core/behaviour/reachability_fast.py: the same entries (ids, reasons, pieces) without
    the model in the engine; the worker answers that way and never loads it."""
    from tokenizer_lsp.engine.worker import Worker

    path, found = qwen3
    data = path.read_bytes()
    assert unreachable_by_structure(data, str(path)) == found
    worker = Worker()
    assert worker.handle({"op": "unreachable", "key": ("doc", 1), "data": data, "path": str(path)}) == {"result": found}
    assert not worker.loaded


def test_llama3_has_none():
    """ignore_merges: a piece that is a vocab entry is taken whole (corpus README: 0)."""
    path = corpus_file("llama3/tokenizer.json")
    assert unreachable_tokens(load_tokenizer_file(str(path))) == []
    assert unreachable_by_structure(path.read_bytes(), str(path)) == []  # and read off its shape


def test_sentencepiece_conversions_and_prefix_spaces_are_left_to_the_engine():
    """llama2 lists several splits of a token in score order and adds a prefix space: the
    merges' structure says nothing there (the engine's set is tested above)."""
    path = corpus_file("llama2/tokenizer.json")
    assert unreachable_by_structure(path.read_bytes(), str(path)) is None


def test_an_added_token_inside_a_text_is_left_to_the_engine(tmp_path):
    """qwen3 with an added token `ing`: texts holding it are split by it, which the engine
    tells; made by hand so the shape is known."""
    obj = json.loads(corpus_file("qwen3/tokenizer.json").read_text(encoding="utf-8"))
    obj["added_tokens"].append({"id": 151669, "content": "ing", "single_word": False, "lstrip": False,
                                "rstrip": False, "normalized": False, "special": False})
    data = json.dumps(obj).encode("utf-8")
    assert unreachable_by_structure(data, str(tmp_path / "tokenizer.json")) is None


@slow
def test_gemma3_exactly_four():
    from tokenizers import Tokenizer

    path = corpus_file("gemma3/tokenizer.json")
    found = unreachable_tokens(load_tokenizer_file(str(path)))
    assert ids_of(found) == {146179, 160098, 189366, 220206}
    tok = Tokenizer.from_file(str(path))
    for e in found:
        assert e["reason"] == "no merge builds it"
        assert tok.encode(e["text"], add_special_tokens=False).ids == [p["id"] for p in e["pieces"]]


def test_tiktoken_o200k_against_tiktoken_itself(monkeypatch):
    """o200k_base built by tiktoken's own registry code (its pattern), reading the corpus
    file instead of downloading; every rank checked with encode_ordinary."""
    import tiktoken
    import tiktoken_ext.openai_public as public
    from tiktoken.load import load_tiktoken_bpe

    path = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    monkeypatch.setattr(public, "load_tiktoken_bpe", lambda url, expected_hash=None: load_tiktoken_bpe(str(path), expected_hash))
    enc = tiktoken.Encoding(**public.o200k_base())
    expected = set()
    for data, rank in load_tiktoken_bpe(str(path)).items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text and enc.encode_ordinary(text) != [rank]:
            expected.add(rank)
    found = unreachable_tokens(load_tokenizer_file(str(path)))
    assert ids_of(found) == expected and expected
    for e in found:
        assert base64.b64decode(e["token"]).decode("utf-8") == e["text"]
        assert [p["id"] for p in e["pieces"]] == enc.encode_ordinary(e["text"])


def test_wordpiece_is_outside_the_definition():
    assert unreachable_tokens(load_tokenizer_file(str(corpus_file("all-minilm-l6-v2/tokenizer.json")))) == []


# ---- check -----------------------------------------------------------------------------------


def cli(*args):
    return subprocess.run([sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True,
                          check=False)


def test_check_reports_it_on_the_vocab_entry():
    path = corpus_file("gpt2-openai/encoder.json")
    text = path.read_text(encoding="utf-8")
    done = cli("check", path)
    assert done.returncode == 0, done.stderr  # information: not an error
    rows = [line for line in done.stdout.splitlines() if " unreachable-token " in line]
    col = text.index('"<|endoftext|>"') + 1  # 1-based, on the key literal of the one-line file
    assert len(rows) == 1 and rows[0].startswith(f"{path}:1:{col}: information unreachable-token ")
    assert "`<|endoftext|>` (id 50256)" in rows[0] and "→ `<` (27) + `|` (91) + `end` (437)" in rows[0]
    off = cli("check", "--severity", "unreachable-token=off", path)
    assert off.returncode == 0 and "unreachable-token" not in off.stdout
    # the merges file alone: its findings are on the vocab.json, not here
    assert "unreachable-token" not in cli("check", corpus_file("gpt2-openai/vocab.bpe")).stdout


def test_check_json_on_qwen3_lines(qwen3):
    path, found = qwen3
    done = cli("check", "--format", "json", path)
    rows = [r for r in json.loads(done.stdout) if r["code"] == "unreachable-token"]
    assert len(rows) == 1909 and all(r["severity"] == "information" for r in rows)
    lines = path.read_text(encoding="utf-8").split("\n")
    tokens = {e["token"] for e in found}
    for r in rows:  # each on its key literal (keys open their lines: UTF-16 columns = str ones)
        start = r["range"]["start"]
        literal = lines[start["line"]][start["character"]:]
        key = json.loads(literal[: literal.index('":') + 1])
        assert key in tokens
    nfc = next(r for r in rows if "`ÃªÌģ`" in r["message"])
    assert "(ê + U+0301, id" in nfc["message"] and "→ `ế` (26068)" in nfc["message"]
    assert "the normalizer rewrites it" in nfc["message"]


def test_check_tiktoken_on_the_rank_line():
    path = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    done = cli("check", path)
    rows = [line for line in done.stdout.splitlines() if " unreachable-token " in line]
    lines = path.read_bytes().split(b"\n")
    assert rows
    for row in rows:
        line = int(row[len(str(path)) + 1:].split(":")[0])
        rank = int(row.split(", rank ")[1].split(")")[0])
        assert int(lines[line - 1].split()[1]) == rank


# ---- the server ------------------------------------------------------------------------------


def make_client(init_options=None, **caps):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
    async def fixture(lsp_client: LanguageClient):
        lsp_client.publications = []  # every publication, in order
        lsp_client.refreshed = 0
        default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def recording(params):
            lsp_client.publications.append(params)
            return default(params)

        lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording

        def on_refresh(params):
            lsp_client.refreshed += 1

        lsp_client.protocol.fm.features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = on_refresh
        lsp_client.protocol.fm.features[types.WORKSPACE_INLAY_HINT_REFRESH] = lambda params: None

        c = capabilities(**caps)
        if caps.get("pull") and caps.get("refresh", True):
            c.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        await lsp_client.initialize_session(types.InitializeParams(capabilities=c, initialization_options=init_options))
        yield
        await lsp_client.shutdown_session()

    return fixture


client = make_client({"diagnostics": {"maxPerFile": 0}})
off_client = make_client({"diagnostics": {"maxPerFile": 0, "severity": {"unreachable-token": "off"}}})
pull_client = make_client({"diagnostics": {"maxPerFile": 0}}, pull=True)
# pulls, but cannot be asked to pull again (Neovim 0.11)
pull_only_client = make_client({"diagnostics": {"maxPerFile": 0}}, pull=True, refresh=False)


async def until(predicate, what: str, timeout: float = 60.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.05)


def unreachable_in(params) -> list:
    return [d for d in params.diagnostics if d.code == "unreachable-token"]


def open_text(client, path, text, version=1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=path.as_uri(), language_id="json", version=version, text=text)))
    return path.as_uri()


def change(client, uri, version, line, start, end, text):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, start), types.Position(line, end)), text=text)]))


async def test_server_publishes_it_after_the_others_and_carries_it_across_edits(client: LanguageClient, tmp_path):
    """whisper's vocab.json (one line, raw UTF-8) with its merges.txt beside it."""
    vocab, merges = corpus_file("whisper-gpt2/vocab.json"), corpus_file("whisper-gpt2/merges.txt")
    path = tmp_path / "vocab.json"
    path.write_bytes(vocab.read_bytes())
    (tmp_path / "merges.txt").write_bytes(merges.read_bytes())
    text = path.read_text(encoding="utf-8")
    uri = open_text(client, path, text)
    await until(lambda: client.publications, "a first publication")
    first = client.publications[0]
    assert first.version == 1 and not unreachable_in(first) and first.diagnostics  # the fragments
    await until(lambda: any(unreachable_in(p) for p in client.publications), "the unreachable finding")
    later = next(p for p in client.publications if unreachable_in(p))
    (d,) = unreachable_in(later)
    col = text.index('"<|endoftext|>"')  # the key literal (UTF-16 = str index: no astral chars before)
    assert all(ord(c) < 0x10000 for c in text[:col])
    assert (d.range.start.line, d.range.start.character) == (0, col)
    assert d.range.end.character == col + len('"<|endoftext|>"')
    assert d.severity == types.DiagnosticSeverity.Information and "→ `<` (27)" in d.message
    assert len(later.diagnostics) == len(first.diagnostics) + 1  # the others are all still there

    # an edit before it (outside any token: a re-parse) moves it; it is carried to the new
    # version's index, then recomputed for it once the document is quiet
    n = len(client.publications)
    change(client, uri, 2, 0, 1, 1, " ")
    await until(lambda: any(p.version == 2 and unreachable_in(p) for p in client.publications[n:]), "carried to v2")
    moved = next(p for p in client.publications[n:] if p.version == 2 and unreachable_in(p))
    assert unreachable_in(moved)[0].range.start.character == col + 1

    # an edit inside another token (the typing fast path): its very first publication has it
    n = len(client.publications)
    t2 = text[:1] + " " + text[1:]
    hello = t2.index('"hello"')
    change(client, uri, 3, 0, hello + 1, hello + 1, "x")
    await until(lambda: any(p.version == 3 for p in client.publications[n:]), "v3")
    assert unreachable_in(next(p for p in client.publications[n:] if p.version == 3))
    # once the document is quiet it is computed again for v3, which no longer loads (the
    # merges make `hello`): no set, as `check` has none for a file that does not load
    await until(lambda: any(p.version == 3 and not unreachable_in(p) for p in client.publications[n:]),
                "recomputed for v3")
    # v4: `hello` back, and `<|endoftext|>` renumbered: the new set names the new id
    n = len(client.publications)
    t3 = t2[: hello + 1] + "x" + t2[hello + 1 :]
    number = t3.index("50256", t3.index('"<|endoftext|>"'))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=4),
        [types.TextDocumentContentChangePartial(range=types.Range(types.Position(0, number + 4), types.Position(0, number + 5)),
                                                text="7"),
         types.TextDocumentContentChangePartial(range=types.Range(types.Position(0, hello + 1), types.Position(0, hello + 2)),
                                                text="")]))
    await until(lambda: any(p.version == 4 and unreachable_in(p) and "(id 50257)" in unreachable_in(p)[0].message
                            for p in client.publications[n:]), "recomputed for v4")


async def test_server_computes_nothing_when_the_code_is_off(off_client: LanguageClient, tmp_path):
    client = off_client
    path = corpus_file("gpt2-openai/encoder.json")
    open_text(client, path, path.read_text(encoding="utf-8"))
    await until(lambda: client.publications, "a first publication")
    # the same file with the code on publishes it once computed (the test above): once the
    # server is idle, nothing more was published
    await wait_idle(client)
    assert len(client.publications) == 1 and not unreachable_in(client.publications[0])


async def test_pull_client_is_told_to_pull_again(pull_client: LanguageClient):
    client = pull_client
    path = corpus_file("gpt2-openai/encoder.json")
    uri = open_text(client, path, path.read_text(encoding="utf-8"))
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
    assert any(d.code == "utf8-fragment" for d in report.items)
    await until(lambda: client.refreshed, "a workspace/diagnostic/refresh")
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
    assert [d.code for d in report.items].count("unreachable-token") == 1
    assert client.publications == []  # pulled, never pushed


async def test_pull_client_without_refresh_gets_the_set_with_its_next_pull(pull_only_client: LanguageClient):
    """A client that pulls but cannot be asked to pull again (Neovim 0.11) is never pushed
    to (pushed or pulled, never both); the set comes with its next pull, after an edit."""
    client = pull_only_client
    path = corpus_file("gpt2-openai/encoder.json")
    text = path.read_text(encoding="utf-8")
    uri = open_text(client, path, text)
    doc = types.TextDocumentIdentifier(uri)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(doc))
    assert any(d.code == "utf8-fragment" for d in report.items)
    version = 1
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    while True:  # type a character and take it back (the text ends as it began), then pull
        version += 1
        change(client, uri, version, 0, 1, 1, " ")
        version += 1
        change(client, uri, version, 0, 1, 2, "")
        await asyncio.sleep(0.5)
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(doc))
        codes = [d.code for d in report.items]
        if "unreachable-token" in codes or loop.time() > end:
            break
    assert codes.count("unreachable-token") == 1
    assert client.publications == [] and client.refreshed == 0


async def test_merges_edit_recomputes_the_vocab_json_beside_it(client: LanguageClient, tmp_path):
    """vocab.json and merges.txt both open: deleting the merge that builds `hello` makes the
    vocab.json's set grow by that token (the findings are on the vocabulary)."""
    vocab, merges = corpus_file("whisper-gpt2/vocab.json"), corpus_file("whisper-gpt2/merges.txt")
    vpath, mpath = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vpath.write_bytes(vocab.read_bytes())
    mpath.write_bytes(merges.read_bytes())
    vtext, mtext = vpath.read_text(encoding="utf-8"), mpath.read_text(encoding="utf-8")
    vuri = open_text(client, vpath, vtext)
    await until(lambda: any(p.uri == vuri and unreachable_in(p) for p in client.publications), "the first set")
    muri = mpath.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=muri, language_id="bpe-merges", version=1, text=mtext)))
    await until(lambda: any(p.uri == muri for p in client.publications), "the merges file's findings")
    lines = mtext.split("\n")
    line = next(i for i, m in enumerate(lines) if "".join(m.split(" ")) == "hello" and not m.startswith("#"))
    n = len(client.publications)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=muri, version=2),
        [types.TextDocumentContentChangePartial(range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)),
                                                text="")]))
    await until(lambda: any(p.uri == vuri and len(unreachable_in(p)) == 2 for p in client.publications[n:]),
                "the vocab.json's set recomputed")
    final = next(p for p in client.publications[n:] if p.uri == vuri and len(unreachable_in(p)) == 2)
    hello = next(d for d in unreachable_in(final) if d.message.startswith("`hello`"))
    assert hello.range.start.character == vtext.index('"hello"') and "no merge builds it" in hello.message


def test_the_engine_keeps_its_post_processor_for_later_encodes():
    """The batch runs without the post-processor (it adds nothing with add_special_tokens
    off); an `encode --special` of the same loaded engine afterwards still gets its BOS."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from tokenizer_lsp.core.behaviour.loaded import LoadedTokenizer

    vocab = {"<s>": 0, "a": 1, "b": 2, "ab": 3, "ba": 4, "c": 5}
    tok = Tokenizer(models.BPE(vocab, [("a", "b"), ("b", "a")]))
    tok.pre_tokenizer = pre_tokenizers.Split(pattern="b", behavior="isolated")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    tok.add_special_tokens(["<s>"])
    found = unreachable_tokens(LoadedTokenizer("tokenizers", tok))
    # "ab" and "ba" are split by the pre-tokenizer at every b: unreachable; a, b, c are not
    assert [e["id"] for e in found] == [3, 4]
    assert all("pre-tokenizer splits" in e["reason"] for e in found)
    assert tok.encode("ab", add_special_tokens=True).ids == [0, 1, 2]
    assert tok.encode("ab", add_special_tokens=False).ids == [1, 2]
