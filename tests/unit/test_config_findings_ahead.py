"""The config files' checks after a large tokenizer.json's first findings wait neither for
its token table nor for its folder's chat templates:
- the build's child sends the table's answers for what the configs name with the index
  (core.model_folder.literals, core.compact_vocab.KnownTokens), and the checks made with them
  equal the checks made with the whole table, without the table being asked;
- the templates rendered ahead while it is built (chat.folder_checks.prepare_folder_templates)
  are the renders the config check uses: it renders nothing again, and finds the same."""

from __future__ import annotations

import os

import pytest
from tokenizer_lsp.core import seams
from tokenizer_lsp.core.chat import folder_checks
from tokenizer_lsp.core.compact_vocab import known_of
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.index.staged import build_index_in_child
from tokenizer_lsp.core.model_folder.folder import build_config_index, configs_beside, facts_of_index, load_folder
from tokenizer_lsp.runtime.forked import ForkedStages

from tests.conftest import corpus_file
from tests.unit.test_runtime_fallbacks import HAS_FORK, no_leaks  # noqa: F401 (a fixture)

needs_fork = pytest.mark.skipif(not HAS_FORK or not os.path.isdir("/proc/self/fd"), reason="needs fork and /proc")


def config_findings(tokenizer_path, facts) -> dict:
    out = {}
    for config in configs_beside(str(tokenizer_path)):
        with open(config, "rb") as f:
            data = f.read()
        idx = build_config_index(data, config, load_folder(config, facts))
        out[os.path.basename(config)] = [(f.code, f.start, f.end, f.message) for f in idx.findings]
    return out


@needs_fork
@pytest.mark.parametrize("model", ["qwen3", "gemma3"])
def test_config_checks_answered_ahead_equal_the_whole_tables_and_never_ask_for_it(no_leaks, monkeypatch, model):  # noqa: F811
    path = corpus_file(f"{model}/tokenizer.json")
    data = path.read_bytes()
    expected = config_findings(path, facts_of_index(build_index(data, str(path))))
    assert any(expected.values())  # the folder has findings to compare (portability, ids)

    monkeypatch.setattr(seams, "stages_in_child", ForkedStages)
    idx = build_index_in_child(data, str(path))
    reads = []
    real_read = folder_checks._read
    monkeypatch.setattr(folder_checks, "_read", lambda p: reads.append(p) or real_read(p))
    got = config_findings(path, facts_of_index(idx))
    assert got == expected
    # the table is still on its way: everything the checks asked, the answers ahead gave
    assert known_of(idx.vocab.tokens) is not None
    # whether encoding adds a BOS came from the editor's text, not from reading the file again
    assert not [p for p in reads if p.endswith("tokenizer.json")]
    # and once it comes, the table answers as before
    assert facts_of_index(idx).id_of("<unused-token-that-no-config-names>") is None
    assert known_of(idx.vocab.tokens) is None


@needs_fork
def test_the_answers_ahead_are_the_tokenizers_librarys(no_leaks, monkeypatch):  # noqa: F811
    import tokenizers  # the oracle: a dependency of the package itself

    path = corpus_file("gemma3/tokenizer.json")
    data = path.read_bytes()
    monkeypatch.setattr(seams, "stages_in_child", ForkedStages)
    idx = build_index_in_child(data, str(path))
    known = known_of(idx.vocab.tokens)
    model_vocab = tokenizers.Tokenizer.from_file(str(path)).get_vocab(with_added_tokens=False)
    by_id = {i: t for t, i in model_vocab.items()}
    assert len(known.ids) > 1000 and len(known.tokens) > 1000  # gemma3's configs name thousands
    assert {t: model_vocab.get(t) for t in known.ids} == known.ids
    assert {i: by_id.get(i) for i in known.tokens} == known.tokens
    assert known.max_id == max(model_vocab.values())
    idx.vocab.tokens.resolved()  # the child is let go of


def test_templates_rendered_ahead_are_the_ones_the_config_check_uses(monkeypatch, tmp_path):
    from tokenizer_lsp.core.chat import checks

    path = corpus_file("qwen3/tokenizer.json")
    facts = facts_of_index(build_index(path.read_bytes(), str(path)))
    monkeypatch.setattr(checks, "_RUNS", {})
    expected = config_findings(path, facts)  # rendered when checked
    assert any(code == "chat-template-portability" for code, *_ in expected["tokenizer_config.json"])

    monkeypatch.setattr(checks, "_RUNS", {})
    runs = []
    real = seams.isolated
    monkeypatch.setattr(seams, "isolated", lambda fn, *args: runs.append(args[0]) or real(fn, *args))
    assert folder_checks.prepare_folder_templates(str(path)) == 1
    assert len(runs) == 1
    assert config_findings(path, facts) == expected
    assert len(runs) == 1  # nothing rendered again

    # a template edited in the editor (open_text) is the one rendered ahead
    config = path.parent / "tokenizer_config.json"
    edited = config.read_bytes().replace(b"<|im_start|>assistant", b"<|im_start|>bot", 1)
    assert folder_checks.prepare_folder_templates(str(path), lambda p: edited if p == str(config) else None) == 1
    assert len(runs) == 2 and runs[1] != runs[0] and "<|im_start|>bot" in runs[1]
