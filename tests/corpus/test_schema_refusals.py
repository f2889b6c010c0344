"""`schema`: valid JSON that HF `tokenizers` refuses to load. Every case here is loaded with
`tokenizers.Tokenizer.from_str` first: it must raise (or, for the valid variants, load);
then our check must report `schema` on the line of the offending entry (and nothing on
the valid variants, nor on any real file of the corpus)."""

import copy
import json

import pytest
import tokenizers  # a dependency of the package: a broken install fails, never skips
from tokenizer_lsp.core.index.build import build_index

from tests.conftest import corpus_file

ADDED = {
    "id": 3,
    "content": "<s>",
    "single_word": False,
    "lstrip": False,
    "rstrip": False,
    "normalized": False,
    "special": True,
}
BASE = {
    "version": "1.0",
    "truncation": None,
    "padding": None,
    "added_tokens": [ADDED],
    "normalizer": {
        "type": "Sequence",
        "normalizers": [{"type": "NFC"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}],
    },
    "pre_tokenizer": {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    },
    "post_processor": {
        "type": "TemplateProcessing",
        "single": [{"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {},
    },
    "decoder": {
        "type": "Sequence",
        "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ],
    },
    "model": {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": {"a": 0, "b": 1, "ab": 2, "<s>": 3},
        "merges": [["a", "b"]],
    },
}


def _set(path, value):
    def change(obj):
        node = obj
        for step in path[:-1]:
            node = node[step]
        if value is _DROP:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return change


_DROP = object()

# (what is wrong, change, text on the line our finding must be on)
REFUSED = [
    ("vocab id a string", _set(("model", "vocab", "b"), "1"), '"b": "1"'),
    ("vocab id a float", _set(("model", "vocab", "b"), 1.5), '"b": 1.5'),
    ("vocab id negative", _set(("model", "vocab", "b"), -1), '"b": -1'),
    ("vocab id a bool", _set(("model", "vocab", "b"), True), '"b": true'),
    ("added id a string", _set(("added_tokens", 0, "id"), "3"), '"id": "3"'),
    ("added id negative", _set(("added_tokens", 0, "id"), -3), '"id": -3'),
    ("added id a bool", _set(("added_tokens", 0, "id"), False), '"id": false'),
    ("added token without content", _set(("added_tokens", 0, "content"), _DROP), '"id": 3'),
    ("added token without id", _set(("added_tokens", 0, "id"), _DROP), '"content": "<s>"'),
    ("added flag not a bool", _set(("added_tokens", 0, "special"), "yes"), '"special": "yes"'),
    ("added token without a flag", _set(("added_tokens", 0, "single_word"), _DROP), '"content": "<s>"'),
    ("added_tokens not a list", _set(("added_tokens",), {"a": 1}), '"added_tokens"'),
    ("unknown model type", _set(("model", "type"), "Bpe"), '"type": "Bpe"'),
    ("unknown normalizer type", _set(("normalizer", "normalizers", 0, "type"), "NFX"), '"type": "NFX"'),
    ("unknown pre-tokenizer type", _set(("pre_tokenizer", "type"), "Whitespaces"), '"type": "Whitespaces"'),
    (
        "unknown nested pre-tokenizer",
        _set(("pre_tokenizer", "pretokenizers", 1, "type"), "Bytelevel"),
        '"type": "Bytelevel"',
    ),
    ("unknown post-processor type", _set(("post_processor",), {"type": "Template"}), '"type": "Template"'),
    (
        "unknown type and the fields of none",
        _set(("decoder", "decoders", 1, "type"), "Bytefallback"),
        '"type": "Bytefallback"',
    ),
    ("unknown decoder type", _set(("decoder", "decoders", 2, "type"), "Fused"), '"type": "Fused"'),
    ("merges not a list", _set(("model", "merges"), "a b"), '"merges": "a b"'),
    ("BPE without merges", _set(("model", "merges"), _DROP), '"model"'),
    ("merge a number", _set(("model", "merges", 0), 7), "7"),
    ("merge of three", _set(("model", "merges", 0), ["a", "b", "c"]), '"c"'),
    ("merge pair with a number", _set(("model", "merges", 0), ["a", 5]), "5"),
    ("merge string in a list of pairs", lambda o: o["model"]["merges"].append("a b"), '"a b"'),
    (
        "ByteLevel without add_prefix_space",
        _set(("pre_tokenizer", "pretokenizers", 1, "add_prefix_space"), _DROP),
        '"type": "ByteLevel"',
    ),
    ("Split without invert", _set(("pre_tokenizer", "pretokenizers", 0, "invert"), _DROP), '"type": "Split"'),
    (
        "Replace normalizer without content",
        _set(("normalizer", "normalizers", 1, "content"), _DROP),
        '"type": "Replace"',
    ),
    ("template without special_tokens", _set(("post_processor", "special_tokens"), _DROP), '"post_processor"'),
    (
        "WordPiece without unk_token",
        lambda o: o.__setitem__(
            "model",
            {
                "type": "WordPiece",
                "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"a": 0},
            },
        ),
        '"model"',
    ),
    ("flag of the wrong type", _set(("model", "byte_fallback"), "no"), '"byte_fallback": "no"'),
    ("dropout out of range", _set(("model", "dropout"), 1.5), '"dropout": 1.5'),
    ("unk_token not a string", _set(("model", "unk_token"), 0), '"unk_token": 0'),
    ("pattern not an object", _set(("normalizer", "normalizers", 1, "pattern"), " "), '"pattern": " "'),
    ("behavior unknown", _set(("pre_tokenizer", "pretokenizers", 0, "behavior"), "Split"), '"behavior": "Split"'),
    (
        "ByteLevel flag not a bool",
        _set(("pre_tokenizer", "pretokenizers", 1, "add_prefix_space"), 1),
        '"add_prefix_space": 1',
    ),
    ("Strip start negative", _set(("decoder", "decoders", 3, "start"), -1), '"start": -1'),
    ("Strip content two characters", _set(("decoder", "decoders", 3, "content"), "  "), '"content": "  "'),
    ("Sequence items not a list", _set(("decoder", "decoders"), {"type": "Fuse"}), '"decoders"'),
    ("template single not a list", _set(("post_processor", "single"), "$A"), '"single": "$A"'),
    ("truncation not an object", _set(("truncation",), "none"), '"truncation": "none"'),
    ("version unknown", _set(("version",), "2.0"), '"version": "2.0"'),
    ("unknown top-level key", _set(("extra",), 1), '"extra": 1'),
    (
        "Unigram row of one element",
        lambda o: o.__setitem__("model", {"type": "Unigram", "unk_id": 0, "vocab": [["a", 0.0], ["b"]]}),
        '"b"',
    ),
    (
        "Unigram score a string",
        lambda o: o.__setitem__("model", {"type": "Unigram", "unk_id": 0, "vocab": [["a", 0.0], ["b", "x"]]}),
        '"x"',
    ),
]

ACCEPTED = [
    ("as written", lambda o: None),
    ("model without type (inferred)", _set(("model", "type"), _DROP)),
    ("BPE flags null", lambda o: o["model"].update(fuse_unk=None, byte_fallback=None, ignore_merges=None)),
    ("optional fields left out", lambda o: [o["model"].pop(k) for k in ("dropout", "unk_token", "fuse_unk")]),
    ("dropout 1", _set(("model", "dropout"), 1)),
    ("top-level sections left out", lambda o: [o.pop(k) for k in ("version", "truncation", "normalizer", "decoder")]),
    (
        "RobertaProcessing flags of any kind",
        _set(
            ("post_processor",),
            {"type": "RobertaProcessing", "sep": ["b", 1], "cls": ["a", 0], "trim_offsets": "x", "add_prefix_space": 1},
        ),
    ),
    ("string merges", _set(("model", "merges"), ["a b"])),
    ("unknown type with the fields of a known one", _set(("post_processor", "type"), "Template")),
    ("unknown decoder type shaped as Strip", _set(("decoder", "decoders", 3, "type"), "Stripper")),
    ("unknown decoder type shaped as Replace", _set(("decoder", "decoders", 0, "type"), "Replaces")),
    ("Metaspace split null", _set(("pre_tokenizer",), {"type": "Metaspace", "replacement": "▁", "split": None})),
    (
        "Unigram unk_id null",
        lambda o: o.__setitem__("model", {"type": "Unigram", "unk_id": None, "vocab": [["a", 0.0]]}),
    ),
]


def _text(change) -> str:
    obj = copy.deepcopy(BASE)
    change(obj)
    return json.dumps(obj, indent=2, ensure_ascii=False)


def _schema_lines(text: str) -> list[tuple[int, int]]:
    """(first line, last line) of each schema finding."""
    idx = build_index(text.encode("utf-8"), "tokenizer.json")
    return [(idx.lines.position(f.start)[0], idx.lines.position(f.end)[0]) for f in idx.findings if f.code == "schema"]


def _refused(text: str) -> bool:
    try:
        tokenizers.Tokenizer.from_str(text)
    except BaseException:  # noqa: BLE001 (some refusals are a pyo3 PanicException, not an Exception)
        return True
    return False


def _line_of(text: str, needle: str) -> int:
    lines = text.split("\n")
    return next(
        i
        for i, line in enumerate(lines)
        if needle in line.strip() and (needle != "7" and needle != "5" or line.strip().rstrip(",") == needle)
    )


@pytest.mark.parametrize("what,change,needle", REFUSED, ids=[c[0] for c in REFUSED])
def test_tokenizers_refuses_and_we_say_schema_there(what, change, needle):
    text = _text(change)
    assert _refused(text), f"{what}: tokenizers loads it"
    lines = _schema_lines(text)
    assert lines, f"{what}: no schema finding"
    line = _line_of(text, needle)
    # on the entry: its own line for a value, an added token's object from `{` to `}`
    assert any(a <= line <= b and b - a <= 8 for a, b in lines), f"{what}: schema on lines {lines}, not {line}"


@pytest.mark.parametrize("what,change", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_tokenizers_loads_and_we_say_nothing(what, change):
    text = _text(change)
    tokenizers.Tokenizer.from_str(text)
    assert _schema_lines(text) == []


def test_merges_naming_an_entry_with_a_bad_id_are_not_also_unknown():
    text = _text(_set(("model", "vocab", "b"), "1"))
    idx = build_index(text.encode("utf-8"), "tokenizer.json")
    assert [f.code for f in idx.findings] == ["schema"]


@pytest.mark.parametrize(
    "rel",
    [
        "qwen3/tokenizer.json",
        "llama3/tokenizer.json",
        "llama2/tokenizer.json",
        "gemma3/tokenizer.json",
        "all-minilm-l6-v2/tokenizer.json",
    ],
)
def test_no_schema_finding_on_real_files(rel):
    path = corpus_file(rel)
    idx = build_index(path.read_bytes(), str(path))
    assert [f.message for f in idx.findings if f.code == "schema"] == []


def test_ambiguous_string_merge_in_a_literal_vocabulary():
    """llama2 (SentencePiece-style, string merges) with tokens that hold a raw space: the
    merge "x y z" splits as x + "y z" and as "x y" + z. tokenizers refuses any string
    merge with more than one space (it does not pick the first)."""
    obj = json.loads(corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8"))
    vocab = obj["model"]["vocab"]
    for token in ("x y", "y z", "xy z", "x yz"):
        vocab[token] = len(vocab)
    obj["model"]["merges"].insert(100, "x y z")
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    with pytest.raises(Exception, match="Merges text file invalid"):
        tokenizers.Tokenizer.from_str(text)
    idx = build_index(text.encode("utf-8"), "tokenizer.json")
    got = [(f.code, idx.lines.position(f.start)[0], f.message) for f in idx.findings if f.code.startswith("merge")]
    line = text.split("\n").index('      "x y z",')
    assert ("merge-ambiguous", line) in [(c, n) for c, n, _ in got]
    message = next(m for c, _, m in got if c == "merge-ambiguous")
    assert "`x` + `y z`" in message and "`x y` + `z`" in message and "refuses" in message
    # one reading only (no "y z" token): still a part holding a space, which only the pair
    # form can write (merge-ambiguous, its fix the conversion), and malformed for tokenizers
    del obj["model"]["vocab"]["y z"]
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    idx = build_index(text.encode("utf-8"), "tokenizer.json")
    message = next(f.message for f in idx.findings if f.code == "merge-ambiguous")
    assert "`x y` + `z`" in message and "`y z`" not in message
    assert "merge-malformed" in [f.code for f in idx.findings]


def test_byte_level_vocabularies_have_no_ambiguous_merges():
    obj = copy.deepcopy(BASE)
    obj["model"]["vocab"].update({"a b": 4, "b c": 5, "c": 6})
    obj["model"]["merges"] = ["a b c"]
    obj["decoder"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    idx = build_index(json.dumps(obj).encode(), "tokenizer.json")
    assert "merge-ambiguous" not in [f.code for f in idx.findings]
