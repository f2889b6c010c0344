"""A whole build beside the server (core.index.staged over core.seams.stages_in_child):
the index it gives equals build_index's, whether the stages come from a forked child, from
this process, or partly from each after the child fails."""

from __future__ import annotations

import json
import os
import pickle
import sys
import threading
import time
from functools import cache

import pytest
from tokenizer_lsp.core import seams
from tokenizer_lsp.core.compact_vocab import CompactTokens, PendingTokens, settled_tokens
from tokenizer_lsp.core.index import staged as staged_build
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.index.staged import build_index_in_child
from tokenizer_lsp.runtime.forked import ForkedStages

from tests.conftest import corpus_file
from tests.unit.test_runtime_fallbacks import HAS_FORK, assert_reaped, no_leaks  # noqa: F401 (a fixture)

needs_fork = pytest.mark.skipif(not HAS_FORK or not os.path.isdir("/proc/self/fd"), reason="needs fork and /proc")


@pytest.fixture(autouse=True)
def plain_stages():
    saved = seams.stages_in_child, seams.in_child
    seams.stages_in_child, seams.in_child = seams.InProcessStages, seams.InProcess
    yield
    seams.stages_in_child, seams.in_child = saved


# ---- ForkedStages: each stage from the child, or from here once the child failed ------------


def stages(parent: int, shared: bytes, fail_after: int | None = None):
    """Three values tagged with where they were made; in a child it may die after some."""
    for k in range(3):
        if os.getpid() != parent and fail_after == k:
            os._exit(3)
        yield {"k": k, "in_parent": os.getpid() == parent, "shared": shared, "copy": bytes(shared[:4])}


@needs_fork
def test_stages_come_from_the_child_in_order_and_shared_objects_are_not_copied(no_leaks):  # noqa: F811
    shared = os.urandom(1 << 20)
    run = ForkedStages(stages, os.getpid(), shared, shared=(shared,))
    pid = run.pid
    got = [run.next_stage() for _ in range(3)]
    run.close()
    assert [g["k"] for g in got] == [0, 1, 2]
    assert not any(g["in_parent"] for g in got)
    assert all(g["shared"] is shared for g in got)  # sent by reference
    assert all(g["copy"] == shared[:4] for g in got)
    assert_reaped(pid)


@needs_fork
@pytest.mark.parametrize("fail_after", [0, 1, 2])
def test_a_child_that_dies_leaves_the_remaining_stages_to_this_process(no_leaks, fail_after):  # noqa: F811
    shared = b"text"
    run = ForkedStages(stages, os.getpid(), shared, fail_after, shared=(shared,))
    got = [run.next_stage() for _ in range(3)]
    run.close()
    assert [g["k"] for g in got] == [0, 1, 2]
    assert [g["in_parent"] for g in got] == [k >= fail_after for k in range(3)]


@needs_fork
def test_a_child_that_hangs_is_killed_and_the_stage_made_here(no_leaks):  # noqa: F811
    def slow(parent):
        if os.getpid() != parent:
            time.sleep(30)
        yield "here"

    run = ForkedStages(slow, os.getpid())
    pid = run.pid
    started = time.monotonic()
    assert run.next_stage(timeout=0.2) == "here"
    assert time.monotonic() - started < 5
    assert_reaped(pid)


def test_without_fork_the_stages_are_made_here(no_leaks, monkeypatch):  # noqa: F811
    monkeypatch.setattr(sys, "platform", "win32")
    run = ForkedStages(stages, os.getpid(), b"x", shared=(b"x",))
    assert run.pid == 0
    assert [run.next_stage()["in_parent"] for _ in range(3)] == [True] * 3
    with pytest.raises(StopIteration):
        run.next_stage()


# ---- PendingTokens --------------------------------------------------------------------------


def test_a_pending_table_is_asked_for_once_even_by_two_threads():
    calls = []

    def later():
        calls.append(1)
        time.sleep(0.05)
        return {"a": 1, "b": 2}

    pending = PendingTokens(later)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(pending.get("b"))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [2, 2] and calls == [1]
    assert "a" in pending and len(pending) == 2 and list(pending) == ["a", "b"] and pending["a"] == 1


# ---- build_index_in_child equals build_index --------------------------------------------------


def described(idx) -> dict:
    """What the features read of an index, lookups built (hovers, ids, positions)."""
    idx.prepare_lookups()
    vocab = idx.vocab
    tokens = dict(vocab.tokens.items()) if vocab is not None else None
    sample = list(tokens)[:: max(1, len(tokens) // 500)] if tokens else []
    return {
        "format": idx.format,
        "findings": [(f.code, f.start, f.end, f.message) for f in idx.findings],
        "syntax_error": idx.syntax_error and (idx.syntax_error.start, idx.syntax_error.message),
        "tokens": tokens,
        "spans": [idx.span_of_token(t) for t in sample],
        "ids": [idx.token_of_id(i) for i in range(0, len(tokens or ()), 997)],
        "added": dict(vocab.added) if vocab is not None else None,
    }


@cache
def _expected(path: str) -> dict:
    """What build_index gives, once a file for the three ways of building beside (it reads
    the file alone, nothing the tests patch: a qwen3 build costs a CPU-second, issue 33)."""
    with open(path, "rb") as f:
        return described(build_index(f.read(), path))


CASES = ["qwen3/tokenizer.json", "llama3/tokenizer.json", "gpt2-openai/encoder.json", "whisper-gpt2/vocab.json"]


@needs_fork
@pytest.mark.parametrize("rel", CASES)
@pytest.mark.parametrize("how", ["forked", "in-process", "child-dies-after-the-index"])
def test_a_build_beside_gives_the_index_build_index_gives(no_leaks, monkeypatch, rel, how):  # noqa: F811
    path = corpus_file(rel)
    data = path.read_bytes()
    monkeypatch.setattr(staged_build, "STAGED_BUILD_BYTES", 1 << 16)  # the small vocab.json too
    expected = _expected(str(path))
    if how != "in-process":
        monkeypatch.setattr(seams, "stages_in_child", ForkedStages)
    if how == "child-dies-after-the-index":
        real = staged_build.build_index_in_stages
        parent = os.getpid()

        def dies(*args):
            made = real(*args)
            yield next(made)
            if os.getpid() != parent:
                os._exit(3)
            yield from made

        monkeypatch.setattr(staged_build, "build_index_in_stages", dies)
    idx = build_index_in_child(data, str(path))
    assert idx.data is data
    table = idx.vocab.tokens
    assert isinstance(table, PendingTokens)  # the table comes with the lookups
    got = described(idx)
    # read by every feature, the published vocabulary still holds the same table: nothing
    # was rewritten under a reader; what it resolved to is the compact table
    assert idx.vocab.tokens is table and isinstance(settled_tokens(idx.vocab), CompactTokens)
    assert dict(pickle.loads(pickle.dumps(table)).items()) == expected["tokens"]  # sent as its table
    assert got == expected
    assert len(expected["tokens"]) > 1000 and expected["findings"]


@needs_fork
def test_each_build_beside_has_a_parse_id_of_its_own(no_leaks, monkeypatch):  # noqa: F811
    path = corpus_file("whisper-gpt2/vocab.json")
    data = path.read_bytes()
    monkeypatch.setattr(staged_build, "STAGED_BUILD_BYTES", 1 << 16)
    monkeypatch.setattr(seams, "stages_in_child", ForkedStages)
    ids = [build_index_in_child(data, str(path)).parse_id for _ in range(3)]
    ids.append(build_index(data, str(path)).parse_id)
    assert len(set(ids)) == 4


@needs_fork
@pytest.mark.parametrize(
    "text", [b'{"model": {"type": "BPE", "vocab": {"a": 0, ', b"#version: 0.2\na b\n", b"plain text"]
)
def test_texts_that_are_no_whole_json_tokenizer_build_here(no_leaks, monkeypatch, text):  # noqa: F811
    monkeypatch.setattr(staged_build, "STAGED_BUILD_BYTES", 8)
    monkeypatch.setattr(seams, "stages_in_child", ForkedStages)
    idx = build_index_in_child(text, "tokenizer.json" if text.startswith(b"{") else "merges.txt")
    plain = build_index(text, "tokenizer.json" if text.startswith(b"{") else "merges.txt")
    assert idx.format == plain.format
    assert [(f.code, f.start, f.message) for f in idx.findings] == [
        (f.code, f.start, f.message) for f in plain.findings
    ]
    if plain.vocab is not None:  # salvaged JSON: the table came with the index
        assert dict(idx.vocab.tokens.items()) == dict(plain.vocab.tokens.items())


@pytest.mark.parametrize("name", ["whisper-gpt2/vocab.json", "gpt2-openai/encoder.json"])
def test_a_build_here_is_finished_before_it_is_handed_out(name):
    # below the size built beside: the lookups that compact the token table and drop the
    # parsed merges run before the index leaves the build, so preparing lookups later (as
    # the server does once it has published) rewrites nothing a reader holds
    path = corpus_file(name)
    data = path.read_bytes()
    assert len(data) < staged_build.STAGED_BUILD_BYTES
    idx = build_index_in_child(data, str(path))
    vocab, tokens, merges = idx.vocab, idx.vocab.tokens, idx.vocab.merges
    assert isinstance(tokens, CompactTokens) and idx.lookups_ready
    expected = json.loads(data)
    assert dict(tokens.items()) == expected
    idx.prepare_lookups()
    assert idx.vocab is vocab and vocab.tokens is tokens and vocab.merges is merges
