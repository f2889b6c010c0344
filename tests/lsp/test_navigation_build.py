"""The server's navigation build (lsp/jobs/navigation.py) in-process: started beside in a forked
child, it keeps no index alive while the child works (an edit made meanwhile would
otherwise find the old version's whole text still held), its result lands on the index
serving by then, and a child that fails leaves the build to this process."""

from __future__ import annotations

import asyncio
import gc
import os
import time
import weakref
from types import SimpleNamespace

import pytest
from tokenizer_lsp.core import seams
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.navigation import build as navigation_build
from tokenizer_lsp.core.navigation.build import build_navigation
from tokenizer_lsp.lsp import scheduler as scheduling
from tokenizer_lsp.lsp.documents import DocumentState
from tokenizer_lsp.lsp.jobs import navigation as navigation_job
from tokenizer_lsp.lsp.session import Session
from tokenizer_lsp.runtime.forked import Forked

from tests.conftest import ROOT

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
EXAMPLE = ROOT / "examples" / "tokenizer.json"
URI = "file:///work/tokenizer.json"


def indexed(data: bytes):
    idx = build_index(data, None)
    idx.prepare_lookups()
    return idx


def typed_into_a_token(idx, data: bytes) -> tuple[object, bytes]:
    """The index and text after a letter typed inside the first vocab key."""
    at = data.index(b'"', data.index(b"{", data.index(b'"vocab"'))) + 1
    new = data[:at] + b"q" + data[at:]
    edited = idx.edited([(at, at, b"q")], new)
    assert edited is not None and edited.parse_id == idx.parse_id  # the typing fast path
    return edited, new


def assert_built_as_here(doc, idx, data: bytes) -> None:
    """The lookups doc holds for idx answer as those of a fresh index of data built in
    this process."""
    reference = indexed(data)
    got, want = doc.served.navigation_of(idx), build_navigation(reference)
    assert [(got.producer(o), got.producers(o), got.using(o)) for o in range(len(idx.vocab.tokens))] == [
        (want.producer(o), want.producers(o), want.using(o)) for o in range(len(reference.vocab.tokens))
    ]


@pytest.fixture
def slow_child_build(monkeypatch):
    """Builds beside in a forked child that takes `delay` seconds (or dies): calls counted."""
    parent, real, calls = os.getpid(), navigation_build._build, []
    behaviour = {"delay": 1.0, "die": False}

    def build(doc, v):
        if os.getpid() != parent:
            if behaviour["die"]:
                os._exit(3)
            time.sleep(behaviour["delay"])
        else:
            calls.append("here")
        return real(doc, v)

    started = navigation_build.navigation_job

    def job(idx):
        calls.append("job")
        return started(idx)

    monkeypatch.setattr(seams, "in_child", Forked)
    monkeypatch.setattr(navigation_build, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(navigation_build, "_build", build)
    monkeypatch.setattr(navigation_build, "navigation_job", job)
    monkeypatch.setattr(navigation_job, "FIRST_SETTLE_S", 0.0)
    return behaviour, calls


def opened(scheduler: scheduling.Scheduler, data: bytes):
    idx = indexed(data)
    doc = DocumentState(uri=URI, path=None, version=1, data=data)
    scheduler.session.documents[URI] = doc
    doc.served.index, doc.served.indexed_version = idx, 1
    doc.served.set_good(idx, 1)
    scheduler.navigation.want(doc, idx, 1)
    return doc, idx


def new_scheduler() -> scheduling.Scheduler:
    session = Session()
    return scheduling.Scheduler(session, SimpleNamespace(session=session))


async def ready(scheduler: scheduling.Scheduler, doc: DocumentState, timeout: float = 30.0) -> None:
    await asyncio.wait_for(doc.served.navigation_ready.wait(), timeout)
    while scheduler.navigation.running(doc):  # and the task done (its id table built)
        await asyncio.sleep(0.01)


@needs_fork
async def test_an_index_typed_over_during_the_build_is_not_kept_alive(slow_child_build):
    _, calls = slow_child_build
    scheduler = new_scheduler()
    data = EXAMPLE.read_bytes()
    doc, first = opened(scheduler, data)
    for _ in range(200):  # until the child has started
        if calls:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    second, new = typed_into_a_token(first, data)
    doc.text.version = doc.served.indexed_version = 2
    doc.text.data, doc.served.index = new, second
    doc.served.set_good(second, 2)
    scheduler.navigation.want(doc, second, 2)
    # the text typed over is held by its index and that index's parsed document only
    gone = [weakref.ref(first), weakref.ref(first.doc)]
    del first
    gc.collect()
    assert not doc.served.navigation_ready.is_set()  # the child is still building
    assert [ref() for ref in gone] == [None, None]  # ... and nothing here holds that version
    await ready(scheduler, doc)
    # the lookups came to the index serving now, and that parse's lookups were built once
    assert doc.served.navigable is second and doc.served.navigation_of(second) is not None
    assert calls == ["job"]
    assert_built_as_here(doc, second, data)


@needs_fork
async def test_a_child_that_fails_leaves_the_build_to_this_process(slow_child_build):
    behaviour, calls = slow_child_build
    behaviour["die"] = True
    scheduler = new_scheduler()
    data = EXAMPLE.read_bytes()
    doc, idx = opened(scheduler, data)
    await ready(scheduler, doc)
    assert doc.served.navigable is idx and doc.served.navigation_of(idx) is not None
    assert calls == ["job", "here"]  # the detached child died; the second try's fell back here
    assert_built_as_here(doc, idx, data)


@needs_fork
async def test_a_reparse_during_the_build_drops_its_result_for_the_new_parse(slow_child_build):
    scheduler = new_scheduler()
    data = EXAMPLE.read_bytes()
    doc, first = opened(scheduler, data)
    await asyncio.sleep(0.3)
    reparsed = indexed(data.replace(b'"vocab": {', b'"vocab":  {', 1))
    assert reparsed.parse_id != first.parse_id
    doc.text.version = doc.served.indexed_version = 2
    doc.served.index = reparsed
    doc.served.set_good(reparsed, 2)
    scheduler.navigation.want(doc, reparsed, 2)
    await ready(scheduler, doc)
    assert doc.served.navigable is reparsed and doc.served.navigation_of(reparsed) is not None
    assert doc.served.navigation_of(first) is None  # the lookups are of the new parse only
