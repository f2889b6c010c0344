"""Every runtime speed-up is optional: without it, or when it fails, the core gets the same
result from the plain reference in core.seams (and from json for message parsing)."""

from __future__ import annotations

import errno
import gc
import json
import os
import pickle
import random
import sys
import threading
import time
import types
import weakref

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tokenizer_lsp import runtime
from tokenizer_lsp.core import seams
from tokenizer_lsp.core.formats.json.parse import DEFER_MERGES_BYTES
from tokenizer_lsp.core.index.files import index_file
from tokenizer_lsp.core.text.edits import Change, apply_changes
from tokenizer_lsp.runtime import fast_copy, forked, malloc, stdio
from tokenizer_lsp.runtime.forked import Forked
from tokenizer_lsp.runtime.read_ahead import take as take_prefetched_text

from tests.conftest import corpus_file

HOOKS = ("in_child", "stages_in_child", "splice", "release_memory")
HAS_FORK = hasattr(os, "fork") and sys.platform != "win32"
needs_fork = pytest.mark.skipif(not HAS_FORK or not os.path.isdir("/proc/self/fd"), reason="needs fork and /proc")


@pytest.fixture(autouse=True)
def plain_hooks():
    """Each test starts from the reference hooks (the CLI's main() installs the runtime in
    this process for good) and leaves core.seams and pygls as it found them."""
    import pygls.io_

    saved = {name: getattr(seams, name) for name in HOOKS}
    saved_json = pygls.io_.json
    seams.reset()
    yield
    for name, value in saved.items():
        setattr(seams, name, value)
    pygls.io_.json = saved_json


# ---- forked: leaks -------------------------------------------------------------------

FORKS: list[int] = []
if HAS_FORK:
    os.register_at_fork(after_in_parent=lambda: FORKS.append(1))


def children() -> set[int]:
    """This process's children, zombies included."""
    me, out = os.getpid(), set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(b")", 1)[1].split()[1]) == me:
            out.add(int(name))
    return out


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_leaks():
    """No child (running or zombie) and no file descriptor outlives the test."""
    kids, fds = children(), open_fds()
    yield
    assert children() <= kids, "a forked child was left behind"
    assert open_fds() == fds, "a pipe was left open"


def assert_reaped(pid: int) -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    assert pid not in children()


# ---- forked: each way it can fail gives fn(*args) run in this process ----------------


def _explode():
    raise ValueError("cannot be rebuilt")


class RebuildFails:
    """Pickles fine in the child, fails to unpickle in the parent."""

    def __reduce__(self):
        return _explode, ()


def work(parent: int, x: int, in_child: str = "return"):
    """x * 2, tagged with where it ran; in a child it may also misbehave."""
    if os.getpid() != parent:
        if in_child == "die":
            os._exit(3)
        if in_child == "hang":
            time.sleep(30)
        if in_child == "raise":
            raise RuntimeError("only in the child")
        if in_child == "unpicklable":
            return threading.Lock()
        if in_child == "unpickles-badly":
            return RebuildFails()
    return {"value": x * 2, "in_parent": os.getpid() == parent}


IN_PROCESS = {"value": 42, "in_parent": True}


@needs_fork
def test_forked_result_comes_from_the_child(no_leaks):
    before = len(FORKS)
    child = Forked(work, os.getpid(), 21)
    pid = child.pid
    assert pid > 0 and len(FORKS) == before + 1
    assert child.result() == {"value": 42, "in_parent": False}
    assert_reaped(pid)


@needs_fork
@pytest.mark.parametrize("start", [0, forked.NICENESS, 15])
def test_forked_child_runs_at_the_background_niceness_never_further_below_its_parent(start):
    """A child of the server (nice 0) runs at 10; a child of the engine worker (already at
    10) stays at 10, where it shares the cores with the server's own children."""
    import subprocess

    code = (
        "import os; from tokenizer_lsp.runtime.forked import Forked; "
        f"os.nice({start}); print(os.nice(0), Forked(os.nice, 0).result())"
    )
    before = os.nice(0)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    parent, child = map(int, out.stdout.split())
    assert parent == before + start
    assert child == max(parent, forked.NICENESS)


@needs_fork
def test_forked_result_larger_than_a_pipe_buffer_arrives_whole(no_leaks):
    blob = random.Random(3).randbytes(5 << 20)
    child = Forked(lambda parent: (blob, os.getpid() != parent), os.getpid())
    assert child.result() == (blob, True)


@needs_fork
@pytest.mark.parametrize("in_child", ["die", "raise", "unpicklable", "unpickles-badly"])
def test_forked_child_that_fails_gives_the_in_process_result(no_leaks, in_child):
    child = Forked(work, os.getpid(), 21, in_child)
    pid = child.pid
    assert pid > 0
    assert child.result() == IN_PROCESS
    assert_reaped(pid)


@needs_fork
def test_forked_child_that_times_out_is_killed_and_the_result_computed_here(no_leaks):
    child = Forked(work, os.getpid(), 21, "hang")
    pid = child.pid
    t = time.monotonic()
    assert child.result(timeout=0.2) == IN_PROCESS
    assert time.monotonic() - t < 5
    assert_reaped(pid)


@needs_fork
@pytest.mark.parametrize("corrupt", ["garbage", "truncated", "empty"])
def test_forked_corrupt_pickle_gives_the_in_process_result(no_leaks, monkeypatch, corrupt):
    def dumps(obj, protocol=None):
        real = pickle.dumps(obj, protocol=protocol)
        return {"garbage": b"\x80\x05not a pickle at all", "truncated": real[: len(real) // 2], "empty": b""}[corrupt]

    # the child inherits this: its payload arrives corrupt
    monkeypatch.setattr(
        forked,
        "pickle",
        types.SimpleNamespace(dumps=dumps, loads=pickle.loads, HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL),
    )
    child = Forked(work, os.getpid(), 21)
    pid = child.pid
    assert pid > 0
    assert child.result() == IN_PROCESS
    assert_reaped(pid)


@needs_fork
def test_forked_without_fork_runs_in_process(no_leaks, monkeypatch):
    monkeypatch.delattr(os, "fork")
    before = len(FORKS)
    child = Forked(work, os.getpid(), 21)
    assert child.pid == 0 and len(FORKS) == before
    assert child.result() == IN_PROCESS


@needs_fork
@pytest.mark.parametrize("failing", ["fork", "pipe"])
def test_forked_when_fork_or_pipe_fails_runs_in_process(no_leaks, monkeypatch, failing):
    def refuse(*args):
        raise OSError(errno.EAGAIN if failing == "fork" else errno.EMFILE, "refused")

    monkeypatch.setattr(os, failing, refuse)
    child = Forked(work, os.getpid(), 21)
    assert child.pid == 0
    assert child.result() == IN_PROCESS


@needs_fork
def test_forked_result_asked_twice_is_computed_again_here(no_leaks):
    child = Forked(work, os.getpid(), 21)
    assert child.result() == {"value": 42, "in_parent": False}
    assert child.result() == IN_PROCESS


@needs_fork
def test_forked_detached_lets_go_of_its_arguments_and_still_gives_the_childs_result(no_leaks):
    held = Holder(21)
    alive = weakref.ref(held)
    child = Forked(lambda parent, h: work(parent, h.x), os.getpid(), held)
    pid = child.pid
    child.detach()
    del held
    gc.collect()
    assert alive() is None  # nothing here keeps the argument: the child has its own copy
    assert child.result() == {"value": 42, "in_parent": False}
    assert_reaped(pid)


@needs_fork
@pytest.mark.parametrize("in_child", ["die", "raise", "unpicklable"])
def test_forked_detached_child_that_fails_says_so_instead_of_computing_here(no_leaks, in_child):
    child = Forked(work, os.getpid(), 21, in_child)
    pid = child.pid
    child.detach()
    with pytest.raises(seams.DetachedWorkLost):
        child.result()
    assert_reaped(pid)


@needs_fork
def test_forked_detached_without_fork_computes_at_once_as_in_process_does(no_leaks, monkeypatch):
    monkeypatch.delattr(os, "fork")
    calls = []
    child = Forked(lambda parent, x: calls.append(x) or work(parent, x), os.getpid(), 21)
    reference = seams.InProcess(lambda parent, x: calls.append(x) or work(parent, x), os.getpid(), 21)
    child.detach()
    reference.detach()
    assert calls == [21, 21]  # each computed when detached, not later
    assert child.result() == reference.result() == IN_PROCESS
    assert calls == [21, 21]


class Holder:
    def __init__(self, x: int) -> None:
        self.x = x


# ---- forked: a real check --------------------------------------------------------------


def synthetic_tokenizer(n: int) -> str:
    """A BPE tokenizer.json with n tokens and about n merges, some of them defective (an
    unknown part, a missing result) and two byte-level fragments of UTF-8."""
    vocab = {f"t{i}": i for i in range(n)}
    merges = []
    for i in range(n - 1):
        a, b = f"t{i}", f"t{i + 1}"
        if i % 97 == 5:
            b = f"missing{i}"
        elif i % 89 != 7:
            vocab.setdefault(a + b, len(vocab))
        merges.append([a, b])
    vocab["\u00e2\u0122"] = len(vocab)
    vocab["Ġ\u00c3"] = len(vocab)
    added = [
        {
            "id": len(vocab),
            "content": "<s>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    ]
    return json.dumps(
        {
            "version": "1.0",
            "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "vocab": vocab, "merges": merges},
        },
        indent=1,
        ensure_ascii=False,
    )


def lower_parallel_thresholds(mp: pytest.MonkeyPatch) -> None:
    """Work beside from the first item and the first byte, wherever a core module reads
    its own copy of the thresholds."""
    for name, module in list(sys.modules.items()):
        if name.startswith("tokenizer_lsp.core"):
            for threshold in ("MIN_PARALLEL_WORK", "MIN_SCAN_BYTES"):
                if hasattr(module, threshold):
                    mp.setattr(module, threshold, 1)


def checked(path, lookups: bool = True) -> tuple:
    """What the core makes of a file: its findings, then its lookup tables."""
    idx = index_file(str(path))
    found = [(f.code, f.start, f.end, f.message) for f in idx.findings]
    if not lookups:
        return found
    idx.prepare_lookups()
    doc = idx.doc
    return found, doc.merge_count, doc.merge_hashes, sorted(doc._tables)


_REFERENCE: dict[tuple, tuple] = {}


def reference(path, lookups: bool = True) -> tuple:
    """checked(path) with the plain hooks (the default InProcess: no fork at all)."""
    key = str(path), lookups
    if key not in _REFERENCE:
        assert seams.in_child is seams.InProcess
        before = len(FORKS)
        _REFERENCE[key] = checked(path, lookups)
        assert len(FORKS) == before
    return _REFERENCE[key]


@pytest.fixture(scope="module")
def real_files(tmp_path_factory):
    """A small file (merges parsed with the rest) and a large one (merges parsed apart)."""
    folder = tmp_path_factory.mktemp("tokenizers")
    files = {}
    for name, n in (("small", 3000), ("large", 15000)):
        (folder / name).mkdir()
        files[name] = folder / name / "tokenizer.json"
        files[name].write_text(synthetic_tokenizer(n), encoding="utf-8")
    return files


FAILURES = ["works", "no-fork", "fork-fails", "child-dies", "child-raises", "child-hangs", "corrupt-result"]


def make_forks_fail(mp: pytest.MonkeyPatch, how: str) -> None:
    def child_side(dumps):
        mp.setattr(
            forked,
            "pickle",
            types.SimpleNamespace(dumps=dumps, loads=pickle.loads, HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL),
        )

    if how == "no-fork":
        mp.delattr(os, "fork")
    elif how == "fork-fails":
        mp.setattr(os, "fork", lambda: (_ for _ in ()).throw(OSError(errno.EAGAIN, "no more processes")))
    elif how == "child-dies":
        child_side(lambda obj, protocol=None: os._exit(3))
    elif how == "child-raises":
        child_side(lambda obj, protocol=None: (_ for _ in ()).throw(MemoryError()))
    elif how == "child-hangs":
        child_side(lambda obj, protocol=None: time.sleep(30))
        mp.setattr(Forked.result, "__defaults__", (0.2,))  # the core asks with the default timeout
    elif how == "corrupt-result":
        child_side(lambda obj, protocol=None: pickle.dumps(obj, protocol=protocol)[:-40])


@needs_fork
@pytest.mark.parametrize("how", FAILURES)
@pytest.mark.parametrize("size", ["small", "large"])
def test_forked_checks_of_a_tokenizer_match_in_process(no_leaks, monkeypatch, real_files, size, how):
    path = real_files[size]
    assert (path.stat().st_size > DEFER_MERGES_BYTES) == (size == "large")
    expected = reference(path)
    assert len(expected[0]) > 50  # findings to compare
    lower_parallel_thresholds(monkeypatch)
    monkeypatch.setattr(seams, "in_child", Forked)
    make_forks_fail(monkeypatch, how)
    before = len(FORKS)
    assert checked(path) == expected
    assert (len(FORKS) > before) == (how not in ("no-fork", "fork-fails"))


@needs_fork
@pytest.mark.parametrize("how", ["works", "child-dies"])
def test_forked_checks_of_a_corpus_tokenizer_match_in_process(no_leaks, monkeypatch, how):
    path = corpus_file("llama2/tokenizer.json")  # 32k tokens: under the default threshold
    expected = reference(path)
    assert expected[0]
    lower_parallel_thresholds(monkeypatch)
    monkeypatch.setattr(seams, "in_child", Forked)
    make_forks_fail(monkeypatch, how)
    before = len(FORKS)
    assert checked(path) == expected
    assert len(FORKS) >= before + 2  # the checks, then the merges' hashes


# ---- install() and reset() -----------------------------------------------------------


def test_core_gives_the_same_results_with_and_without_the_runtime(monkeypatch):
    import pygls.io_

    path = corpus_file("qwen3/tokenizer.json")  # 151k tokens, 151k merges: checked in a fork by default
    data = path.read_bytes()
    edit = [Change(text="é\"x", start=(5, 3), end=(9, 0)), Change(text="", start=(0, 0), end=(0, 1))]
    plain = reference(path, lookups=False), apply_changes(data, edit, "utf-16")
    assert plain[0] and len(plain[1][0]) > fast_copy._LARGE and plain[1][0] != data

    tuned = []
    monkeypatch.setattr(malloc, "tune_malloc", lambda *a: tuned.append(a) or True)  # not for this process
    # what install() changes for the whole process, put back after the test: the worker's
    # later tests must not run with the server's pygls JSON shim or switch interval
    monkeypatch.setattr(pygls.io_, "json", pygls.io_.json)
    interval = sys.getswitchinterval()
    monkeypatch.setattr(seams, "isolated", seams.isolated)  # also if an assertion below fails
    runtime.install(serving=True)
    assert (seams.in_child, seams.splice, seams.release_memory) == (
        Forked,
        fast_copy.splice,
        malloc.release_free_memory,
    )
    assert tuned and isinstance(pygls.io_.json, stdio.JsonShim)
    before = len(FORKS)
    installed = checked(path, lookups=False), apply_changes(data, edit, "utf-16")
    if HAS_FORK:
        assert len(FORKS) > before
    assert seams.release_memory() is None
    assert installed == plain

    assert seams.isolated is forked.isolated
    seams.reset()
    sys.setswitchinterval(interval)
    assert (seams.in_child, seams.splice, seams.release_memory) == (seams.InProcess, seams.plain_splice, seams.no_op)
    assert seams.isolated is seams.plain_isolated  # each later chat-template check would fork
    before = len(FORKS)
    assert apply_changes(data, edit, "utf-16") == plain[1]
    assert len(FORKS) == before


# ---- fast_copy -----------------------------------------------------------------------

LARGE = fast_copy._LARGE
BLOB = random.Random(1).randbytes(3 << 20)
SIZES = st.one_of(st.integers(0, 40), st.integers(LARGE - 40, LARGE + 40), st.integers(0, len(BLOB)))


@st.composite
def splices(draw):
    n = draw(SIZES)
    at = draw(st.integers(0, len(BLOB) - n))
    data = BLOB[at : at + n]
    pos = st.one_of(st.just(0), st.just(n), st.integers(0, n))
    start, end = sorted((draw(pos), draw(pos)))
    m = draw(st.one_of(st.just(0), SIZES))
    at = draw(st.integers(0, len(BLOB) - m))
    return data, start, end, BLOB[at : at + m]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(splices(), st.sampled_from(["real threshold", "every size", "no libc"]))
@example((b"", 0, 0, b""), "real threshold")
@example((b"", 0, 0, b""), "every size")
@example((b"a", 0, 1, b""), "every size")
@example((b"", 0, 0, BLOB[:LARGE]), "real threshold")
@example((BLOB[:LARGE], 0, 0, b""), "real threshold")
@example((BLOB[: LARGE + 1], 0, 1, b""), "real threshold")  # one byte under: the plain way
@example((BLOB[: LARGE + 1], LARGE + 1, LARGE + 1, b"z"), "real threshold")
@example((BLOB[: 2 * LARGE], 0, 2 * LARGE, b"new"), "real threshold")
@example((BLOB[: 2 * LARGE], LARGE, LARGE, BLOB[:LARGE]), "no libc")
def test_fast_splice_equals_plain_splice(case, mode):
    data, start, end, new = case
    before = bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        if mode == "every size":
            mp.setattr(fast_copy, "_LARGE", 1)  # the memmove path for everything but b""
        elif mode == "no libc":
            mp.setattr(malloc, "_LIBC", None)
        got = fast_copy.splice(data, start, end, new)
    assert type(got) is bytes
    assert got == seams.plain_splice(data, start, end, new) == data[:start] + new + data[end:]
    assert data == before


# ---- malloc --------------------------------------------------------------------------


@pytest.mark.parametrize("libc", [None, types.SimpleNamespace()], ids=["no-libc", "libc-without-these-functions"])
def test_malloc_helpers_are_no_ops_without_glibc(monkeypatch, libc):
    monkeypatch.setattr(malloc, "_LIBC", libc)
    assert malloc.tune_malloc() is False
    assert malloc.release_free_memory() is None
    buf = bytes(6 << 20)
    assert malloc.prefer_huge_pages(fast_copy._address(buf), len(buf)) is None
    assert malloc.prefer_huge_pages(0, 0) is None
    assert buf == bytes(6 << 20)


def test_malloc_without_a_loadable_libc_is_none(monkeypatch):
    import ctypes

    def no_library(*args, **kwargs):
        raise OSError("no such library")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    assert malloc._libc() is None


def test_release_free_memory_with_the_real_libc_does_not_raise():
    assert malloc.release_free_memory() is None


# ---- stdio: parsing ------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=1 << 64)
    | st.integers(max_value=-(1 << 63) - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=()), max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=25,
)
MESSAGES = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "method": st.text(max_size=20)},
    optional={"id": st.integers() | st.text(max_size=5), "params": VALUES},
)


def hook_that_records(calls: list):
    def hook(obj: dict):
        calls.append(list(obj))
        return ("hooked", obj)

    return hook


def assert_loads_like_json(body: bytes | str) -> None:
    assert stdio.loads(body) == json.loads(body)
    fast_calls, plain_calls = [], []
    assert stdio.loads(body, object_hook=hook_that_records(fast_calls)) == json.loads(
        body, object_hook=hook_that_records(plain_calls)
    )
    assert fast_calls == plain_calls  # the same objects, innermost first


@settings(max_examples=200, deadline=None)
@given(MESSAGES, st.booleans(), st.booleans())
def test_loads_equals_json_for_random_messages(message, ascii_only, as_str):
    text = json.dumps(message, ensure_ascii=ascii_only)
    assert_loads_like_json(text if as_str else text.encode("utf-8", "surrogatepass"))


DIGITS = st.text("0123456789", min_size=1, max_size=40)
NUMBER = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{frac}{exp}",
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.builds(str.__add__, st.sampled_from("123456789"), DIGITS)),
    st.one_of(st.just(""), DIGITS.map(".".__add__)),
    st.one_of(
        st.just(""),
        st.builds("{}{}{}".format, st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 400)),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(NUMBER, min_size=1, max_size=4))
def test_loads_reads_numbers_as_json_does(numbers):
    assert_loads_like_json(("[" + ", ".join(numbers) + "]").encode())


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": 1, "a": {"b": 2}}',  # the last of two equal keys
        b'[18446744073709551615, -9223372036854775808]',  # the widest 64-bit integers
        b'[18446744073709551616, -9223372036854775809, 123456789012345678901234567890]',  # wider
        b'{"jsonrpc": "2.0", "id": 99999999999999999999999, "result": null}',
        b'["\\ud800", "\\udc00x", "\\ud83d\\ude00"]',  # lone surrogates: json takes them
        b'[1e400, -1e400, 1e-400, -0.0, 0e0]',
        b' \n\t{ "a" : [ ] , "b" : { } }\r\n',
        '{"é": "😀", "": ""}'.encode(),
        b'[NaN, Infinity, -Infinity]',
    ],
)
def test_loads_equals_json_for_edge_cases(body):
    if b"NaN" in body:
        assert repr(stdio.loads(body)) == repr(json.loads(body))
        return
    assert_loads_like_json(body)


# ---- stdio: didOpen ------------------------------------------------------------------

URI = "file:///t/tokenizer.json"


def did_open(text: str, doc_keys: list[str], outer_keys: list[str], ascii_only: bool = False, extra=None) -> bytes:
    values = {"uri": URI, "languageId": "json", "version": 3, "text": text}
    doc = {k: values[k] for k in doc_keys}
    doc.update(extra or {})
    outer = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}}
    message = {k: outer[k] for k in outer_keys}
    try:
        return json.dumps(message, ensure_ascii=ascii_only).encode()
    except UnicodeEncodeError:  # a lone surrogate has no UTF-8: a client sends it escaped
        return json.dumps(message, ensure_ascii=True).encode()


def as_received(body: bytes, object_hook=None):
    """The message loads gives pygls, with the text the didOpen handler then takes."""
    obj = stdio.loads(body, object_hook=object_hook)
    fast = take_prefetched_text(URI, 3)
    if fast is not None:
        doc = obj["params"]["textDocument"]
        assert doc["text"] == ""
        doc["text"] = fast.decode("utf-8")
    return obj, fast is not None


DOC_KEYS = ["uri", "languageId", "version", "text"]
OUTER_KEYS = ["jsonrpc", "method", "params"]
PIECES = ["a", '"', "\\", "\n", "é", "😀", "\t", "/", "\x01", '"}}}', '\\"', "Ġ", '", "languageId": "json', "\"'"]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=40),
    st.permutations(DOC_KEYS),
    st.permutations(OUTER_KEYS),
    st.booleans(),
    st.one_of(st.none(), st.dictionaries(st.sampled_from(["extra", "x"]), VALUES, max_size=2)),
)
@example(["a"], ["uri", "version", "text", "languageId"], OUTER_KEYS, False, None)
def test_did_open_arrives_as_json_reads_it_in_any_key_order(pieces, doc_keys, outer_keys, ascii_only, extra):
    body = did_open("".join(pieces) * 20, doc_keys, outer_keys, ascii_only, extra)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stdio, "_LARGE", 0)  # the fast path for any size
        got, _ = as_received(body)
    assert got == json.loads(body)


def test_did_open_in_key_orders_of_other_clients_keeps_the_fast_path_and_its_text(monkeypatch):
    monkeypatch.setattr(stdio, "_LARGE", 0)
    text = '{"model": {"vocab": {"\\"": 1, "Ġthe": 2}}}\n' * 30
    for doc_keys in (
        DOC_KEYS,
        ["uri", "version", "text", "languageId"],
        ["text", "uri", "version", "languageId"],
        ["languageId", "text", "version", "uri"],
    ):
        body = did_open(text, doc_keys, OUTER_KEYS)
        got, fast = as_received(body)
        assert fast and got == json.loads(body)


def test_small_did_open_goes_the_plain_way_with_the_same_text():
    text = '{"model": {"vocab": {"Ġthe": 1, "é\\"": 2}}}\n' * 100
    body = did_open(text, DOC_KEYS, OUTER_KEYS)
    assert len(body) < stdio._LARGE
    got, fast = as_received(body)
    assert not fast and got == json.loads(body)


def test_large_did_open_at_the_real_threshold_takes_the_fast_path_with_the_same_text():
    text = '{"model": {"vocab": {"Ġthe": 1, "é\\"": 2}}}\n' * (stdio._LARGE // 40)
    body = did_open(text, DOC_KEYS, OUTER_KEYS)
    assert len(body) >= stdio._LARGE
    calls = []
    got = stdio.loads(body, object_hook=hook_that_records(calls))
    # pygls gets the hooked message, its text left empty: the didOpen handler takes the bytes
    assert take_prefetched_text(URI, 3) == text.encode()
    assert got[0] == "hooked" and calls == [DOC_KEYS, ["textDocument"], OUTER_KEYS]
    assert got[1]["params"][1]["textDocument"][1]["text"] == ""
    got, fast = as_received(body)
    assert fast and got == json.loads(body)


@pytest.mark.parametrize("why", ["\\u escapes", "version not an integer", "a large didChange"])
def test_large_messages_the_fast_path_declines_parse_as_json_does(why):
    text = '{"model": {"vocab": {"Ġthe": 1, "é\\"": 2}}}\n' * (stdio._LARGE // 40)
    body = did_open(text, DOC_KEYS, OUTER_KEYS, ascii_only=why == "\\u escapes")
    if why == "version not an integer":
        body = body.replace(b'"version": 3', b'"version": "3"')
    elif why == "a large didChange":
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": text}]},
            }
        ).encode()
    assert len(body) >= stdio._LARGE
    got, fast = as_received(body)
    assert not fast and got == json.loads(body)


# ---- stdio: PipeWriter ---------------------------------------------------------------


class Pipe:
    """A pipe whose read end is drained by a thread; `out` is the write end's file object."""

    def __init__(self) -> None:
        self.r, w = os.pipe()
        self.out = os.fdopen(w, "wb")
        self.got = bytearray()
        self.reader = threading.Thread(target=self._drain)
        self.reader.start()

    def _drain(self) -> None:
        for chunk in iter(lambda: os.read(self.r, 1 << 16), b""):
            self.got.extend(chunk)

    def received(self) -> bytes:
        self.out.close()
        self.reader.join()
        os.close(self.r)
        return bytes(self.got)


MESSAGES_OUT = [b"small-1", b"x" * (stdio.PipeWriter.SMALL + 10), b"", b"small-2", bytes(range(256)) * 100]


def test_pipe_writer_without_libc_write_uses_the_stream(monkeypatch):
    monkeypatch.setattr(stdio, "_write_holding_interpreter", lambda: None)
    pipe = Pipe()
    writer = stdio.PipeWriter(pipe.out)
    assert writer._write is None
    pipe.out.write(b"buffered-")
    for m in MESSAGES_OUT:
        writer.write(m)
    assert pipe.received() == b"buffered-" + b"".join(MESSAGES_OUT)


def test_pipe_writer_on_a_stream_without_a_file_descriptor_uses_the_stream():
    import io

    stream = io.BytesIO()
    writer = stdio.PipeWriter(stream)
    assert writer._write is None
    for m in MESSAGES_OUT:
        writer.write(m)
    assert stream.getvalue() == b"".join(MESSAGES_OUT)


@pytest.mark.parametrize("returns", ["part", "nothing", "error"])
def test_pipe_writer_finishes_a_partial_write_on_the_stream(returns):
    pipe = Pipe()
    writer = stdio.PipeWriter(pipe.out)
    calls = []

    def partial_write(fd, data, size):
        calls.append(size)
        if returns == "error":
            return -1  # EAGAIN, EINTR
        n = size // 3 if returns == "part" else 0
        return os.write(fd, data[:n]) if n else 0

    writer._write = partial_write
    pipe.out.write(b"buffered-")
    small = [m for m in MESSAGES_OUT if len(m) <= writer.SMALL]
    for m in MESSAGES_OUT:
        writer.write(m)
    assert pipe.received() == b"buffered-" + b"".join(MESSAGES_OUT)
    assert calls == [len(m) for m in small]


def _pipe_limit() -> int:
    try:
        return int(open("/proc/sys/fs/pipe-max-size").read())
    except OSError:
        return 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipe sizes are Linux's")
def test_stdout_pipe_is_widened_to_a_megabyte_where_the_system_allows(tmp_path, monkeypatch):
    import fcntl

    r, w = os.pipe()
    try:
        before = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
        stdio._widen_pipe(w)
        after = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
        assert after == (1 << 20 if _pipe_limit() >= 1 << 20 or os.geteuid() == 0 else before)
        # the pipe still carries a reply larger than it whole
        blob = random.Random(5).randbytes(3 << 20)
        got = bytearray()
        reader = threading.Thread(target=lambda: got.extend(_read_all(r, len(blob))))
        reader.start()
        view = memoryview(blob)
        while view:
            view = view[os.write(w, view) :]
        reader.join(10)
        assert bytes(got) == blob
    finally:
        os.close(r)
        os.close(w)
    # a file or a refused change: left as it is, no error
    path = tmp_path / "out"
    with open(path, "wb") as f:
        stdio._widen_pipe(f.fileno())
    r, w = os.pipe()
    try:

        def refuse(*args):
            raise PermissionError(1, "over the limit")

        with monkeypatch.context() as mp:
            mp.setattr(fcntl, "fcntl", refuse)
            stdio._widen_pipe(w)
        assert fcntl.fcntl(w, fcntl.F_GETPIPE_SZ) == before
    finally:
        os.close(r)
        os.close(w)


def _read_all(fd: int, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        out += chunk
    return bytes(out)
