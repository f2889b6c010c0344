import pytest

from tests.conftest import corpus_file

from .harness import start, stop

QWEN3 = "qwen3"
LLAMA3 = "llama3"
O200K = "openai-tiktoken/o200k_base.tiktoken"
SPM = "mistral-spm/mistral_instruct_tokenizer_240323.model.v3"


@pytest.fixture(scope="module")
def playground():
    """One playground for a module: qwen3's folder (0), o200k (1), the SentencePiece .model (2)."""
    paths = [str(corpus_file("qwen3/tokenizer.json").parent), str(corpus_file(O200K)), str(corpus_file(SPM))]
    pg = start(paths)
    yield pg
    stop(pg)
