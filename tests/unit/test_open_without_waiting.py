"""Opening a file (issue 32): what a user waits for after didOpen is not held back by waits
meant for typing. A first index's children run at the server's own priority, its folder's
config files are checked at once (edits wait for quiet), and an unreachable set the disk
cache holds for the text is shown without waiting for the navigation lookups."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
import tokenizers
from tokenizer_lsp.core.behaviour.reachability import cache as reachability_cache
from tokenizer_lsp.core.index.files import index_file
from tokenizer_lsp.lsp.capabilities import ResolvedClientCapabilities
from tokenizer_lsp.lsp.documents import DocumentState
from tokenizer_lsp.lsp.jobs import folder as folder_job
from tokenizer_lsp.lsp.jobs.folder import FolderChecks
from tokenizer_lsp.lsp.jobs.unreachable import Unreachable
from tokenizer_lsp.lsp.session import Session
from tokenizer_lsp.runtime import forked
from tokenizers.models import BPE

needs_fork = pytest.mark.skipif(not forked.can_fork(), reason="no fork on this platform")


@needs_fork
def test_children_of_work_a_user_waits_on_run_at_the_parents_niceness():
    """os.nice in the child itself says where it runs: inside waited_for() at the parent's
    niceness (stages and single children alike), before and after it at NICENESS."""
    code = "\n".join(
        [
            "import os",
            "from tokenizer_lsp.runtime import forked",
            "def stages():",
            "    yield os.nice(0)",
            "outside = forked.Forked(os.nice, 0).result()",
            "with forked.waited_for():",
            "    inside = forked.Forked(os.nice, 0).result()",
            "    staged = forked.ForkedStages(stages).next_stage()",
            "after = forked.Forked(os.nice, 0).result()",
            "print(os.nice(0), outside, inside, staged, after)",
        ]
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    parent, outside, inside, staged, after = map(int, out.stdout.split())
    assert outside == after == max(parent, forked.NICENESS)
    assert inside == staged == parent


def test_a_first_index_has_its_folder_checked_at_once_and_an_edit_waits_for_quiet(tmp_path):
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "tokenizer_config.json").write_text("{}")
    session = Session()
    session.capabilities = ResolvedClientCapabilities(pull_diagnostics=True)  # nothing published on its own
    tok = str(tmp_path / "tokenizer.json")

    async def run():
        checks = FolderChecks(session, publisher=None, reindex=lambda doc: None)
        loop = asyncio.get_running_loop()
        checks.vocabulary_changed(tok, opened=True)
        opened = checks._timers[str(tmp_path)].when() - loop.time()
        checks.vocabulary_changed(tok)  # an edit of it replaces the pending check
        edited = checks._timers[str(tmp_path)].when() - loop.time()
        checks._timers.pop(str(tmp_path)).cancel()
        return opened, edited

    opened, edited = asyncio.run(run())
    assert opened <= 0
    assert folder_job.CONFIG_SETTLE_S - 0.1 < edited <= folder_job.CONFIG_SETTLE_S


def tiny_bpe(path) -> dict[str, int]:
    """A BPE whose `bc` no merge makes (saved by tokenizers itself)."""
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "bc": 5}
    tokenizers.Tokenizer(BPE(vocab, [("a", "b"), ("ab", "c")])).save(str(path))
    return vocab


def test_a_cached_unreachable_set_is_shown_without_the_navigation_lookups_or_the_engine(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENIZER_LSP_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tokenizer.json"
    vocab = tiny_bpe(path)
    engine = tokenizers.Tokenizer.from_file(str(path))
    expected = {i for t, i in vocab.items() if engine.encode(t, add_special_tokens=False).ids != [i]}
    assert expected == {5}
    reachability_cache.unreachable_of_file(str(path))  # the file checked once before: its set kept
    data = path.read_bytes()

    session = Session()
    published = []
    publisher = SimpleNamespace(findings=lambda doc, diags, version, caused_here=True: published.append(diags))
    doc = DocumentState(path.as_uri(), str(path), 1, data)
    doc.served.index = index_file(str(path))
    doc.served.index.prepare_lookups()
    doc.served.indexed_version, doc.served.was_tokenizer = 1, True
    session.documents[doc.uri] = doc

    def no_engine():
        raise AssertionError("the engine was asked for a set the cache holds")

    async def run():
        with ThreadPoolExecutor(1) as executor:
            job = Unreachable(session, publisher, executor, no_engine)
            job.want(doc)  # navigation_ready is never set: the lookups never come
            loop = asyncio.get_running_loop()
            end = loop.time() + 10  # the wait for navigation lookups is 20 s
            while not published and loop.time() < end:
                await asyncio.sleep(0.02)

    asyncio.run(run())
    assert published, "the cached set was not shown while the navigation lookups were pending"
    found = [d for d in published[-1] if d.get("code") == "unreachable-token"]
    lines = data.decode().splitlines()
    assert {lines[d["range"]["start"]["line"]].split(":")[0].strip().strip('"') for d in found} == {"bc"}


@pytest.mark.parametrize("opened", [True, False])
def test_the_folder_check_of_a_file_just_opened_is_waited_for_and_a_recheck_is_not(monkeypatch, opened):
    """The config check's chat-template child runs at the server's priority on open only."""
    inside: list[bool] = []
    depth = [0]

    class Waited:
        def __enter__(self):
            depth[0] += 1

        def __exit__(self, *exc):
            depth[0] -= 1

    monkeypatch.setattr(folder_job.seams, "waited_for", Waited)
    monkeypatch.setattr(folder_job, "closed_config_diagnostics", lambda session, path: inside.append(depth[0] > 0))
    folder_job._checked(None, "/x/tokenizer.json", opened)
    assert inside == [opened]
