"""References through the merge-layout fast path (core.formats.json.merge_layout) and the inverted index
of merge parts (core.navigation.build), against the general path (positions from each span) and
against positions computed here from the file's text alone (the json module, a regex over
string literals, a line-break scan): real files in the pair form (gemma3, qwen3) and the
string form (llama3, llama2), one-line files, small files written here with CRLF, escapes,
tabs, irregular indentation and two spellings of a token, and a merges file."""

from __future__ import annotations

import json
import re
import weakref
from bisect import bisect_right
from types import SimpleNamespace

import pytest
from tokenizer_lsp.core.formats.json.merge_layout import RangeRun
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.index.files import index_file
from tokenizer_lsp.core.navigation.build import build_navigation
from tokenizer_lsp.core.navigation.queries import reference_ranges
from tokenizer_lsp.lsp.handlers import references as references_handler

from tests.conftest import corpus_file

STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
KEY = re.compile(r'("(?:[^"\\]|\\.)*")\s*:')
CONTENT = re.compile(r'"content"\s*:\s*("(?:[^"\\]|\\.)*")')
BREAK = re.compile(r"\r\n|\r|\n")
ENCODINGS = ("utf-16", "utf-8", "utf-32")


# ---- what the references are, from the text alone --------------------------------------


def width(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


class Expected:
    """A tokenizer.json's references as LSP ranges, found by reading its text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in BREAK.finditer(text)]
        obj = json.loads(text)  # parsed once: gemma3 is 33 MB
        model = obj["model"]
        self.merges = model.get("merges", [])
        model_at = text.index('"model"')
        vocab_at = text.index('"vocab"', model_at)
        merges_key = text.index('"merges"', model_at) if "merges" in model else len(text)
        merges_at = text.find("[", merges_key)
        self.keys: dict[str, tuple[int, int]] = {}
        for m in KEY.finditer(text, text.index("{", vocab_at), merges_key):
            self.keys.setdefault(json.loads(m.group(1)), m.span(1))
        literals = STRING.finditer(text, merges_at)
        self.parts: dict[str, list[tuple[int, int]]] = {}
        self.made: dict[str, list[tuple[int, int]]] = {}
        for merge in self.merges:
            if isinstance(merge, list):
                (s0, e0), (s1, e1) = next(literals).span(), next(literals).span()
                a, b = merge
                found, whole = [(a, s0, e0), (b, s1, e1)], (s0, e1)
            else:
                s, e = next(literals).span()
                if merge.count(" ") != 1:  # not a merge of two tokens: nothing to find
                    continue
                a, b = merge.split(" ")
                sep = text.find(" ", s + 1, e)  # the literal's first space, as written
                found = [(a, s + 1, sep), (b, sep + 1, e - 1)] if sep >= 0 else [(a, s, e), (b, s, e)]
                whole = (s, e)
            for token, ps, pe in found:
                self.parts.setdefault(token, []).append((ps, pe))
            self.made.setdefault(a + b, []).append(whole)
        self.added: dict[str, tuple[int, int]] = {}
        added_at = text.find('"added_tokens"')
        entries = obj.get("added_tokens") or []
        for _, m in zip(entries, CONTENT.finditer(text, added_at)):  # one content each
            self.added.setdefault(json.loads(m.group(1)), m.span(1))

    def position(self, i: int, encoding: str) -> tuple[int, int]:
        line = bisect_right(self.line_starts, i) - 1
        return line, width(self.text[self.line_starts[line] : i], encoding)

    def positions(self, offsets: list[int], encoding: str) -> dict[int, tuple[int, int]]:
        """position() of many offsets, each column counted on from the previous offset's
        when on the same line (a one-line file is not measured from its start each time)."""
        out: dict[int, tuple[int, int]] = {}
        line, at, col = -1, 0, 0
        for i in sorted(set(offsets)):
            here = bisect_right(self.line_starts, i) - 1
            if here != line:
                line, at, col = here, self.line_starts[here], 0
            col += width(self.text[at:i], encoding)
            at = i
            out[i] = (line, col)
        return out

    def ranges(self, token: str, decl: bool, encoding: str) -> list:
        spans = set(self.parts.get(token, [])) | set(self.made.get(token, []))
        if token in self.added:
            spans.add(self.added[token])
        if decl and token in self.keys:
            spans.add(self.keys[token])
        at = self.positions([i for span in spans for i in span], encoding)
        return [(at[s], at[e]) for s, e in sorted(spans)]


def flat(items) -> list:
    """reference_ranges' answer as one range per reference."""
    out = []
    for item in items:
        if isinstance(item, RangeRun):
            n = len(item)
            starts = [item.start] * n if isinstance(item.start, int) else item.start
            ends = [item.end] * n if isinstance(item.end, int) else item.end
            out += [((line, s), (line, e)) for line, s, e in zip(item.lines, starts, ends)]
        else:
            out.append(item)
    return out


def indexed(data: bytes, path: str = "tokenizer.json"):
    idx = build_index(data, path)
    idx.prepare_lookups()
    _NAVIGATION[idx] = build_navigation(idx)
    return idx


# the navigation lookups of each index `indexed` built: held beside it, as the server does
_NAVIGATION: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def nav_of(idx):
    return _NAVIGATION[idx]


def check(
    idx, expected: Expected, token: str, encodings=ENCODINGS, decl: bool = True, fast: bool | None = None
) -> None:
    """Fast path, general path and the text agree; `fast`: whether the layout gave them."""
    for encoding in encodings:
        want = expected.ranges(token, decl, encoding)
        got = reference_ranges(idx, nav_of(idx), token, decl, encoding)
        assert flat(got) == want, (token, encoding)
        assert reference_ranges(idx, nav_of(idx), token, decl, encoding, use_layout=False) == want, (token, encoding)
        if fast is not None and expected.parts.get(token):  # a run needs merge parts
            assert any(isinstance(item, RangeRun) for item in got) == fast, (token, encoding)


def json_both_ways(idx, token: str, uri: str, encoding: str) -> tuple[str, str]:
    """(the handler's JSON text, the same locations formatted one by one from the ranges
    of the general path, as the handler wrote them before the fast path)."""
    snap = SimpleNamespace(spans=(), index=idx, encoding=encoding, navigation=nav_of(idx))
    fast = references_handler._json_array(references_handler._token_locations(uri, snap, token, True))
    quoted = json.dumps(uri)
    one_by_one = [
        references_handler._LOCATION % (quoted, a[0], a[1], b[0], b[1])
        for a, b in reference_ranges(idx, nav_of(idx), token, True, encoding, use_layout=False)
    ]
    return fast, "[" + ",".join(one_by_one) + "]"


# ---- real files -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gemma3():
    path = corpus_file("gemma3/tokenizer.json")
    data = path.read_bytes()
    return indexed(data, str(path)), Expected(data.decode("utf-8"))


def test_gemma3_space_marker_and_escaped_tokens(gemma3):
    """`▁` is a part of 40922 merges (pretty-printed pairs); `\\n` literals hold a backslash."""
    idx, expected = gemma3
    assert nav_of(idx).merge_layout is not None and nav_of(idx).merge_layout.pairs
    assert len(expected.parts["▁"]) == 40923  # in 40922 merges: one is `▁` + `▁`
    check(idx, expected, "▁", fast=True)
    for token in ("\n", "\n\n", "t", "<0x0A>", "▁the", '"', "\\"):
        check(idx, expected, token, ("utf-16",), fast=True)
    check(idx, expected, "▁", ("utf-16",), decl=False, fast=True)


def test_gemma3_inverted_index_matches_the_merges(gemma3):
    """Every use, every producer (gemma3 lists several merges per token) and the count of
    distinct merges using a token, for tokens picked across the vocabulary."""
    idx, expected = gemma3
    nav = nav_of(idx)
    merges = expected.merges
    picked = ["▁", "t", "\n", "▁the", "ing"] + list(expected.keys)[::5000]
    using: dict[str, list] = {t: [] for t in picked}
    producers: dict[str, list] = {t: [] for t in picked}
    for rank, (a, b) in enumerate(merges):
        if a in using:
            using[a].append((rank, 0))
        if b in using:
            using[b].append((rank, 1))
        if a + b in producers:
            producers[a + b].append(rank)
    assert sum(len(p) > 1 for p in producers.values()) > 5  # the case the sparse lookup serves
    for token in picked:
        o = idx.ordinal_of(token)
        assert nav.using(o) == using[token]
        assert list(nav.use_keys(o)) == [4 * r + p for r, p in using[token]]
        assert nav.producers(o) == producers[token]
        assert nav.producer(o) == (producers[token][0] if producers[token] else None)
        assert nav.uses(o) == len({r for r, _ in using[token]})
    # a merge's parts, found back from those indexes (a later producer's too)
    later = next(p[1] for p in producers.values() if len(p) > 1)
    for rank in (0, 1, len(merges) // 2, len(merges) - 1, later):
        a, b = merges[rank]
        made = idx.ordinal_of(a + b)
        assert nav.parts(rank) == (idx.ordinal_of(a), idx.ordinal_of(b), -1 if made is None else made)


def test_gemma3_json_is_byte_for_byte_the_general_paths(gemma3):
    """The references handler's JSON for gemma3's `▁` (test_references_layouts.py: the small
    files'); here, where gemma3's index is built once for the run."""
    uri = "file:///models/my%20model%25/tokenizer.json"  # a `%` in it stays as written
    fast, general = json_both_ways(gemma3[0], "▁", uri, "utf-16")
    assert fast == general and len(json.loads(fast)) == 40924


@pytest.mark.parametrize(
    "rel,tokens",
    [
        ("qwen3/tokenizer.json", ["Ġ", "Ċ", "Ġthe", "ä", "s"]),
        ("llama3/tokenizer.json", ["Ġ", "Ġthe", "s", '"', "\\"]),
        ("llama2/tokenizer.json", ["▁", "▁t", "<0x0A>", "e"]),
    ],
)
def test_real_files_in_both_merge_forms(rel, tokens):
    path = corpus_file(rel)
    data = path.read_bytes()
    idx, expected = indexed(data, str(path)), Expected(data.decode("utf-8"))
    layout = nav_of(idx).merge_layout
    assert layout is not None and layout.pairs == rel.startswith("qwen3")
    for token in tokens:
        check(idx, expected, token, fast=bool(expected.parts.get(token)))


def test_one_line_files_take_the_general_path():
    """llama2's tokenizer written on one line (as json.dumps does), and all-MiniLM's one-line
    WordPiece file (no merges: the vocab key alone)."""
    obj = json.loads(corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8"))
    text = json.dumps(obj, ensure_ascii=False)
    idx, expected = indexed(text.encode("utf-8")), Expected(text)
    assert nav_of(idx).merge_layout is None
    for token in ("▁t", "▁", "<0x0A>"):
        check(idx, expected, token, fast=False)
    path = corpus_file("all-minilm-l6-v2/tokenizer.json")
    data = path.read_bytes()
    idx, expected = indexed(data, str(path)), Expected(data.decode("utf-8"))
    assert len(expected.line_starts) == 1  # one line
    for token in ("##ing", "[CLS]", "the"):
        check(idx, expected, token, fast=False)
    assert len(expected.ranges("[CLS]", True, "utf-16")) == 2  # its added_tokens entry too


def test_merges_file_beside_its_vocab_json():
    """A merges file's lines: each part from the line's text, the producing merge the line."""
    path = corpus_file("whisper-gpt2/merges.txt")
    idx = index_file(str(path))
    idx.prepare_lookups()
    nav = build_navigation(idx)
    lines = path.read_text(encoding="utf-8").split("\n")
    for token in ("Ġ", "Ġthe", "in", "é"):
        want = []
        for i, line in enumerate(lines[1:], 1):
            parts = line.split(" ")
            if len(parts) != 2:
                continue
            a, b = parts
            if a == token:
                want.append(((i, 0), (i, width(a, "utf-16"))))
            if b == token:
                want.append(((i, width(a, "utf-16") + 1), (i, width(line, "utf-16"))))
            if a + b == token:
                want.append(((i, 0), (i, width(line, "utf-16"))))
        assert flat(reference_ranges(idx, nav, token, False, "utf-16")) == sorted(want) and want  # file order
