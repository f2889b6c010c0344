"""Issue 24, memory: the unreachable set read off the file in a forked child of the server
(engine/reachability_child.py, core/behaviour/reachability/fast.py), never beside another child; the
engine helper process given back when idle and started again on the next request.

Expected answers come from `tokenizers` itself: the engine's own encodings, or
core/behaviour/reachability/compute.py run on the engine (the set the worker computed before)."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
import tokenizers
from hypothesis import HealthCheck, given, settings
from tokenizer_lsp.core.behaviour.load import load_tokenizer, load_tokenizer_file
from tokenizer_lsp.core.behaviour.reachability.compute import unreachable_tokens
from tokenizer_lsp.core.behaviour.reachability.fast import unreachable_by_structure
from tokenizer_lsp.engine import DEFAULT_IDLE_S
from tokenizer_lsp.engine import reachability_child as beside
from tokenizer_lsp.lsp.engine_client import EngineClient, EngineError
from tokenizer_lsp.runtime import forked

from tests.conftest import ROOT, corpus_file, process_state
from tests.property.test_merge_structure import trained

EXAMPLE = ROOT / "examples" / "tokenizer.json"
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork and /proc: Linux")
slow = pytest.mark.skipif(
    not os.environ.get("TOKENIZER_LSP_SLOW_TESTS"), reason="several seconds of CPU: set TOKENIZER_LSP_SLOW_TESTS=1"
)


@pytest.fixture(autouse=True)
def cold_cache(tmp_path, monkeypatch):
    """Every set computed, none read from a cache a test before wrote."""
    monkeypatch.setenv("TOKENIZER_LSP_CACHE_DIR", str(tmp_path / "cache"))


def tokenizer_json(vocab: dict[str, int], merges: list[tuple[str, str]], **model) -> tuple[bytes, object]:
    from tokenizers import Tokenizer
    from tokenizers.models import BPE

    tok = Tokenizer(BPE(vocab=dict(vocab), merges=list(merges), **model))
    return tok.to_str().encode("utf-8"), tok


def engine_ids(tok, vocab: dict[str, int]) -> set[int]:
    """The tokens the engine does not give back from their own text (no normalizer, no
    pre-tokenizer, no decoder: the text is the token)."""
    return {tid for token, tid in vocab.items() if tok.encode(token, add_special_tokens=False).ids != [tid]}


async def until_exited(proc, timeout: float) -> bool:
    for _ in range(int(timeout / 0.05)):
        if proc.poll() is not None:
            return True
        await asyncio.sleep(0.05)
    return proc.poll() is not None


# ---- the set read off the file ---------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trained(shuffled=None))
def test_read_off_the_file_is_the_engines_set_ordered_or_not(case):
    vocab, merges = case
    data, tok = tokenizer_json(vocab, merges)
    found = unreachable_by_structure(data, "tokenizer.json")
    assert found is not None
    assert {e["id"] for e in found} == engine_ids(tok, vocab)
    assert found == unreachable_tokens(load_tokenizer(data, "tokenizer.json"))  # reasons and pieces too


def test_byte_fallback_pieces_are_the_engines():
    """A character outside the vocab becomes its UTF-8 bytes' <0xNN> tokens."""
    vocab = {f"<0x{n:02X}>": n for n in range(256)}
    for t in ("a", "b", "ab", "aé", "ba"):
        vocab[t] = len(vocab)
    merges = [("a", "b"), ("b", "a")]
    data, tok = tokenizer_json(vocab, merges, byte_fallback=True)
    found = unreachable_by_structure(data, "tokenizer.json")
    assert {e["id"] for e in found} == engine_ids(tok, vocab) - set(range(256))  # byte tokens: outside
    by_id = {e["id"]: e for e in found}
    assert [p["id"] for p in by_id[vocab["aé"]]["pieces"]] == tok.encode("aé", add_special_tokens=False).ids
    assert found == unreachable_tokens(load_tokenizer(data, "tokenizer.json"))


def test_wordpiece_has_none_without_loading_it():
    path = corpus_file("all-minilm-l6-v2/tokenizer.json")
    assert unreachable_tokens(load_tokenizer_file(str(path))) == []  # the engine's answer
    assert unreachable_by_structure(path.read_bytes(), str(path), other_models_empty=True) == []
    assert unreachable_by_structure(path.read_bytes(), str(path)) is None  # `check` loads it: it may refuse


@slow
def test_gemma3_merges_not_ordered_read_off_the_file_is_the_engines_set():
    path = corpus_file("gemma3/tokenizer.json")
    assert unreachable_by_structure(path.read_bytes(), str(path)) == unreachable_tokens(load_tokenizer_file(str(path)))


# ---- in a forked child of the server ---------------------------------------------------------


def block_first_time(marker: str):
    """light_unreachable for the tests: the first child waits to be killed, the next answers."""

    def light(data: bytes, path: str | None):
        if not os.path.exists(marker):
            open(marker, "w").close()
            import time

            while True:
                time.sleep(1)
        return [{"id": -1, "second": True}]

    return light


@linux
async def test_the_set_is_computed_in_a_child_and_the_engine_never_starts(tmp_path):
    vocab, merges = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}, [("a", "b"), ("b", "c"), ("a", "bc")]
    data, tok = tokenizer_json(vocab, merges)
    client = EngineClient()
    try:
        found = await client.unreachable(("doc", 1), [data], str(tmp_path / "tokenizer.json"), None)
        assert {e["id"] for e in found} == engine_ids(tok, vocab) == {5}
        assert client.starts == 0 and client._reach_child.children == 1
        assert forked.live_children() == 0  # reaped
    finally:
        client.close()


@linux
async def test_a_fork_meanwhile_stops_the_child_which_starts_again_after(tmp_path, monkeypatch):
    marker = str(tmp_path / "first")
    monkeypatch.setattr(beside, "light_unreachable", block_first_time(marker))
    client = EngineClient()
    try:
        task = asyncio.ensure_future(client.unreachable(("doc", 1), [b"{}"], str(tmp_path / "tokenizer.json"), None))
        for _ in range(400):
            if os.path.exists(marker):
                break
            await asyncio.sleep(0.05)
        first = client._reach_child._pid
        assert first and process_state(first) not in (None, "Z")
        # a build's child: the computing one is killed before it forks
        other = forked.Forked(os.getpid)
        for _ in range(200):
            if process_state(first) in (None, "Z"):
                break
            await asyncio.sleep(0.02)
        assert process_state(first) in (None, "Z")
        assert not task.done()
        assert other.result() != os.getpid()
        assert await asyncio.wait_for(task, 60) == [{"id": -1, "second": True}]
        assert client._reach_child.children == 2 and client.starts == 0
    finally:
        client.close()


@linux
async def test_release_gives_the_computation_up(tmp_path, monkeypatch):
    marker = str(tmp_path / "first")
    monkeypatch.setattr(beside, "light_unreachable", block_first_time(marker))
    client = EngineClient()
    try:
        handed = [b"{}"]
        task = asyncio.ensure_future(client.unreachable(("doc", 1), handed, str(tmp_path / "tokenizer.json"), None))
        for _ in range(400):
            if os.path.exists(marker):
                break
            await asyncio.sleep(0.05)
        child = client._reach_child._pid
        client.pause()  # a new version is being built
        with pytest.raises(EngineError):
            await asyncio.wait_for(task, 60)
        client.resume()
        assert process_state(child) is None and handed == [] and client.starts == 0
    finally:
        client.close()


async def test_without_fork_the_engine_helper_answers(monkeypatch, tmp_path):
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    vocab, merges = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}, [("a", "b"), ("b", "c"), ("a", "bc")]
    data, tok = tokenizer_json(vocab, merges)
    client = EngineClient()
    try:
        found = await client.unreachable(("doc", 1), [data], str(tmp_path / "tokenizer.json"), None)
        assert {e["id"] for e in found} == engine_ids(tok, vocab)
        assert client.starts == 1
    finally:
        client.close()


# ---- the engine helper given back --------------------------------------------------------------


def test_the_default_idle_time_is_within_10_s():
    assert 0 < DEFAULT_IDLE_S <= 10


async def test_the_worker_exits_when_idle_and_an_unreachable_request_restarts_it(monkeypatch):
    """llama2 adds a prefix space: its set needs the engine, in the worker."""
    monkeypatch.setenv("TOKENIZER_LSP_ENGINE_IDLE_S", "0.5")
    path = corpus_file("llama2/tokenizer.json")
    data = path.read_bytes()
    want = unreachable_tokens(load_tokenizer_file(str(path)))
    reference = tokenizers.Tokenizer.from_file(str(path))
    client = EngineClient()
    try:
        got = await client.encode(("l", 1), data, str(path), None, "hello world")
        assert got["ids"] == reference.encode("hello world", add_special_tokens=False).ids
        proc = client._proc
        assert await until_exited(proc, 60) and proc.returncode == 0  # left by itself
        assert await client.unreachable(("l", 1), [data], str(path), None) == want
        assert client.starts == 2
        got = await client.encode(("l", 1), data, str(path), None, "naïve café")
        assert got["ids"] == reference.encode("naïve café", add_special_tokens=False).ids
    finally:
        client.close()


@linux
async def test_pause_ends_an_idle_worker_that_holds_an_engine():
    """A build's child never runs beside a loaded engine: the worker is ended, and the next
    request starts another."""
    reference = tokenizers.Tokenizer.from_file(str(EXAMPLE))
    data = EXAMPLE.read_bytes()
    client = EngineClient()
    try:
        await client.encode(("e", 1), data, str(EXAMPLE), None, "hello")
        proc = client._proc
        client.pause()
        assert await until_exited(proc, 30)
        client.resume()
        got = await client.encode(("e", 1), data, str(EXAMPLE), None, "hello there")
        assert got["ids"] == reference.encode("hello there", add_special_tokens=False).ids and client.starts == 2
    finally:
        client.close()


@linux
def test_a_child_that_must_run_alone_waits_until_the_others_are_reaped():
    """Checked and forked under one lock: never two children's working memory at once."""
    other = forked.Forked(os.getpid)  # alive (for this process) until its result is read
    assert forked.live_children() == 1
    with pytest.raises(forked.Busy):
        forked.run_in_child(os.getpid, alone=True)
    assert other.result() != os.getpid() and forked.live_children() == 0
    assert forked.run_in_child(os.getpid, alone=True) not in (os.getpid(), 0)
    assert forked.live_children() == 0


async def test_a_worker_that_holds_no_tokenizer_leaves_sooner(monkeypatch):
    """Started for a ping (the server pings before it knows whether it needs one): gone
    after EMPTY_IDLE_S, whatever the idle time, and the next request starts another."""
    from tokenizer_lsp.engine.worker import EMPTY_IDLE_S

    monkeypatch.setenv("TOKENIZER_LSP_ENGINE_IDLE_S", "600")
    assert EMPTY_IDLE_S < 10
    client = EngineClient()
    try:
        first = await client.ping()
        proc = client._proc
        assert await until_exited(proc, 60) and proc.returncode == 0
        assert await client.ping() != first and client.starts == 2
    finally:
        client.close()
