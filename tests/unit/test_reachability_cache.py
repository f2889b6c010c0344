"""The unreachable-token sets kept on disk (core/behaviour/reachability/cache.py): what the
key depends on, that a file checked or opened again as it was gets the same set without the
engine loading it, and that a broken cache is no cache."""

import json
import subprocess
import sys

import pytest
from tokenizer_lsp.core.behaviour.reachability import cache
from tokenizer_lsp.engine.worker import Worker

from tests.conftest import corpus_file

VOCAB, MERGES = "whisper-gpt2/vocab.json", "whisper-gpt2/merges.txt"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "unreachable"


def test_the_key_follows_everything_the_set_depends_on():
    base = cache.key_of(b"{}", "/a/tokenizer.json", None, None)
    assert base == cache.key_of(b"{}", "/elsewhere/tokenizer.json", None, None)  # the folder is not content
    others = {
        cache.key_of(b"{ }", "/a/tokenizer.json", None, None),
        cache.key_of(b"{}", "/a/other.json", None, None),
        cache.key_of(b"{}", "/a/tokenizer.json", b"", None),
        cache.key_of(b"{}", "/a/tokenizer.json", None, r"\s+"),
        # the same bytes split another way between file and pair
        cache.key_of(b"{", "/a/tokenizer.json", b"}", None),
    }
    assert base not in others and len(others) == 5


def test_off_and_unwritable_folders_are_no_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(cache.ENV, "off")
    assert cache.cache_dir() is None
    cache.write("k", [{"id": 1}])
    assert cache.read("k") is None
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(cache.ENV, str(blocker))
    cache.write("k", [{"id": 1}])  # no error
    assert cache.read("k") is None


def test_a_damaged_entry_is_computed_again(cache_dir):
    vocab = corpus_file(VOCAB)
    corpus_file(MERGES)
    first = cache.unreachable_of_file(str(vocab))
    (entry,) = cache_dir.glob("*.json")
    entry.write_text("{not json")
    assert cache.unreachable_of_file(str(vocab)) == first
    assert json.loads(entry.read_text()) == first


def test_check_twice_gives_the_same_findings_the_second_time_from_the_cache(cache_dir):
    vocab = corpus_file(VOCAB)
    corpus_file(MERGES)
    run = lambda: subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", "--format", "json", str(vocab)],
        check=False,
        capture_output=True,
        text=True,
        env=_env(cache_dir),
        timeout=300,
    )
    first = run()
    assert list(cache_dir.glob("*.json")), "nothing kept"
    second = run()
    assert second.returncode == first.returncode and second.stdout == first.stdout
    found = [f for f in json.loads(first.stdout) if f["code"] == "unreachable-token"]
    assert [f["message"].split("`")[1] for f in found] == ["<|endoftext|>"]  # the corpus fact: id 50256 only


def test_the_engine_worker_answers_a_known_content_without_loading_it(cache_dir):
    vocab = corpus_file(VOCAB)
    merges = corpus_file(MERGES)
    request = {
        "op": "unreachable",
        "key": ("doc", 1),
        "data": vocab.read_bytes(),
        "path": str(vocab),
        "companion": merges.read_bytes(),
        "companion_path": str(merges),
    }
    computed = Worker()
    first = computed.handle(dict(request))
    assert computed.loaded, "the first answer needs the engine"
    again = Worker()  # a later server, or the same one after the worker exited idle
    second = again.handle(dict(request))
    assert second == first and not again.loaded
    # another content is computed, not taken from the kept one
    changed = dict(request, data=request["data"].replace(b'"<|endoftext|>"', b'"<|endoftext|>x"'), key=("doc", 2))
    third = again.handle(changed)
    assert again.loaded and third != first


def test_a_conversion_of_the_merges_carries_the_set_to_the_text_it_makes(cache_dir, tmp_path):
    """convertMerges (core/fixes/convert_merges.py) keeps the tokenizer: the set kept for the
    text before is kept for the text after, and is what the engine computes for it."""
    from tokenizer_lsp.core.behaviour.load import load_tokenizer
    from tokenizer_lsp.core.behaviour.reachability.compute import unreachable_tokens
    from tokenizer_lsp.core.fixes.convert_merges import convert
    from tokenizer_lsp.core.index.build import build_index

    from tests.conftest import ROOT

    example = json.loads((ROOT / "examples" / "tokenizer.json").read_text(encoding="utf-8"))
    example["model"]["vocab"]["zq"] = len(example["model"]["vocab"])  # no merge makes it
    text = json.dumps(example, indent=2, ensure_ascii=False).encode("utf-8")
    path = str(tmp_path / "tokenizer.json")
    (tmp_path / "tokenizer.json").write_bytes(text)
    before = cache.unreachable_of_file(path)
    assert [e["token"] for e in before] == ["zq"]
    for to in ("strings", "pairs"):
        idx = build_index(text, path)
        idx.prepare_lookups()
        start, end, new = edit = convert(idx, {"to": to})
        assert cache.carry_across(text, edit, path)
        text = text[:start] + new + text[end:]
        assert isinstance(json.loads(text)["model"]["merges"][0], str if to == "strings" else list)
        assert cache.read(cache.key_of(text, path, None, None)) == before
        assert unreachable_tokens(load_tokenizer(text, path, None, None)) == before  # the engine's own set
    other = text.replace(b'"zq"', b'"zx"')
    assert not cache.carry_across(other, (0, 0, b""), path)  # nothing kept for that text: nothing carried


def _env(cache_dir):
    import os

    return {**os.environ, cache.ENV: str(cache_dir.parent)}
