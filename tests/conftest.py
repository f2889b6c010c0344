import os
from pathlib import Path

import pytest

from tests.lsp.harness import lsp_sessions  # noqa: F401 (a fixture: the shared LSP sessions of a module)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
# no unreachable-token cache (servers and command lines started by the tests inherit it):
# a test that asks for a set gets it computed, and nothing goes into the user's cache; the
# cache's own tests (test_reachability_cache.py) give it a folder
os.environ["TOKENIZER_LSP_CACHE_DIR"] = "off"


@pytest.fixture(scope="module")
def unreachable_sets_of_the_run(tmp_path_factory):
    """For a module that never looks at unreachable-token findings (opted in with
    `pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")`): the servers and
    command lines it starts keep each file's set in one cache of this run, shared by the
    xdist workers, so a corpus file's set is computed once a run instead of at every open
    (gemma3's costs 10 CPU-s, qwen3's 2; they were most of the LSP modules' CPU, issue 33).
    The modules that test the set (test_unreachable_server.py, ...) keep the default: none."""
    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the workers' common folder
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOKENIZER_LSP_CACHE_DIR", str(run / "unreachable-sets"))
        yield


@pytest.fixture(scope="module")
def cli_main_in_process():
    """For a module that calls `tokenizer_lsp.cli.main` in this process (opted in with
    `pytestmark = pytest.mark.usefixtures("cli_main_in_process")`): main installs the runtime
    (checks in forked children) as the command line does, for the rest of the module; once
    it ends, the plain seams are back for the worker's next module."""
    from tokenizer_lsp.core import seams

    yield
    seams.reset()


@pytest.fixture(scope="module", autouse=True)
def _process_left_as_found():
    """A module that plugs the runtime into this process (tokenizer_lsp.runtime.install) must
    put everything back: left installed, every later module on the worker ran with it (each
    chat-template check forked a child: 20 s for a 0.4 s module, issue 33)."""
    import sys

    import pygls.io_
    from tokenizer_lsp.core import seams

    def state():
        return (
            seams.in_child, seams.stages_in_child, seams.splice, seams.release_memory,
            seams.waited_for, seams.isolated, pygls.io_.json, sys.getswitchinterval(),
        )  # fmt: skip

    before = state()
    yield
    after = state()
    if after != before:
        seams.reset()
        pygls.io_.json = before[6]
        sys.setswitchinterval(before[7])
        changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
        pytest.fail(f"the module left process-wide state changed (fields {changed}): undo it in the test")


_importorskip = pytest.importorskip


def _import_or_fail(modname: str, minversion: str | None = None, reason: str | None = None, **kwargs):
    """pytest.importorskip, failing instead of skipping: a module a test imports is an oracle
    or a tool of the run, and pyproject's `test` extra installs it; without it the run must
    fail (a skip is for a platform or the absent shared corpus, never for an install step).
    tests/unit/test_test_oracles.py holds this to it."""
    try:
        __import__(modname)
    except ImportError as e:
        pytest.fail(
            f"{modname} is not importable ({reason or e}): install the test extra, pip install -e '.[test]'",
            pytrace=False,
        )
    try:
        return _importorskip(modname, minversion, reason, **kwargs)  # the version check, as pytest does it
    except pytest.skip.Exception as e:  # too old: the same install step
        pytest.fail(f"{e}: install the test extra, pip install -e '.[test]'", pytrace=False)


pytest.importorskip = _import_or_fail


def corpus_file(rel: str) -> Path:
    path = CORPUS / rel
    if not path.is_file():
        pytest.skip(f"corpus file {path} is absent (set TOKENIZER_CORPUS to the shared corpus folder)")
    return path


def process_state(pid: int) -> str | None:
    """The process's state letter from /proc (T: stopped, Z: a zombie, dead), None when it
    is gone: read from the system, not from whoever started it (Linux only)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):  # gone before the open, or between it and the read
        return None


def gpt2_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> stand-in character table, written as openai/gpt-2 encoder.py publishes
    it (and openai/CLIP's simple_tokenizer.py), so tests compute expected bytes without the
    code under test."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def gpt2_byte_of() -> dict[str, int]:
    """The same table inverted: stand-in character -> byte."""
    return {c: b for b, c in gpt2_bytes_to_unicode().items()}
