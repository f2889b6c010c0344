"""The GGUF tests' oracle fetch (tests/llama_cpp_vocabs.py): one fetch at a time, so the
fixture that asks while `.ci/run`'s fetch still runs waits for it instead of downloading the
sdist a second time."""

from __future__ import annotations

import fcntl
import threading

import pytest

from tests import llama_cpp_vocabs


def test_a_second_caller_waits_for_the_fetch_and_downloads_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENIZER_LSP_TEST_CACHE", str(tmp_path))
    downloads = []
    monkeypatch.setattr(llama_cpp_vocabs.subprocess, "run", lambda *a, **k: downloads.append(a))
    got = []
    # the fetch in progress: another open file holding the lock
    with open(tmp_path / f".{llama_cpp_vocabs.SDIST}.lock", "w") as fetching:
        fcntl.flock(fetching, fcntl.LOCK_EX)
        waiter = threading.Thread(target=lambda: got.append(llama_cpp_vocabs.models_folder()))
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive() and not got  # waiting on the lock, not fetching
        (tmp_path / llama_cpp_vocabs.MODELS).mkdir(parents=True)  # what the fetch leaves
    waiter.join(10)
    assert got == [tmp_path / llama_cpp_vocabs.MODELS]
    assert downloads == []


def test_a_failed_download_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENIZER_LSP_TEST_CACHE", str(tmp_path))

    class Failed:
        returncode, stderr = 1, "ERROR: no network"

    monkeypatch.setattr(llama_cpp_vocabs.subprocess, "run", lambda *a, **k: Failed())
    with pytest.raises(llama_cpp_vocabs.Unavailable, match="no network"):
        llama_cpp_vocabs.models_folder()
    # the lock is free again: a later caller can try
    with open(tmp_path / f".{llama_cpp_vocabs.SDIST}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
