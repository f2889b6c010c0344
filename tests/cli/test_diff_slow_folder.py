"""`diff` of a slow GPT-2 style folder (vocab.json + merges.txt + added_tokens.json +
tokenizer_config.json, whisper's layout): its added tokens are the tokenizer's, as
transformers loads the folder. Held to the tokenizer.json transformers itself saves for the
same folder (its tokenizers backend), which must then be the same tokenizer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.test_encode_added_tokens_json import whisper_like

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")


def diff(old, new) -> tuple[int, dict]:
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "diff", "--format", "json", str(old), str(new)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


@pytest.mark.parametrize("gap", [0, 3], ids=["ids-after-the-vocab", "ids-with-a-gap"])
def test_the_folder_is_the_tokenizer_transformers_loads(tmp_path, gap):
    import transformers

    folder = tmp_path / "whisper-like"
    added = whisper_like(folder, gap)
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    loaded = {t.content: (i, t.special) for i, t in auto.added_tokens_decoder.items()}
    # what is compared: the file's three entries and the class's <|endoftext|>, <|en|> special
    assert set(loaded) == {*added, "<|endoftext|>"} and loaded["<|en|>"][1] and loaded["<|endoftext|>"][1]
    saved = tmp_path / "saved" / "tokenizer.json"
    saved.parent.mkdir()
    auto.backend_tokenizer.save(str(saved))
    for old, new in ((folder / "vocab.json", saved), (saved, folder / "merges.txt")):
        code, d = diff(old, new)
        assert (code, d["same"]) == (0, True), d["added_tokens"]
        assert not any(d["added_tokens"].values()) and not any(d["vocab"].values())


def test_a_folder_without_its_added_tokens_differs_by_them(tmp_path):
    """The same folder with added_tokens.json emptied: what the diff lists is what
    transformers adds for the full one, at the ids it gives."""
    import transformers

    full, bare = tmp_path / "full", tmp_path / "bare"
    added = whisper_like(full, 3)
    whisper_like(bare, 3)
    (bare / "added_tokens.json").write_text("{}", encoding="utf-8")
    auto = transformers.AutoTokenizer.from_pretrained(str(full))
    want = sorted((t.content, i, t.special) for i, t in auto.added_tokens_decoder.items() if t.content in added)
    code, d = diff(bare / "vocab.json", full / "vocab.json")
    assert code == 1
    assert sorted((a["content"], a["id"], a["special"]) for a in d["added_tokens"]["added"]) == want
    assert not d["added_tokens"]["removed"]
