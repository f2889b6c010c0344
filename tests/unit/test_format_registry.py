"""detect_rules.json, the format registry and the CLI's list of formats held to one another.

Every format is a plug-in of core/formats/registry.py; detect_rules.json (which the VS Code
client reads too) names their files; the CLI's "tokenizer-lsp reads ..." lists them. A
format added to one and not the others fails here.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
from pathlib import Path

import pytest
from tokenizer_lsp.cli import main as cli
from tokenizer_lsp.core.formats import registry

pytestmark = pytest.mark.usefixtures("cli_main_in_process")  # cli.main installs the runtime

ROOT = Path(__file__).resolve().parents[2]
RULES = json.loads((ROOT / "server/tokenizer_lsp/core/detect_rules.json").read_text(encoding="utf-8"))


def _names_of_rules() -> dict[str, str]:
    """A file name for each name rule of detect_rules.json -> the plug-in it names (written
    here from the rules' meaning, not asked of the registry)."""
    out = {}
    for n in RULES["jsonNames"]:
        out[n] = "vocab.json" if n in RULES["vocabNames"] else "tokenizer.json"
    for suffix in RULES["jsonSuffixes"]:
        out["bert-base" + suffix] = "tokenizer.json"
    for n in RULES["mergesNames"]:
        out[n] = "merges"
    out["bpe-merges.txt"] = "merges"  # mergesNamePattern
    for suffix in RULES["tiktokenSuffixes"]:
        out["cl100k_base" + suffix] = "tiktoken"
    out["tekken_240911.json"] = "tekken"  # tableNamePattern
    out["vocab.txt"] = "wordpiece"
    out["tokenizer.model"] = out["spiece.model"] = out["sentencepiece.bpe.model"] = "sentencepiece"
    out["tokenizer.model.v3"] = "sentencepiece"  # binaryPatterns *.model.v*
    out["qwen2.5-0.5b-q8_0.gguf"] = "gguf"  # binaryPatterns *.gguf
    return out


def test_every_format_is_one_plugin_with_its_hooks():
    seen_labels = set()
    for name in registry.FORMATS:
        p = registry.plugin(name)
        assert p.name == name and p.label not in seen_labels
        seen_labels.add(p.label)
        checks = importlib.import_module(f"tokenizer_lsp.core.formats.{p.checks}")  # lives with its format
        assert p.checks.split(".")[0] in {"json", name, "gguf"}
        if registry.reads_table(p):
            assert callable(p.read) and callable(p.read_bytes) and callable(p.encode)
            assert callable(checks.findings)
        else:
            assert callable(p.document) and callable(p.by_name) and not p.binary
            assert callable(checks.document_findings)
    # the four text formats the editor navigates are document plug-ins, the rest tables
    assert {n for n in registry.FORMATS if not registry.reads_table(registry.plugin(n))} == {
        "tokenizer.json",
        "vocab.json",
        "merges",
        "tiktoken",
    }


def test_the_rules_names_are_the_plugins_names():
    expected = _names_of_rules()
    for file_name, plugin_name in expected.items():
        naming = [p.name for p in registry.plugins() if p.named(file_name)]
        assert naming == [plugin_name], file_name
    # every plug-in has a usual name in the rules, and every tokenizer name of a model
    # folder is some plug-in's
    assert set(expected.values()) == set(registry.FORMATS)
    for n in RULES["modelTokenizerNames"]:
        assert registry.named(n), n
    # not a tokenizer file by its name: the config files beside one
    for n in RULES["modelConfigNames"]:
        assert not registry.named(n), n


def test_the_binary_plugins_are_the_binary_patterns():
    for file_name, plugin_name in _names_of_rules().items():
        globbed = any(fnmatch.fnmatch(file_name, pat) for pat in RULES["binaryPatterns"])
        assert globbed == registry.plugin(plugin_name).binary, file_name


def test_the_language_ids_name_document_plugins():
    kinds = {v for v in RULES["languageIds"].values() if v is not None}
    assert kinds == {"json", "merges", "tiktoken"}  # detect.name_kind's kinds
    by_kind = {"json": {"tokenizer.json", "vocab.json"}, "merges": {"merges"}, "tiktoken": {"tiktoken"}}
    documents = {n for n in registry.FORMATS if not registry.reads_table(registry.plugin(n))}
    assert set().union(*by_kind.values()) == documents


@pytest.mark.parametrize(
    "rel, name",
    [
        ("examples/tokenizer.json", "tokenizer.json"),
        ("examples/gpt2-style/vocab.json", "vocab.json"),
        ("examples/gpt2-style/merges.txt", "merges"),
        ("examples/tiny.tiktoken", "tiktoken"),
    ],
)
def test_a_file_is_claimed_by_its_plugin(rel, name):
    assert registry.claim_path(str(ROOT / rel)).name == name


def test_the_cli_lists_every_plugin_once(tmp_path, capsys):
    assert sorted(registry.LISTED) == sorted(registry.FORMATS)
    path = tmp_path / "notes.txt"
    path.write_text("some notes\nthat are not a tokenizer\n")
    assert cli(["check", str(path)]) == 2
    said = capsys.readouterr().err
    listed = said.split("tokenizer-lsp reads ", 1)[1].strip()
    labels = [registry.plugin(n).label for n in registry.FORMATS]
    assert sorted(listed.split(", ")) == sorted(labels)
