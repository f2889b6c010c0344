"""A WordPiece vocab.txt whose lines hold spaces (custom and multilingual vocabularies do):
still a vocab.txt, each token the whole line minus its end, its id its line, as tokenizers'
WordPiece.read_file reads it and BertWordPieceTokenizer encodes with it. Text that is not a
vocabulary (prose, Markdown, word counts, merges) is still refused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizer_lsp.core.formats.registry import sniff_path
from tokenizer_lsp.core.formats.wordpiece import PLUGIN
from tokenizers.implementations import BertWordPieceTokenizer
from tokenizers.models import WordPiece

from tests.conftest import corpus_file

SENTENCES = ["The quick brown fox jumps over the lazy dog in new york.", "Word pieces, unbelievably!"] * 30
PHRASES = ["new york", "los angeles", "hong kong", "e . g", "rock 'n' roll", "a\tb", "x  y", "de la"]


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def held_to_tokenizers(path: Path) -> None:
    """Sniffed, read, decoded and encoded as tokenizers reads and encodes the file."""
    theirs = WordPiece.read_file(str(path))
    assert sniff_path(str(path)) is PLUGIN
    p = cli("decode", "--format", "jsonl", path)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    # every line a token, its id its line (no duplicates here: read_file's map is every line)
    assert len(rows) == len(theirs) and {r["token"]: r["id"] for r in rows} == theirs
    bert = BertWordPieceTokenizer(str(path), lowercase=True)
    for text in SENTENCES[:2] + [" ".join(PHRASES)]:
        p = cli("encode", "--format", "json", "--special", path, text)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["ids"] == bert.encode(text).ids
    p = cli("check", "--format", "json", path)
    assert p.returncode in (0, 1) and "not a tokenizer" not in p.stderr, p.stderr
    spaced = [r for r in json.loads(p.stdout) if r["code"] == "wordpiece-unreachable"]
    # each spaced line is reported where it stands, by its id = its line
    assert {(r["id"], r["range"]["start"]["line"]) for r in spaced} == {
        (i, i) for t, i in theirs.items() if " " in t or "\t" in t
    }


def test_a_small_vocab_with_a_spaced_line_early(tmp_path):
    path = tmp_path / "vocab.txt"
    lines = ["[PAD]", "[UNK]", "new york", "[CLS]", "[SEP]", "[MASK]", "the", "quick", "##ly", "fox", "new", "york"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    held_to_tokenizers(path)


def test_a_trained_vocab_with_phrase_lines(tmp_path):
    """A vocabulary trained by tokenizers, with phrases added near its top as a custom
    vocabulary adds them (more than one line in twenty spaced: refused before)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES), encoding="utf-8")
    tok = BertWordPieceTokenizer(lowercase=True)
    tok.train([str(corpus)], vocab_size=120, min_frequency=1)
    tok.save_model(str(tmp_path))
    path = tmp_path / "vocab.txt"
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    lines[6:6] = PHRASES
    assert len(PHRASES) * 20 > len(lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    held_to_tokenizers(path)
    renamed = tmp_path / "bert-vocab.txt"  # by content alone, too
    renamed.write_bytes(path.read_bytes())
    assert sniff_path(str(renamed)) is PLUGIN


def test_line_ends_are_trimmed_as_tokenizers_trims_them(tmp_path):
    """Trailing spaces, \\r and U+3000 are not part of a token; U+001F (whitespace to
    Python, not to Rust's trim_end) is."""
    path = tmp_path / "vocab.txt"
    lines = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "tail  ", "cr\r", "ideo\u3000", "unit\x1f", "##s"]
    path.write_bytes("\n".join(lines).encode("utf-8") + b"\n")
    theirs = WordPiece.read_file(str(path))
    assert {r.token: r.id for r in PLUGIN.read(str(path)).rows} == theirs


NOT_VOCABULARIES = {
    "markdown": "# Title\n\n## Install\n\nRun the thing.\n\n## Usage\n\nIt works [CLS] well.\n\n## Notes\n\n## More\n\n## End\n",
    "word counts": "[CLS] 0\n[SEP] 1\nthe 1061396\nof 593677\nand 416629\n##s 3000\n",
    "prose": "The [CLS] token starts.\n[SEP]\nThe [SEP] token ends a sentence, and so on.\nAnother line here.\n",
}


@pytest.mark.parametrize("kind", sorted(NOT_VOCABULARIES))
def test_text_that_is_no_vocabulary_is_still_refused(tmp_path, kind):
    for name in ("vocab.txt", "notes.txt"):
        path = tmp_path / name
        path.write_text(NOT_VOCABULARIES[kind], encoding="utf-8")
        assert sniff_path(str(path)) is not PLUGIN, (kind, name)
    for other in ("whisper-gpt2/merges.txt", "openai-tiktoken/o200k_base.tiktoken"):
        assert sniff_path(str(corpus_file(other))) is not PLUGIN
