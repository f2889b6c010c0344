"""llama.cpp's vocab-only GGUFs with its own test texts and expected ids
(vendor/llama.cpp/models/ of llama-cpp-python's sdist: ggml-vocab-*.gguf, *.gguf.inp,
*.gguf.out), the oracle of tests/corpus/test_format_gguf.py.

Kept in a cache folder ($TOKENIZER_LSP_TEST_CACHE, else ~/.cache/tokenizer-lsp-tests),
downloaded there with pip when absent. `.ci/run` starts the fetch (`python -m
tests.llama_cpp_vocabs`) once the Python packages are in, and leaves it running into pytest:
on a new machine, fetched by the test's fixture beside pytest's other worker and the editors'
installs, it held that worker 48 s (pip builds the sdist's metadata, and its build requirements
come first), and waited on in the first phase it kept the run waiting on the network for 30 s.
One fetch at a time (a lock file in the cache): a fixture that asks while the fetch runs waits
for it rather than downloading the same sdist again.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SDIST = "llama_cpp_python-0.3.36"
MODELS = f"{SDIST}/vendor/llama.cpp/models"


class Unavailable(Exception):
    """The sdist is not in the cache and could not be downloaded."""


def cache_folder() -> Path:
    return Path(os.environ.get("TOKENIZER_LSP_TEST_CACHE", Path.home() / ".cache" / "tokenizer-lsp-tests"))


def models_folder() -> Path:
    """vendor/llama.cpp/models/ of the sdist, downloaded and unpacked first when absent."""
    cache = cache_folder()
    models = cache / MODELS
    if models.is_dir():
        return models
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f".{SDIST}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or its process ends
        if models.is_dir():  # fetched by the process that held the lock
            return models
        return _fetch(cache, models)


def _fetch(cache: Path, models: Path) -> Path:
    tarball = cache / f"{SDIST}.tar.gz"
    if not tarball.is_file():
        r = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
            + ["llama-cpp-python==0.3.36", "-d", str(cache)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if r.returncode != 0 or not tarball.is_file():
            raise Unavailable(
                f"llama-cpp-python 0.3.36's sdist is not in {cache} and pip could not download it "
                f"({r.stderr.strip()[-300:]})"
            )
    # unpacked beside, then renamed: a run stopped halfway leaves no folder that looks whole
    # (and no other process unpacks meanwhile: the caller holds the lock)
    unpacking = Path(tempfile.mkdtemp(dir=cache, prefix=".unpacking-"))
    try:
        with tarfile.open(tarball) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(MODELS + "/") and m.isfile()]
            tar.extractall(unpacking, members=members, filter="data")
        models.parent.mkdir(parents=True, exist_ok=True)
        os.replace(unpacking / MODELS, models)
    finally:
        shutil.rmtree(unpacking, ignore_errors=True)
    return models


if __name__ == "__main__":
    try:
        print(f"llama.cpp's test vocabularies: {models_folder()}")
    except Unavailable as e:  # the tests say so again, and fail
        print(e, file=sys.stderr)
        sys.exit(1)
