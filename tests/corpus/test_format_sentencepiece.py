"""SentencePiece `.model` files: what the plug-in reads equals what sentencepiece itself
reads (its engine, SentencePieceProcessor, and its own model definition,
sentencepiece_model_pb2), on real models and on tiny models trained here; each new check
fires on a model edited to trigger it; bad bytes get one line and exit 2."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import sentencepiece as spm  # a third-party engine, not our code
from sentencepiece import sentencepiece_model_pb2 as pb2  # needs protobuf
from tokenizer_lsp.core.formats.registry import sniff_path  # noqa: E402
from tokenizer_lsp.core.formats.sentencepiece import PLUGIN  # noqa: E402

from tests.conftest import CORPUS

DATA = Path(__file__).parent.parent / "data" / "sentencepiece"
TYPE_NAMES = {1: "NORMAL", 2: "UNKNOWN", 3: "CONTROL", 4: "USER_DEFINED", 5: "UNUSED", 6: "BYTE"}
TEXTS = [
    "Hello world",
    "  two  spaces and a\ttab\n",
    "naïve café, 東京タワー 123456 👋🏽",
    "<s>[INST] not special in text [/INST]</s>",
    "",
    "ｱｲｳ ＡＢＣ ﬁ",
]


def real_models() -> list[Path]:
    found = sorted(DATA.glob("*.model"))
    corpus = CORPUS / "mistral-spm"
    if corpus.is_dir():
        found += sorted(corpus.glob("*.model*"))
    spec = importlib.util.find_spec("mistral_common")
    if spec is not None and spec.submodule_search_locations:
        data = Path(next(iter(spec.submodule_search_locations))) / "data"
        found += sorted(p for p in data.glob("*.model*"))
    return found


REAL = real_models()


def cli(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
    )


def proto_of(path: Path):
    m = pb2.ModelProto()
    m.ParseFromString(path.read_bytes())
    return m


# ---- real models ------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_rows_and_settings_equal_sentencepiece(path):
    table = PLUGIN.read(str(path))
    proto = proto_of(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    assert len(table.rows) == len(proto.pieces) == sp.get_piece_size()
    for row, piece in zip(table.rows, proto.pieces):
        assert row.token == piece.piece == sp.id_to_piece(row.id)
        assert row.score == pytest.approx(piece.score, abs=0) and row.score == pytest.approx(sp.get_score(row.id))
        assert row.type == TYPE_NAMES[piece.type]
    ts, ns = proto.trainer_spec, proto.normalizer_spec
    m = table.meta
    assert m["model_type"] == pb2.TrainerSpec.ModelType.Name(ts.model_type)
    assert m["byte_fallback"] == ts.byte_fallback
    assert (m["unk_id"], m["bos_id"], m["eos_id"], m["pad_id"]) == (ts.unk_id, ts.bos_id, ts.eos_id, ts.pad_id)
    assert (sp.unk_id(), sp.bos_id(), sp.eos_id()) == (ts.unk_id, ts.bos_id, ts.eos_id)
    assert m["normalizer_name"] == ns.name and m["add_dummy_prefix"] == ns.add_dummy_prefix
    assert m["remove_extra_whitespaces"] == ns.remove_extra_whitespaces


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_sniffed_by_content_whatever_the_name(path, tmp_path):
    renamed = tmp_path / "weights.bin"
    renamed.write_bytes(path.read_bytes())
    assert sniff_path(str(renamed)) is PLUGIN


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_encode_equals_the_engine(path):
    sp = spm.SentencePieceProcessor(model_file=str(path))
    table = PLUGIN.read(str(path))
    for text in TEXTS:
        assert PLUGIN.encode(table, text, False, None) == sp.encode(text)
        assert PLUGIN.encode(table, text, True, None) == sp.encode(text, add_bos=True)
        spans = PLUGIN.encode_spans(table, text, False, None)
        starts = [s for _, s, _ in spans]
        assert starts == sorted(starts) and all(0 <= s <= e <= len(text) for _, s, e in spans)


def test_cli_decode_encode_stats_on_the_corpus_model():
    path = next((p for p in REAL if p.parent.name == "mistral-spm"), None)
    if path is None:
        pytest.skip("the corpus's mistral-spm model is absent (set TOKENIZER_CORPUS)")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    proto = proto_of(path)
    p = cli("decode", "--format", "jsonl", path)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.split("\n") if line]  # U+2028 is inside a token
    assert [r["id"] for r in rows] == list(range(sp.get_piece_size()))
    for r, piece in zip(rows, proto.pieces):
        assert r["token"] == piece.piece and r["type"] == TYPE_NAMES[piece.type] and r["score"] == piece.score
        if piece.type == 6:  # BYTE: <0xNN> is that byte
            assert bytes.fromhex(r["bytes"]) == bytes([int(piece.piece[3:5], 16)]) and r["kind"] == "byte-fallback"
        else:
            assert bytes.fromhex(r["bytes"]) == piece.piece.replace("\u2581", " ").encode()
    text = "Mistral's tokenizer: naïve café 👋"
    for special in (False, True):
        p = cli("encode", "--format", "json", *(["--special"] if special else []), path, text)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["ids"] == sp.encode(text, add_bos=special)
    p = cli("stats", "--format", "json", path)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)[0]
    assert s["vocab_size"] == sp.get_piece_size()
    assert s["piece_types"] == dict(Counter(TYPE_NAMES[x.type] for x in proto.pieces))
    # fragments: the byte pieces whose single byte is not UTF-8 (0x80..0xFF)
    assert s["fragments"] == sum(1 for x in proto.pieces if x.type == 6 and int(x.piece[3:5], 16) >= 0x80)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_no_error_or_warning_on_a_real_model(path):
    p = cli("check", "--format", "json", path)
    assert p.returncode == 0, p.stderr
    found = json.loads(p.stdout)
    assert [f for f in found if f["severity"] in ("error", "warning")] == []
    assert all(f["range"] is None and "id" in f or "key" in f for f in found)


# ---- synthetic models trained here ------------------------------------------------------

SENTENCES = [
    "the quick brown fox jumps over the lazy dog",
    "a tokenizer turns text into pieces and pieces into ids",
    "sentencepiece treats the input as a raw stream of unicode characters",
    "byte fallback spells unknown characters as their utf-8 bytes",
    "language servers answer hovers while the user types",
] * 40


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Two tiny models: a BPE one with byte_fallback and a Unigram one."""
    d = tmp_path_factory.mktemp("spm")
    corpus = d / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    out = {}
    for kind, size, fallback in (("bpe", 320, True), ("unigram", 120, False)):
        prefix = d / kind
        spm.SentencePieceTrainer.train(
            input=str(corpus),
            model_prefix=str(prefix),
            vocab_size=size,
            model_type=kind,
            byte_fallback=fallback,
            minloglevel=2,
            hard_vocab_limit=False,
        )
        out[kind] = Path(f"{prefix}.model")
    return out


def edited(src: Path, dst: Path, edit) -> Path:
    m = proto_of(src)
    edit(m)
    dst.write_bytes(m.SerializeToString())
    return dst


def codes(path: Path) -> list[dict]:
    p = cli("check", "--format", "json", path)
    assert "Traceback" not in p.stderr
    return json.loads(p.stdout)


NEW_CODES = {"spm-byte-pieces", "special-id", "duplicate-token"}


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
def test_an_untouched_trained_model_gets_none_of_the_new_codes(trained, kind):
    found = codes(trained[kind])
    assert not [f for f in found if f["code"] in NEW_CODES or f["severity"] in ("error", "warning")]


def test_missing_byte_pieces(trained, tmp_path):
    dropped = ["<0x41>", "<0xC3>", "<0xFF>"]

    def drop(m):
        keep = [p for p in m.pieces if p.piece not in dropped]
        del m.pieces[:]
        m.pieces.extend(keep)

    path = edited(trained["bpe"], tmp_path / "few_bytes.model", drop)
    found = [f for f in codes(path) if f["code"] == "spm-byte-pieces"]
    assert len(found) == 1 and found[0]["severity"] == "error" and found[0]["range"] is None
    assert f"{len(dropped)} of the 256" in found[0]["message"] and found[0]["key"] == "trainer_spec.byte_fallback"
    p = cli("check", path)
    assert p.returncode == 1 and f"{path}:trainer_spec.byte_fallback: error spm-byte-pieces" in p.stdout


def test_special_ids_of_the_wrong_type_or_out_of_range(trained, tmp_path):
    proto = proto_of(trained["bpe"])
    normal = next(i for i, p in enumerate(proto.pieces) if p.type == 1)

    def edit(m):
        m.trainer_spec.bos_id = normal
        m.trainer_spec.pad_id = len(m.pieces) + 5

    found = [f for f in codes(edited(trained["bpe"], tmp_path / "ids.model", edit)) if f["code"] == "special-id"]
    assert {f["key"] for f in found} == {"trainer_spec.bos_id", "trainer_spec.pad_id"}
    bos = next(f for f in found if f["key"] == "trainer_spec.bos_id")
    assert bos["id"] == normal and "NORMAL" in bos["message"]


def test_duplicate_piece(trained, tmp_path):
    proto = proto_of(trained["unigram"])
    twice = next(p.piece for p in proto.pieces if p.type == 1)

    def edit(m):
        extra = m.pieces.add()
        extra.piece, extra.score = twice, -50.0

    path = edited(trained["unigram"], tmp_path / "dup.model", edit)
    with pytest.raises(Exception):  # noqa: B017 - the engine refuses it: that is why it is an error
        spm.SentencePieceProcessor(model_file=str(path))
    found = [f for f in codes(path) if f["code"] == "duplicate-token"]
    assert [f["id"] for f in found] == [len(proto.pieces)]


def test_unreachable_piece_is_one_the_engine_never_gives(trained, tmp_path):
    def edit(m):
        extra = m.pieces.add()
        extra.piece, extra.score = "\u2581thequick", -1e6  # Viterbi always prefers the parts

    path = edited(trained["unigram"], tmp_path / "unreachable.model", edit)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    planted = sp.piece_to_id("\u2581thequick")
    assert sp.encode("thequick") != [planted]
    found = [f for f in codes(path) if f["code"] == "unreachable-token"]
    assert planted in {f["id"] for f in found}
    for f in found:  # each one the engine agrees with
        piece = sp.id_to_piece(f["id"])
        text = piece.replace("\u2581", " ")
        assert sp.encode(text[1:] if piece.startswith("\u2581") else text) != [f["id"]]
    p = cli("check", "--severity", "unreachable-token=off", "--format", "json", path)
    assert not [f for f in json.loads(p.stdout) if f["code"] == "unreachable-token"]


# ---- untrusted bytes --------------------------------------------------------------------


def bad_inputs(model: Path) -> dict[str, bytes]:
    data = model.read_bytes()
    proto = proto_of(model)
    head = pb2.ModelProto()
    head.pieces.extend(proto.pieces[:10])
    inside = len(head.SerializeToString()) + 3  # inside the 11th piece
    rng = random.Random(25)
    return {
        "random": bytes(rng.randrange(256) for _ in range(4096)),
        "random-after-a-piece": data[: inside - 3] + bytes(rng.randrange(256) for _ in range(512)),
        "cut": data[:inside],
        "lying-length": b"\x0a\xff\xff\xff\xff\x0f" + data[6:200],
        "lying-piece": b"\x0a\x08\x0a\x7fabc\x15\x00\x00",
        "empty": b"",
    }


@pytest.mark.parametrize("case", ["random", "random-after-a-piece", "cut", "lying-length", "lying-piece", "empty"])
def test_bad_bytes_get_one_line_and_exit_2(trained, tmp_path, case):
    path = tmp_path / "tokenizer.model"
    path.write_bytes(bad_inputs(trained["bpe"])[case])
    for command in ("check", "decode", "stats", "encode"):
        p = cli(command, path, *(["text"] if command == "encode" else []))
        assert p.returncode == 2, (command, p.stdout[:200])
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert str(path) in p.stderr


def test_mutated_models_read_or_fail_with_one_format_error():
    """Flipped, cut and inserted bytes anywhere in a real model: the reader gives a table or
    a FormatError, never another exception (the CLI turns FormatError into one line)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from tokenizer_lsp.core.formats.table import FormatError

    data = (DATA / "botchan_en_bpe_1000.model").read_bytes()

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(
        st.lists(
            st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255), st.sampled_from("fci")),
            min_size=1,
            max_size=4,
        )
    )
    def mutated(edits):
        buf = bytearray(data)
        for at, value, how in edits:
            at = min(at, len(buf) - 1)
            if how == "f":
                buf[at] = value
            elif how == "c":
                del buf[at:]
                if not buf:
                    buf = bytearray(b"\x0a")
            else:
                buf[at:at] = bytes([value])
        try:
            table = PLUGIN.read_bytes(bytes(buf))
        except FormatError as e:
            assert str(e) and "\n" not in str(e)
        else:
            assert all(r.id == k for k, r in enumerate(table.rows))

    mutated()
