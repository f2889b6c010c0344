"""The tekken plug-in against mistral-common itself: ids, bytes and encodings of real files
(the corpus's and every tekken file in the mistral-common package) equal Tekkenizer's, and
synthetic files written here trigger each check where mistral-common shows the flaw."""

import base64
import importlib.util
import json
from pathlib import Path

import pytest

# mistral-common is the oracle (pyproject's `test` extra): without it these tests fail at
# import, never skip (a skip would hide a missing install step)
from mistral_common.tokens.tokenizers import tekken  # noqa: E402
from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy  # noqa: E402
from tokenizer_lsp.core.checks.tables import table_findings
from tokenizer_lsp.core.formats import registry
from tokenizer_lsp.core.formats.table import FormatError
from tokenizer_lsp.core.formats.tekken import PLUGIN, hover_note
from tokenizer_lsp.core.formats.tekken.read import DEFAULT_SPECIALS, FILLER
from tokenizer_lsp.core.index.files import index_file

from tests.conftest import CORPUS

# never reads unreachable-token findings: each file's set computed once a run (conftest.py)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

Tekkenizer = tekken.Tekkenizer

TEXTS = [
    "Hello world, ça va?",
    "  leading spaces\n\nand lines\r\n",
    "数字 12345 and emoji 🙂👍🏽",
    "def f(x):\n\treturn x ** 2  # code",
    "",
    "Ünïcödé ß ﬁ \u200b zero-width",
    "<s>[INST] not special [/INST]",
]


def real_files() -> list[Path]:
    """The corpus's tekken file and every one mistral-common ships in its data folder."""
    data = Path(importlib.util.find_spec("mistral_common").origin).parent / "data"
    found = sorted(data.glob("*tekken*.json"))
    corpus = CORPUS / "mistral-tekken" / "tekken_240718.json"
    return ([corpus] if corpus.is_file() else []) + found


@pytest.fixture(scope="module", params=real_files(), ids=lambda p: p.name)
def real(request):
    path = request.param
    plugin, table = registry.read_table(str(path))
    return path, plugin, table, Tekkenizer.from_file(path)


def test_found_real_files():
    assert len(real_files()) >= 2, "the corpus file and mistral-common's own tekken files"


def test_rows_are_mistral_commons_ids_and_bytes(real):
    path, plugin, table, tk = real
    assert plugin is PLUGIN
    assert len(table.rows) == tk.n_words
    assert [r.id for r in table.rows] == list(range(tk.n_words))
    for r in table.rows:
        want = tk.id_to_byte_piece(r.id, SpecialTokenPolicy.KEEP)
        assert r.data == want, r.id
        assert r.special == tk.is_special(r.id)
    for role in ("bos", "eos", "unk", "pad"):
        assert table.meta[f"{role}_id"] == getattr(tk, f"{role}_id")


def test_encode_is_tekkenizers(real):
    path, plugin, table, tk = real
    for text in TEXTS:
        assert plugin.encode(table, text, False, None) == tk.encode(text, bos=False, eos=False)
        assert plugin.encode(table, text, True, None) == tk.encode(text, bos=True, eos=False)


def check(table):
    return table_findings(table, PLUGIN)


def fragment_ids(tk) -> list[int]:
    """The ids whose bytes (mistral-common's) are not UTF-8 alone."""
    out = []
    for i in range(tk.num_special_tokens, tk.n_words):
        try:
            tk.id_to_byte_piece(i).decode("utf-8")
        except UnicodeDecodeError:
            out.append(i)
    return out


def test_real_files_have_no_error_or_warning(real):
    path, plugin, table, tk = real
    found = check(table)
    assert [f for f in found if f.severity in ("error", "warning")] == []
    # the fragments named are exactly the used entries whose bytes are not UTF-8
    assert sorted(f.id for f in found if f.code == "utf8-fragment") == fragment_ids(tk)


def test_entry_spans_hold_the_entrys_token_bytes(real):
    path, plugin, table, tk = real
    data = path.read_bytes()
    obj = json.loads(data)
    n = tk.num_special_tokens
    for k in (0, 255, 256, 5000, len(table.rows) - n - 1):
        s, e = table.spans[n + k]
        assert json.loads(data[s:e]) == obj["vocab"][k]["token_bytes"]


def test_default_specials_are_mistral_commons():
    assert list(DEFAULT_SPECIALS) == [t["token_str"] for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS]
    assert FILLER == Tekkenizer.SPECIAL_TOKEN_TEMPLATE


# ---- synthetic files --------------------------------------------------------------------

PIECES = [b"he", b"ll", b"hell", b"hello", b" w", b"or", b" wor", b" world", b"\xc3\xa7", b"\xe2\x82\xac"]
N_SPECIAL = 24


def synthetic(version="v3", specials=None, extra=()) -> dict:
    vocab = [bytes([i]) for i in range(256)] + PIECES + list(extra)
    obj = {
        "config": {
            "pattern": r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+",
            "num_vocab_tokens": len(vocab),
            "default_vocab_size": len(vocab) + N_SPECIAL,
            "default_num_special_tokens": N_SPECIAL,
            "version": version,
        },
        "vocab": [
            {
                "rank": i,
                "token_bytes": base64.b64encode(b).decode(),
                "token_str": b.decode("utf-8") if _utf8(b) else None,
            }
            for i, b in enumerate(vocab)
        ],
    }
    if specials is not None:
        obj["special_tokens"] = specials
    return obj


def _utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def write(tmp_path, obj, name="tekken.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(obj, indent=2), encoding="utf-8")
    return path


def codes(path, fragments=False) -> dict:
    """code -> findings; utf8-fragment only when asked (the single bytes 80..FF of every
    tekken file are fragments: test_untouched_... checks those against mistral-common)."""
    out = {}
    for f in check(registry.read_table(str(path))[1]):
        if fragments or f.code != "utf8-fragment":
            out.setdefault(f.code, []).append(f)
    return out


V7_SPECIALS = [
    {"rank": i, "token_str": s, "is_control": True}
    for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "<pad>"])
]


@pytest.mark.parametrize("version,specials", [("v3", None), ("v7", V7_SPECIALS), ("v11", V7_SPECIALS)])
def test_untouched_synthetic_file_loads_and_has_no_finding(tmp_path, version, specials):
    path = write(tmp_path, synthetic(version, specials))
    tk = Tekkenizer.from_file(path)  # mistral-common reads it
    assert codes(path) == {}
    assert [f.id for f in codes(path, fragments=True)["utf8-fragment"]] == fragment_ids(tk)
    plugin, table = registry.read_table(str(path))
    assert [r.data for r in table.rows] == [tk.id_to_byte_piece(i, SpecialTokenPolicy.KEEP) for i in range(tk.n_words)]
    for text in TEXTS + ["hello world ça coûte 5€"]:
        assert plugin.encode(table, text, False, None) == tk.encode(text, bos=False, eos=False)
    # the same from the text alone (an editor's unsaved buffer): no path to load from
    unsaved = registry.plugin("tekken").read_bytes(path.read_bytes(), None)
    assert plugin.encode(unsaved, "hello world", True, None) == tk.encode("hello world", bos=True, eos=False)


def test_rank_not_its_place(tmp_path):
    obj = synthetic()
    obj["vocab"][260]["rank"] = 261
    path = write(tmp_path, obj)
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    found = codes(path)
    assert list(found) == ["tekken-rank"] and [f.id for f in found["tekken-rank"]] == [N_SPECIAL + 260]


def test_first_256_not_the_single_bytes(tmp_path):
    obj = synthetic()
    a, b = obj["vocab"][65], obj["vocab"][66]
    a["token_bytes"], b["token_bytes"] = b["token_bytes"], a["token_bytes"]
    a["token_str"], b["token_str"] = b["token_str"], a["token_str"]
    path = write(tmp_path, obj)
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    assert [f.id - N_SPECIAL for f in codes(path)["tekken-rank"]] == [65, 66]


def test_token_str_differs_from_bytes(tmp_path):
    obj = synthetic()
    obj["vocab"][259]["token_str"] = "HELLO"
    path = write(tmp_path, obj)
    tk = Tekkenizer.from_file(path)  # loads: mistral-common never reads token_str
    assert tk.id_to_piece(N_SPECIAL + 259) != "HELLO"
    found = codes(path)
    assert list(found) == ["tekken-token-str"] and found["tekken-token-str"][0].id == N_SPECIAL + 259
    assert found["tekken-token-str"][0].severity == "warning"


def test_duplicate_bytes(tmp_path):
    path = write(tmp_path, synthetic(extra=[b"hello"]))
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    found = codes(path)
    assert list(found) == ["duplicate-token"]
    assert found["duplicate-token"][0].id == N_SPECIAL + 256 + len(PIECES)


def test_duplicate_special(tmp_path):
    path = write(tmp_path, synthetic("v7", V7_SPECIALS + [{"rank": 6, "token_str": "<s>", "is_control": True}]))
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    assert list(codes(path)) == ["duplicate-token"]


def test_duplicate_bytes_under_another_token_str(tmp_path):
    obj = synthetic(extra=[b"hello"])
    obj["vocab"][-1]["token_str"] = "hello!"
    path = write(tmp_path, obj)
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    found = codes(path)
    assert sorted(found) == ["duplicate-token", "tekken-token-str"]
    assert [f.id for f in found["duplicate-token"]] == [N_SPECIAL + 256 + len(PIECES)]


def test_utf8_fragment(tmp_path):
    path = write(tmp_path, synthetic(extra=[b"\xe2\x82"]))
    tk = Tekkenizer.from_file(path)
    tid = N_SPECIAL + 256 + len(PIECES)
    with pytest.raises(UnicodeDecodeError):
        tk.id_to_byte_piece(tid).decode("utf-8")
    found = codes(path, fragments=True)
    assert list(found) == ["utf8-fragment"] and [f.id for f in found["utf8-fragment"]] == fragment_ids(tk)
    assert tid in fragment_ids(tk)


def test_special_missing_eos(tmp_path):
    specials = [dict(s) for s in V7_SPECIALS if s["token_str"] != "</s>"]
    for i, s in enumerate(specials):
        s["rank"] = i
    path = write(tmp_path, synthetic("v7", specials))
    tk = Tekkenizer.from_file(path)
    with pytest.raises(ValueError):
        _ = tk.eos_id
    found = codes(path)
    assert list(found) == ["special-id"] and "</s>" in found["special-id"][0].message


def test_special_rank_not_its_place(tmp_path):
    specials = [dict(s) for s in V7_SPECIALS]
    specials[1]["rank"], specials[2]["rank"] = 2, 1  # <s> and </s> swapped by rank only
    path = write(tmp_path, synthetic("v7", specials))
    tk = Tekkenizer.from_file(path)
    # mistral-common's bos id (by rank) decodes (by place) as another token
    assert tk.id_to_piece(tk.bos_id) != "<s>"
    assert [f.id for f in codes(path)["special-id"]] == [1, 2]


def test_vocab_size_beyond_entries(tmp_path):
    obj = synthetic()
    obj["config"]["default_vocab_size"] += 5
    path = write(tmp_path, obj)
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    assert list(codes(path)) == ["vocab-size"]


def test_unreadable_file_is_one_line_error(tmp_path):
    path = tmp_path / "tekken.json"
    path.write_text('{"config": {"pattern": "x"}, "vocab": [{"rank": 0, "token_bytes": "AA=="}]}')
    with pytest.raises(FormatError) as e:
        registry.read_table(str(path))
    assert "\n" not in str(e.value)
    idx = index_file(str(path))  # the editor's index: one finding, no crash
    assert idx.format == "tekken" and [f.code for f in idx.findings] == ["schema"]
    assert all(0 <= f.start <= f.end <= len(path.read_bytes()) for f in idx.findings)


def test_hover_note_names_mistral_commons_id(tmp_path):
    path = write(tmp_path, synthetic())
    tk = Tekkenizer.from_file(path)
    table = registry.read_table(str(path))[1]
    row = table.rows[N_SPECIAL + 259]
    assert f"id {N_SPECIAL + 259} = rank 259" in hover_note(table, row)[0]
    assert tk.id_to_byte_piece(row.id) == row.data


def test_listed_special_named_like_a_filler(tmp_path):
    """A listed special spelled as a later filler: mistral-common refuses the file (its
    specials must be unique); the checks say so without failing on the filler's row, which
    has no place in the text."""
    specials = [dict(s) for s in V7_SPECIALS] + [
        {"rank": 6, "token_str": FILLER.format(id=N_SPECIAL - 1), "is_control": True}
    ]
    path = write(tmp_path, synthetic("v7", specials))
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    found = codes(path)
    assert list(found) == ["duplicate-token"] and found["duplicate-token"][0].id == N_SPECIAL - 1
    idx = index_file(str(path))
    assert all(0 <= f.start <= f.end <= len(path.read_bytes()) for f in idx.findings)


# ---- encode on a default install; decode's stored form (issue 32) ----------------------------

_WITHOUT_MISTRAL_COMMON = (
    "import sys; sys.modules['mistral_common'] = None\n"  # `import mistral_common` raises ImportError
    "sys.argv[0] = 'tokenizer-lsp'; from tokenizer_lsp.cli import run; run()\n"
)


def _cli_without_mistral_common(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", _WITHOUT_MISTRAL_COMMON, *args], capture_output=True, text=True)


def test_encode_needs_no_mistral_common(real):
    """A default install has no mistral-common: encode is tiktoken's, as Tekkenizer's own."""
    path, plugin, table, tk = real
    for text in TEXTS[:3]:
        for special in (False, True):
            p = _cli_without_mistral_common(
                "encode", "--format", "json", *(["--special"] if special else []), str(path), text
            )
            assert p.returncode == 0, p.stderr
            assert json.loads(p.stdout)["ids"] == tk.encode(text, bos=special, eos=False)


@pytest.mark.parametrize(
    "name,edit",
    [
        ("rank", lambda o: o["vocab"][260].update(rank=261)),
        (
            "duplicate",
            lambda o: o["vocab"].append({"rank": len(o["vocab"]), "token_bytes": "aGVsbG8=", "token_str": "hello"}),
        ),
        (
            "special",
            lambda o: o.update(special_tokens=V7_SPECIALS + [{"rank": 6, "token_str": "<s>", "is_control": True}]),
        ),
        ("size", lambda o: o["config"].update(default_vocab_size=o["config"]["default_vocab_size"] + 5)),
    ],
)
def test_encode_refuses_what_mistral_common_refuses(tmp_path, name, edit):
    obj = synthetic("v7", V7_SPECIALS)
    edit(obj)
    if name == "duplicate":
        obj["config"]["default_vocab_size"] += 1
    path = write(tmp_path, obj)
    with pytest.raises(AssertionError):
        Tekkenizer.from_file(path)
    p = _cli_without_mistral_common("encode", str(path), "hello world")
    check = _cli_without_mistral_common("check", str(path))
    assert p.returncode == check.returncode == 1, (p.stderr, check.stdout)
    assert "mistral-common refuses this file" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_decode_token_is_the_stored_form(real):
    """INTERFACE Part 3: `token` is the piece as stored: the entry's token_str, or where it
    is null (bytes that are not UTF-8: 1,435 entries of tekken_240718.json) its token_bytes
    field, never a rendering such as `\\x80`."""
    path, plugin, table, tk = real
    p = _cli_without_mistral_common("decode", "--format", "jsonl", str(path))
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    vocab = json.loads(path.read_bytes())["vocab"]
    n = tk.num_special_tokens
    assert len(rows) == tk.n_words
    stored = [(e["token_str"] if e["token_str"] is not None else e["token_bytes"]) for e in vocab[: tk.n_words - n]]
    assert [r["token"] for r in rows[n:]] == stored
    assert [bytes.fromhex(r["bytes"]) for r in rows[n:]] == [tk.id_to_byte_piece(i) for i in range(n, tk.n_words)]
    if path.name == "tekken_240718.json":
        assert sum(e["token_str"] is None for e in vocab[: tk.n_words - n]) == 1435
