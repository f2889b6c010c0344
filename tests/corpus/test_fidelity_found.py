"""Fidelity found with real files the other tests did not cover (issue 25).

Each expectation comes from the format's own library run on the same bytes (tiktoken's
loader, HF tokenizers, transformers' AutoTokenizer on a folder built here), never from
our code.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken.load as tiktoken_load
from tokenizer_lsp.core.decoding.listing import decoded_rows
from tokenizer_lsp.core.index.files import index_file


def run_cli(*args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# ---- decode of a .tiktoken: the token as stored --------------------------------------------


def test_tiktoken_decode_shows_the_field_as_stored(tmp_path, monkeypatch):
    """`= 2` is the empty token: its row's `token` is the stored `=`, not the canonical ""
    of its (no) bytes; a non-canonical field (`QR==`) is shown as written too."""
    data = b"IQ== 0\nIg== 1\n= 2\nQR== 3\n"
    path = tmp_path / "x.tiktoken"
    path.write_bytes(data)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken caches by path otherwise
    ranks = tiktoken_load.load_tiktoken_bpe(str(path), expected_hash=None)
    # the fields as tiktoken's loader splits them, rank -> field
    fields = {int(r): t.decode() for t, r in (line.split() for line in data.splitlines() if line)}
    rows = {r["id"]: r for r in decoded_rows(index_file(str(path)))}
    assert {i: r["token"] for i, r in rows.items()} == fields
    assert {i: bytes.fromhex(r["bytes"]) for i, r in rows.items()} == {r: b for b, r in ranks.items()}
    code, out, _ = run_cli("decode", "--format", "jsonl", str(path))
    assert code == 0
    assert {json.loads(l)["id"]: json.loads(l)["token"] for l in out.splitlines()} == fields


# ---- added_tokens.json beside a vocab.json (a slow GPT-2 style folder) ----------------------


def slow_folder(folder: Path, added: dict[str, int], config: dict | None = None) -> None:
    """A byte-level BPE trained here by tokenizers, saved as vocab.json + merges.txt, with an
    added_tokens.json (and a tokenizer_config.json) beside it: whisper's folder layout."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(["the cat sat on the mat", "hello world, the end"] * 20, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.model.save(str(folder))
    (folder / "added_tokens.json").write_text(json.dumps(added), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(
        json.dumps(config or {"tokenizer_class": "GPT2Tokenizer"}), encoding="utf-8"
    )


def test_added_tokens_json_beside_vocab_json_defines_tokens(tmp_path):
    """transformers reads each added_tokens.json entry of a slow folder as an added token
    with that id: no `config-token-missing` on them, nor on a config naming one, no id
    mismatch, and `check` exits 0 on the folder."""
    import transformers

    folder = tmp_path / "whisper-like"
    slow_folder(folder, {})
    n = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    added = {"<|notimestamps|>": n, "<|startoftranscript|>": n + 1, "<|en|>": n + 2}
    slow_folder(folder, added, {"tokenizer_class": "GPT2Tokenizer", "additional_special_tokens": ["<|en|>"]})
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    vocab_size = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    # transformers: the entries are tokens, with their own ids, after the vocabulary
    assert {t: auto.convert_tokens_to_ids(t) for t in added} == added
    assert min(added.values()) >= vocab_size and len(auto) == vocab_size + len(added)
    code, out, err = run_cli("check", "--format", "json", str(folder))
    rows = json.loads(out)
    assert [r for r in rows if r["code"] in ("config-token-missing", "config-id-mismatch")] == []
    assert code == 0, [r for r in rows if r["severity"] == "error"]
    # the file checked alone: the same
    code, out, _ = run_cli("check", "--format", "json", str(folder / "added_tokens.json"))
    assert (code, [r for r in json.loads(out) if r["severity"] == "error"]) == (0, [])


# ---- a merges.txt without its #version line, paired with its vocab.json ----------------------

from lsprotocol import types  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402

# the session the navigation tests use (tests/lsp/harness.py)
from tests.lsp.harness import navigation_client as client  # noqa: E402, F401 (a fixture)


def trained_bpe(folder: Path) -> tuple[dict[str, int], list[str]]:
    """vocab and merges ("a b") of a byte-level BPE trained here by tokenizers."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=300, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(["the cat sat on the mat, then the other cat"] * 20, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.model.save(str(folder))
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    merges = [l for l in (folder / "merges.txt").read_text(encoding="utf-8").splitlines() if not l.startswith("#")]
    return vocab, merges


@pytest.mark.parametrize("header", [True, False], ids=["with #version", "without #version"])
async def test_vocab_json_hover_tells_the_merges_of_a_headerless_merges_file(client: LanguageClient, tmp_path, header):
    folder = tmp_path / ("with" if header else "without")
    vocab, merges = trained_bpe(folder)
    (folder / "merges.txt").write_text(
        ("#version: 0.2\n" if header else "") + "\n".join(merges) + "\n", encoding="utf-8"
    )
    text = json.dumps(vocab, indent=2, ensure_ascii=False) + "\n"
    (folder / "vocab.json").write_text(text, encoding="utf-8")
    pairs = [m.split(" ") for m in merges]
    token = "Ġthe"
    made_by = next(r for r, (a, b) in enumerate(pairs) if a + b == token)
    uses = sum(1 for a, b in pairs if token in (a, b))
    line = text.split("\n").index(f'  "{token}": {vocab[token]},')
    uri = (folder / "vocab.json").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    value = ""
    for _ in range(200):  # the merges lines come once the navigation lookups are built
        h = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 4))
        )
        value = h.contents.value if h is not None else ""
        if "merge tree:" in value:
            break
        await asyncio.sleep(0.05)
    assert f"made by merge rank {made_by}:" in value, value
    assert f"used by {uses} merge" in value and "merge tree:" in value


# ---- string merges whose parts hold a space ---------------------------------------------------


def test_string_merge_with_a_spaced_part_is_ambiguous_and_converts_to_pairs():
    """A literal (not byte-level) BPE whose token `a b` holds a space: tokenizers writes its
    merge as the pair ["a b", "c"]; written as the string "a b c" tokenizers refuses the
    file. That string is `merge-ambiguous` (not only `merge-malformed`) and its quick fix
    gives back the pairs tokenizers itself writes, which tokenizers loads."""
    from tokenizer_lsp.core.fixes import apply_edits, fixes_for
    from tokenizer_lsp.core.index.build import build_index
    from tokenizers import Tokenizer, models

    vocab = {"a": 0, "b": 1, "c": 2, " ": 3, "a b": 4, "a bc": 5, "x": 6, "y": 7, "xy": 8}
    pairs_text = Tokenizer(models.BPE(vocab=vocab, merges=[("a b", "c"), ("x", "y")])).to_str()
    obj = json.loads(pairs_text)
    pairs = obj["model"]["merges"]
    obj["model"]["merges"] = [" ".join(p) for p in pairs]
    text = json.dumps(obj, indent=2)
    with pytest.raises(Exception, match="Merges text file invalid"):
        Tokenizer.from_str(text)
    idx = build_index(text.encode("utf-8"), "tokenizer.json")
    idx.prepare_lookups()
    found = [f for f in idx.findings if f.code == "merge-ambiguous"]
    line = text.split("\n").index('      "a b c",')
    assert [idx.lines.position(f.start)[0] for f in found] == [line]
    fixes = fixes_for(idx, "merge-ambiguous", found[0].start, found[0].end, found[0].message)
    assert [f.key["pair"] for f in fixes] == [["a b", "c"]]
    fixed = apply_edits(idx.data, fixes[0].resolved_edits()).decode("utf-8")
    assert json.loads(fixed)["model"]["merges"] == pairs
    loaded = Tokenizer.from_str(fixed)
    assert loaded.to_str() == Tokenizer.from_str(pairs_text).to_str()


# ---- a merges file with no vocabulary beside it ---------------------------------------------------


def test_merges_file_alone_says_it_has_no_vocabulary(tmp_path):
    """stats gives no vocabulary size for merges read alone (not 0), check notes that the
    merges were not checked against a vocabulary; with the vocab.json beside them the
    size is the one tokenizers loads and there is no note."""
    from tokenizers import Tokenizer
    from tokenizers.models import BPE

    paired = tmp_path / "paired"
    vocab, merges = trained_bpe(paired)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "merges.txt").write_bytes((paired / "merges.txt").read_bytes())
    code, out, err = run_cli("stats", "--no-unreachable", "--format", "json", str(alone / "merges.txt"))
    assert code == 0 and json.loads(out)[0]["vocab_size"] is None
    code, out, err = run_cli("stats", "--no-unreachable", str(alone / "merges.txt"))
    size_line = next(l for l in out.splitlines() if "vocab size" in l)
    assert "none" in size_line and "vocab.json" in size_line
    code, out, err = run_cli("check", str(alone / "merges.txt"))
    assert code == 0 and "not against a vocabulary" in err
    # with its vocabulary
    loaded = Tokenizer(BPE.from_file(str(paired / "vocab.json"), str(paired / "merges.txt")))
    code, out, err = run_cli("stats", "--no-unreachable", "--format", "json", str(paired / "merges.txt"))
    assert json.loads(out)[0]["vocab_size"] == loaded.get_vocab_size() == len(vocab)
    code, out, err = run_cli("check", str(paired / "merges.txt"))
    assert "not against a vocabulary" not in err


# ---- encode: padding and truncation said; --special as AutoTokenizer reads the folder ----------


def test_encode_says_the_padding_and_truncation_it_applies(tmp_path):
    """tokenizers applies a tokenizer.json's padding and truncation on every encode: the
    ids stay tokenizers' own, and the output says both."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        ["hello world the cat sat on the mat"] * 10,
        trainers.WordPieceTrainer(vocab_size=100, special_tokens=["[UNK]", "[PAD]"], show_progress=False),
    )
    tok.enable_padding(length=16, pad_id=tok.token_to_id("[PAD]"), pad_token="[PAD]")
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    for text in ("hello world", "the cat sat on the mat " * 5):
        if len(text) > 20:  # truncation on, for the long text: both at once
            tok.enable_truncation(max_length=16)
            tok.save(str(path))
        want = Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False)
        pads = list(want.attention_mask).count(0)
        code, out, _ = run_cli("encode", "--format", "json", str(path), text)
        got = json.loads(out)
        assert code == 0 and got["ids"] == want.ids
        notes = " ".join(got.get("notes", []))
        assert (f"padded to {len(want.ids)} by tokenizer.json's padding" in notes) == (pads > 0)
        assert (f"truncated to {len(want.ids)} by tokenizer.json's truncation" in notes) == bool(want.overflowing)
        code, out, _ = run_cli("encode", str(path), text)
        assert all(n in out for n in got.get("notes", []))
    assert pads == 0 and want.overflowing  # the long text: truncated, not padded


def _auto_ids(folder: Path, text: str) -> list[int]:
    """What transformers' AutoTokenizer (the installed release, 5.x) gives for the folder
    with special tokens on, exactly as a user calls it: no arguments beside the folder."""
    import transformers

    assert int(transformers.__version__.split(".")[0]) >= 5, "the rule followed is transformers 5's"
    return transformers.AutoTokenizer.from_pretrained(str(folder))(text).input_ids


@pytest.mark.parametrize(
    "cls,post", [("LlamaTokenizer", False), ("LlamaTokenizerFast", True), ("PreTrainedTokenizerFast", True)]
)
def test_encode_special_follows_the_folder_config(tmp_path, cls, post):
    """A Metaspace (Llama 2) tokenizer.json whose config asks for BOS and EOS: transformers 5
    ignores the config's add_bos_token/add_eos_token when a tokenizer.json is present, so the
    ids are the file's own post-processor's; the note says so, and what transformers 4's
    rebuilding class added instead."""
    from tokenizers import Tokenizer

    from tests.conftest import corpus_file

    obj = json.loads(corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8"))
    if not post:
        obj["post_processor"] = None  # the file adds nothing: only the config says BOS/EOS
    folder = tmp_path / cls
    folder.mkdir()
    (folder / "tokenizer.json").write_text(json.dumps(obj), encoding="utf-8")
    config = {
        "tokenizer_class": cls,
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "add_bos_token": True,
        "add_eos_token": True,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    text = "Hello world"
    want = _auto_ids(folder, text)
    assert want == Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids
    code, out, _ = run_cli("encode", "--special", "--format", "json", str(folder / "tokenizer.json"), text)
    got = json.loads(out)
    assert code == 0 and got["ids"] == want
    note = " ".join(got["notes"])
    assert "tokenizer.json's post-processor, as transformers 5's AutoTokenizer applies it" in note
    assert "ignores tokenizer_config.json's add_bos_token true" in note
    # transformers 4's LlamaTokenizerFast rebuilt it: the note says what that added
    assert ("adds <s> first and </s> last" in note) == cls.startswith("Llama")


def _deepseek_v3_folder(folder: Path, post_processor: dict | None) -> None:
    """A folder shaped as DeepSeek V3's (and R1's) tokenizer: a byte-level BPE tokenizer.json
    whose post-processor adds no BOS, its special tokens as added tokens from id 0, and a
    tokenizer_config.json that says `LlamaTokenizerFast` with `add_bos_token: true` and the
    specials written as AddedToken objects (the file's own layout)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bos, eos = "<\uff5cbegin\u2581of\u2581sentence\uff5c>", "<\uff5cend\u2581of\u2581sentence\uff5c>"
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(
        ["Hello world, hello there. The world says hello."] * 20,
        trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=[bos, eos],
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    obj = json.loads(tok.to_str())
    obj["post_processor"] = post_processor
    (folder / "tokenizer.json").write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")

    def added(content):
        return {
            "__type": "AddedToken",
            "content": content,
            "lstrip": False,
            "normalized": True,
            "rstrip": False,
            "single_word": False,
        }

    config = {
        "add_bos_token": True,
        "add_eos_token": False,
        "bos_token": added(bos),
        "clean_up_tokenization_spaces": False,
        "eos_token": added(eos),
        "legacy": True,
        "model_max_length": 131072,
        "pad_token": added(eos),
        "sp_model_kwargs": {},
        "unk_token": None,
        "tokenizer_class": "LlamaTokenizerFast",
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize(
    "post_processor",
    [
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},  # DeepSeek V3's
        {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {},
        },
        None,
    ],
    ids=["bytelevel", "template", "none"],
)
def test_encode_special_on_a_deepseek_v3_folder_is_transformers_5s(tmp_path, post_processor):
    """Issue 32: `encode --special` gave [BOS, ...] on DeepSeek V3 by transformers 4's rule;
    transformers 5 loads the folder as TokenizersBackend and keeps the file's post-processor."""
    from tokenizers import Tokenizer

    _deepseek_v3_folder(tmp_path, post_processor)
    text = "Hello world"
    want = _auto_ids(tmp_path, text)
    assert want == Tokenizer.from_file(str(tmp_path / "tokenizer.json")).encode(text).ids
    assert 0 not in want  # the BOS (id 0) a transformers 4 rebuild put first is not there
    code, out, _ = run_cli("encode", "--special", "--format", "json", str(tmp_path / "tokenizer.json"), text)
    got = json.loads(out)
    assert code == 0 and got["ids"] == want
    note = " ".join(got["notes"])
    assert "ignores tokenizer_config.json's add_bos_token true, add_eos_token false" in note
    assert (
        "transformers 4's LlamaTokenizerFast rebuilt the post-processor from them and adds "
        "<\uff5cbegin\u2581of\u2581sentence\uff5c> first" in note
    )
    code, out, _ = run_cli("encode", "--special", str(tmp_path / "tokenizer.json"), text)
    assert code == 0 and "as transformers 5's AutoTokenizer applies it" in out


# ---- positions after a lone surrogate ------------------------------------------------------------


@pytest.mark.parametrize("enc", ["utf-16", "utf-32", "utf-8"])
def test_positions_after_a_lone_surrogate_are_the_clients(enc):
    """An editor's text may hold a lone surrogate; the server keeps it as 3 surrogatepass
    bytes. Every character boundary maps to the column the client counts (from the str
    itself), and an offset inside a character to that character's start."""
    from tokenizer_lsp.core.text.lines import LineIndex

    text = "\ud800Ġ t\nxé\ud800y😀\udfff z\n\ud800"
    data = text.encode("utf-8", "surrogatepass")
    lines = LineIndex(data)

    def units(s: str) -> int:
        if enc == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) if enc == "utf-32" else len(s.encode("utf-16-le", "surrogatepass")) // 2

    offsets, want = [], []
    for i in range(len(text) + 1):
        line = text.count("\n", 0, i)
        start = text.rfind("\n", 0, i) + 1
        offsets.append(len(text[:i].encode("utf-8", "surrogatepass")))
        want.append((line, units(text[start:i])))
    assert [lines.position(o, enc) for o in offsets] == want
    assert lines.positions(offsets, enc) == want
    assert [lines.offset(l, c, enc) for l, c in want] == offsets
    # one byte into the first lone surrogate: its start, also counted on from there
    assert lines.positions([1, offsets[3]], enc) == [(0, 0), want[3]]
