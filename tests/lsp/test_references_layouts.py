"""References on small files written here, through the merge-layout fast path and the
general path, against positions computed from the text alone (test_references_fast.py has
the helpers and the real files): CRLF, escapes, tabs, irregular indentation, two spellings
of a token, random layouts; JSON's shortest spellings; far-apart spans placed by line; the JSON the
server writes, byte for byte the general path's; a real LSP session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient
from tokenizer_lsp.core.formats.json.merge_layout import RangeRun, shortest_literal
from tokenizer_lsp.core.navigation.queries import reference_ranges
from tokenizer_lsp.core.text import lines as lines_module
from tokenizer_lsp.core.text.lines import LineIndex

from tests.lsp.harness import shared_navigation_client as client  # noqa: F401 (one server for the module, as the navigation tests')
from tests.lsp.test_references_fast import (
    ENCODINGS,
    STRING,
    Expected,
    check,
    indexed,
    json_both_ways,
    nav_of,
)

# never reads unreachable-token findings: each file's set computed once a run (conftest.py)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

# ---- small files written here -----------------------------------------------------------

BASE = ["a", "b", "▁", '"', "\\", "\n", "\t", "é", "😀", "/", "\x01", "ü"]


def _tokenizer(strings: bool) -> dict:
    vocab: dict[str, int] = {}
    for t in BASE:
        vocab.setdefault(t, len(vocab))
    merges = []
    for x in BASE:
        for y in BASE:
            merges.append([x, y])
            vocab.setdefault(x + y, len(vocab))
    # more merges producing tokens already made (as converted files list every split),
    # a merge of a token with itself, and longer parts
    for x, y in (["▁a", "b"], ["▁", "ab"], ["é\n", "é\n"], ["▁a", "▁a"], ["😀", "😀a"], ["a", "a"]):
        vocab.setdefault(y, len(vocab))
        vocab.setdefault(x, len(vocab))
        vocab.setdefault(x + y, len(vocab))
        merges.append([x, y])
    added = [
        {"id": vocab["▁a"], "content": "▁a", "special": False},
        {"id": len(vocab), "content": "<x>", "special": True},
    ]
    model = {"type": "BPE", "vocab": vocab, "merges": [f"{x} {y}" for x, y in merges] if strings else merges}
    return {"version": "1.0", "added_tokens": added, "model": model}


def _rewrite_literals(text: str, pick) -> str:
    """The merges' literals, each replaced by pick(index, literal) (None: kept)."""
    start = text.index("[", text.index('"merges"'))
    out, at = [], 0
    for k, m in enumerate(STRING.finditer(text, start)):
        new = pick(k, m.group(0))
        if new is not None:
            out += [text[at : m.start()], new]
            at = m.end()
    return "".join(out) + text[at:]


def _respell(k: int, literal: str) -> str | None:
    """Longer spellings of some literals: `\\u2581` for `▁`, `\\/`, `\\u00e9`, `\\u000a`."""
    if k % 3:
        return None
    if literal == '"▁"':
        return '"\\u2581"'
    if literal == '"/"':
        return '"\\/"'
    if literal == '"é\\n"':  # two spellings of one length and different widths
        return '"é\\u000a"' if k % 2 else '"\\u00e9\\n"'
    return None


def _variants() -> dict[str, tuple[str, bool | None]]:
    """name: (text, whether the layout is verified: None when the case does not say)."""
    pairs = json.dumps(_tokenizer(False), ensure_ascii=False, indent=2)
    strings = json.dumps(_tokenizer(True), ensure_ascii=False, indent=2)
    out = {
        "pairs": (pairs, True),
        "strings": (strings, True),
        "pairs crlf": (pairs.replace("\n", "\r\n"), True),
        "strings crlf": (strings.replace("\n", "\r\n"), True),
        "pairs tabs": (json.dumps(_tokenizer(False), ensure_ascii=False, indent="\t"), True),
        "pairs indent 4": (json.dumps(_tokenizer(False), ensure_ascii=False, indent=4), True),
        "pairs all escaped": (json.dumps(_tokenizer(False), indent=2), True),
        "strings all escaped": (json.dumps(_tokenizer(True), indent=2), True),
        "pairs respelled": (_rewrite_literals(pairs, _respell), True),
        "strings respelled": (
            _rewrite_literals(strings, lambda k, lit: '"\\u2581 a"' if lit == '"▁ a"' else None),
            True,
        ),
        "strings escaped separator": (
            _rewrite_literals(strings, lambda k, lit: '"a\\u0020b"' if lit == '"a b"' else None),
            True,
        ),
        "one line": (json.dumps(_tokenizer(False), ensure_ascii=False), False),
        "strings one line": (json.dumps(_tokenizer(True), ensure_ascii=False), False),
    }
    merges_at = pairs.index('"merges"')
    at = pairs.index("        ", pairs.index("],\n", merges_at) + 3)  # a part's indentation
    out["pairs one line indented deeper"] = (pairs[:at] + " " + pairs[at:], False)
    at = pairs.index("],\n", merges_at + 5000)
    out["pairs lone cr"] = (pairs[:at] + "],\r" + pairs[at + 3 :], False)
    out["pairs one crlf"] = (pairs[:at] + "],\r\n" + pairs[at + 3 :], False)
    out["pairs blank line"] = (pairs[:at] + "],\n\n" + pairs[at + 3 :], False)
    at = strings.index(",\n", strings.index('"merges"') + 500)
    out["strings two on a line"] = (strings[:at] + ", " + strings[at + 2 :].lstrip(" "), False)
    out["strings indented apart"] = (strings[:at] + ",\n " + strings[at + 2 :], False)
    return out


VARIANTS = _variants()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_small_files_fast_and_general_paths_agree_with_the_text(name):
    text, regular = VARIANTS[name]
    idx, expected = indexed(text.encode("utf-8")), Expected(text)
    assert json.loads(text) == json.loads(VARIANTS["strings" if "strings" in name else "pairs"][0])  # same tokenizer
    assert (nav_of(idx).merge_layout is not None) == regular
    for token in expected.keys:
        check(idx, expected, token, decl=True)
    check(idx, expected, "▁a", decl=False)  # an added token too


def test_which_path_answers_the_small_files():
    """Regular layouts answer from the layout, whatever the spelling (pairs: each literal
    its own width); an escaped separator in a string merge sends it to the general path."""

    def answers_fast(name: str, token: str) -> bool:
        idx = indexed(VARIANTS[name][0].encode("utf-8"))
        return any(isinstance(i, RangeRun) for i in reference_ranges(idx, nav_of(idx), token, True, "utf-16"))

    assert (
        answers_fast("pairs", "▁") and answers_fast("pairs respelled", "▁") and answers_fast("pairs respelled", "é\n")
    )
    assert answers_fast("pairs all escaped", "😀") and answers_fast("pairs crlf", '"')
    assert answers_fast("strings", "▁") and not answers_fast("strings respelled", "▁")
    assert not answers_fast("strings escaped separator", "a") and answers_fast("strings escaped separator", "é")
    assert not answers_fast("pairs lone cr", "a") and not answers_fast("one line", "a")


def _spelled(text: str, longer: int | None) -> str:
    """A JSON literal of text, the character at `longer` written as \\u escapes."""
    out = []
    for i, ch in enumerate(text):
        if i == longer:  # one escape per UTF-16 unit (two for an emoji)
            units = ch.encode("utf-16-be")
            out.append("".join(f"\\u{int.from_bytes(units[k : k + 2], 'big'):04x}" for k in range(0, len(units), 2)))
        else:
            out.append(json.dumps(ch, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "b", "▁", '"', "\\", "\n", "\t", "é", "😀", "/", "\x01", " ", "ü"]),
        min_size=2,
        max_size=6,
        unique=True,
    ),
    st.data(),
)
def test_random_small_files_in_random_layouts(base, data):
    """Tokens and merges drawn at random, written as pairs or strings, indented or on one
    line, with CRLF or not, some literals spelled longer: both paths agree with the text."""
    vocab = {t: i for i, t in enumerate(base)}
    merges = []
    for _ in range(data.draw(st.integers(1, 25))):
        a, b = data.draw(st.sampled_from(list(vocab))), data.draw(st.sampled_from(list(vocab)))
        merges.append([a, b])
        vocab.setdefault(a + b, len(vocab))
    strings = data.draw(st.booleans())
    obj = {"model": {"type": "BPE", "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges] if strings else merges}}
    text = json.dumps(obj, ensure_ascii=False, indent=data.draw(st.sampled_from([None, 2, 4, "\t"])))
    respell = data.draw(st.sets(st.integers(0, 2 * len(merges) - 1), max_size=4))

    def pick(k: int, literal: str) -> str | None:
        if k not in respell:
            return None
        value = json.loads(literal)
        return _spelled(value, data.draw(st.integers(0, len(value) - 1))) if value else None

    text = _rewrite_literals(text, pick)
    if data.draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    assert json.loads(text) == obj
    idx, expected = indexed(text.encode("utf-8")), Expected(text)
    encoding = data.draw(st.sampled_from(ENCODINGS))
    event("strings" if strings else "pairs", "layout verified" if nav_of(idx).merge_layout else "no layout")
    for token in vocab:
        check(idx, expected, token, (encoding,))
    fast = any(isinstance(i, RangeRun) for t in vocab for i in reference_ranges(idx, nav_of(idx), t, True, encoding))
    event("some answered from the layout" if fast else "all answered from spans")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_shortest_literal_is_what_json_writes(token):
    """json.dumps spells every character the shortest way (raw, or \\" \\\\ \\n..., or
    \\u00XX for other controls); a lone surrogate has no UTF-8 literal at all."""
    try:
        want = json.dumps(token, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        want = None
    assert shortest_literal(token) == want


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "Ġ", "▁", "é", "😀", "\n", "\r\n", '"', " "]), max_size=200),
    st.sampled_from(ENCODINGS),
    st.data(),
)
def test_span_positions_placing_far_spans_by_line(parts, encoding, data):
    """span_positions places a span far from the previous one by its line (not by counting
    the breaks between them): with the distance made tiny, every span takes that branch."""
    text = "".join(parts).encode("utf-8")
    idx = LineIndex(text)
    bounds = [i for i in range(len(text) + 1) if i == len(text) or not 0x80 <= text[i] < 0xC0]
    spans = sorted(data.draw(st.lists(st.tuples(st.sampled_from(bounds), st.sampled_from(bounds)), max_size=30)))
    spans = [(min(a, b), max(a, b)) for a, b in spans]
    spans.sort()
    expected = [(idx.position(s, encoding), idx.position(e, encoding)) for s, e in spans]
    old = lines_module._JUMP
    try:
        for jump in (0, 3, old):
            lines_module._JUMP = jump
            assert idx.span_positions(spans, encoding) == expected
    finally:
        lines_module._JUMP = old


# ---- the JSON the server writes -----------------------------------------------------------


def test_the_json_is_byte_for_byte_the_general_paths():
    """gemma3's: test_references_fast.py (where its index is built, once a run)."""
    uri = "file:///models/my%20model%25/tokenizer.json"  # a `%` in it stays as written
    for name in ("pairs respelled", "strings", "strings crlf", "pairs lone cr"):
        idx = indexed(VARIANTS[name][0].encode("utf-8"))
        for token in ("▁", "é\n", "a", "😀", "<x>"):
            for encoding in ENCODINGS:
                fast, general = json_both_ways(idx, token, uri, encoding)
                assert fast == general, (name, token, encoding)


# ---- over LSP ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["pairs respelled", "strings crlf", "pairs lone cr"])
async def test_references_over_lsp_in_a_folder_whose_uri_has_percent_signs(
    client: LanguageClient, tmp_path: Path, name
):  # noqa: F811
    """The uri goes into a template once: a `%20` in it must come out as written."""
    text = VARIANTS[name][0]
    path = tmp_path / "my model 100%" / "tokenizer.json"
    path.parent.mkdir()
    path.write_bytes(text.encode("utf-8"))
    uri = path.as_uri()
    assert "%20" in uri and "%25" in uri
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    expected = Expected(text)
    for token in ("▁", "é\n", "a"):
        line, col = expected.position(expected.keys[token][0] + 1, "utf-16")
        # the first request waits for the navigation lookups
        refs = await client.text_document_references_async(
            types.ReferenceParams(
                text_document=types.TextDocumentIdentifier(uri),
                position=types.Position(line, col),
                context=types.ReferenceContext(include_declaration=True),
            )
        )
        got = [
            (r.uri, (r.range.start.line, r.range.start.character), (r.range.end.line, r.range.end.character))
            for r in refs
        ]
        assert got == [(uri, *r) for r in expected.ranges(token, True, "utf-16")] and len(got) > 3
