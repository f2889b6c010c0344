"""The index answers by position, by id and by token, on real files."""

import pytest
from tokenizer_lsp.core.index.files import index_file

from tests.conftest import corpus_file


@pytest.mark.parametrize(
    "rel,token,tid",
    [
        ("qwen3/tokenizer.json", "âĪ", 21704),
        ("gpt2-openai/encoder.json", "Ġthe", 262),
        ("llama2/tokenizer.json", "<0x0A>", 13),
    ],
)
def test_lookups_by_id_token_and_position_agree(rel, token, tid):
    path = corpus_file(rel)
    idx = index_file(str(path))
    _ = idx.findings
    idx.prepare_lookups()
    assert idx.id_of(token) == tid and idx.token_of_id(tid) == token
    start, end = idx.span_of_token(token)
    ref = idx.token_at(start + 1)
    assert ref is not None and ref.token == token and (ref.start, ref.end) == (start, end)
    # the literal in the text is the token (escaped or not) in quotes
    assert idx.data[start : start + 1] == b'"' and idx.data[end - 1 : end] == b'"'
    assert idx.token_of_id(10**9) is None and idx.span_of_token("no such token \x00") is None


def test_added_tokens_by_id():
    idx = index_file(str(corpus_file("qwen3/tokenizer.json")))
    idx.prepare_lookups()
    tid = idx.id_of("<|endoftext|>")
    assert tid is not None and idx.token_of_id(tid) == "<|endoftext|>"
