"""`diff` and `check model.gguf HF_DIR` lead with what the differences amount to: every id
shifted by one offset, or two different tokenizers; then the lists.

Expected values come from the formats' own libraries: sentencepiece for the pieces of
Mistral's v1 and v3 `.model` (both in the mistral-common wheel), gguf's GGUFReader for a
GGUF's tokens, tokenizers for an HF folder's size and encodings."""

import json
import subprocess
import sys
from functools import cache
from importlib.resources import files

import mistral_common
import pytest

from tests.conftest import corpus_file

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

MISTRAL_DATA = files(mistral_common) / "data"  # Mistral's .model files v1-v7 ship in its wheel


def cli(*args):
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True, check=False
    )
    return p.returncode, p.stdout, p.stderr


def test_mistral_v1_against_v3_says_every_id_shifted_by_one_offset():
    import sentencepiece as spm

    v1, v3 = MISTRAL_DATA / "tokenizer.model.v1", MISTRAL_DATA / "mistral_instruct_tokenizer_240323.model.v3"
    old, new = spm.SentencePieceProcessor(model_file=str(v1)), spm.SentencePieceProcessor(model_file=str(v3))
    new_id = {i: new.piece_to_id(old.id_to_piece(i)) for i in range(old.get_piece_size())}
    assert all(new.id_to_piece(j) == old.id_to_piece(i) for i, j in new_id.items())  # every old piece is kept
    moved = {i: j for i, j in new_id.items() if i != j}
    [shift] = {j - i for i, j in moved.items()}
    first = min(moved)
    assert sorted(moved) == list(range(first, old.get_piece_size()))  # every id from `first` on moved
    inserted = sorted(set(range(new.get_piece_size())) - set(new_id.values()))
    assert inserted == list(range(inserted[0], inserted[-1] + 1))

    code, out, err = cli("diff", v1, v3)
    assert code == 1, err
    lines = out.splitlines()
    want = [
        f"verdict: {len(inserted):,} tokens inserted at ids {inserted[0]}–{inserted[-1]}",
        f"verdict: every id from {first} on shifted by {shift:+d} ({len(moved):,} tokens, old ids "
        f"{first}–{old.get_piece_size() - 1}); ids 0–{first - 1} kept",
    ]
    assert lines[2:4] == want  # before the counts and the lists
    assert (shift, len(moved), first) == (768, 31997, 3)  # the figures the issue names, as sentencepiece says
    code, out, _ = cli("diff", "--format", "json", v1, v3)
    assert json.loads(out)["verdict"] == [w.removeprefix("verdict: ") for w in want]


@cache  # gguf's reader takes 4 CPU-s on this file: read once for the tests that ask
def _sizes(gguf_path, folder):
    import gguf
    from tokenizers import Tokenizer

    n_gguf = len(gguf.GGUFReader(str(gguf_path)).fields["tokenizer.ggml.tokens"].data)
    n_hf = Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab_size(with_added_tokens=True)
    return n_gguf, n_hf


def test_diff_of_two_different_tokenizers_says_so_first():
    g, folder = corpus_file("gguf/ggml-vocab-gpt-2.gguf"), corpus_file("llama3/tokenizer.json").parent
    n_gguf, n_hf = _sizes(g, folder)
    code, out, err = cli("diff", g, folder)
    assert code == 1, err
    assert out.splitlines()[2].startswith(f"verdict: different tokenizers: {n_gguf:,} vs {n_hf:,} tokens; ")


def test_check_of_a_gguf_against_another_models_folder_says_so_first():
    g, folder = corpus_file("gguf/ggml-vocab-gpt-2.gguf"), corpus_file("llama3/tokenizer.json").parent
    n_gguf, n_hf = _sizes(g, folder)
    code, out, err = cli("check", g, folder)
    assert code == 1, err
    first = out.splitlines()[0]
    assert first.startswith(
        f"{g}:tokenizer.ggml.tokens: error gguf-mismatch different tokenizers: "
        f"the GGUF has {n_gguf:,} tokens, HF has {n_hf:,}; "
    ), first
    assert "more ids whose token differs" not in out


def test_a_gguf_with_one_token_renamed_names_it_without_calling_it_another_tokenizer(tmp_path):
    from tests.gguf_fixtures import converted, hf_folder, write_gguf

    folder = hf_folder(tmp_path / "hf")
    conv = converted(folder)
    conv["tokens"][300] = "renamed"
    g = write_gguf(tmp_path / "model.gguf", conv)
    code, out, _ = cli("check", "--format", "json", g, folder)
    rows = [r for r in json.loads(out) if r["code"] == "gguf-mismatch"]
    assert code == 1
    assert rows[0]["message"] == "1 id holds another token than HF's"
    assert rows[1]["id"] == 300 and len(rows) == 2


def test_normalizer_null_and_an_empty_sequence_are_the_same(tmp_path):
    from tokenizers import Tokenizer

    from tests.gguf_fixtures import CORPUS_TEXT, hf_folder

    folder = hf_folder(tmp_path / "hf")
    obj = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    assert obj["normalizer"] is None
    obj["normalizer"] = {"type": "Sequence", "normalizers": []}
    other = tmp_path / "tokenizer.json"
    other.write_text(json.dumps(obj), encoding="utf-8")
    a, b = Tokenizer.from_file(str(folder / "tokenizer.json")), Tokenizer.from_file(str(other))
    assert [e.ids for e in a.encode_batch(CORPUS_TEXT)] == [e.ids for e in b.encode_batch(CORPUS_TEXT)]
    assert a.normalizer is None and b.normalizer is not None  # tokenizers reads both, as two things
    code, out, err = cli("diff", folder / "tokenizer.json", other)
    assert (code, out.splitlines()[2]) == (0, "same meaning: no differences"), out + err
