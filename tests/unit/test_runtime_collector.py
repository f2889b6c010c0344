"""runtime/collector.py: the server's startup objects frozen out of the collector's full
passes, and nothing done where the interpreter cannot."""

from __future__ import annotations

import gc
import subprocess
import sys

from tokenizer_lsp.runtime import collector


def test_the_servers_imports_are_frozen_and_a_full_collection_walks_almost_nothing():
    # in a process of its own: freezing this one would freeze pytest's objects
    code = (
        "import gc, tokenizer_lsp.lsp.server, tokenizer_lsp.runtime.stdio\n"
        "from tokenizer_lsp.runtime.collector import freeze_startup_objects\n"
        "before = len(gc.get_objects())\n"
        "assert freeze_startup_objects()\n"
        "print(before, gc.get_freeze_count(), len(gc.get_objects()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    before, frozen, walked = map(int, out.split())
    assert before > 10_000  # what a full collection walked before
    assert frozen >= before * 0.9 and walked < 100


def test_without_freeze_nothing_is_done(monkeypatch):
    monkeypatch.delattr(gc, "freeze")
    count = gc.get_freeze_count()
    assert collector.freeze_startup_objects() is False
    assert gc.get_freeze_count() == count
