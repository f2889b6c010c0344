import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))


def corpus_file(rel: str) -> Path:
    path = CORPUS / rel
    if not path.is_file():
        pytest.skip(f"corpus file {path} is absent (set TOKENIZER_CORPUS to the shared corpus folder)")
    return path
