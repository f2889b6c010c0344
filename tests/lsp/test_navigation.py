"""Navigation over LSP on real files: definition, references, document and workspace
symbols, merge trees in hovers. Every expected location is computed here from the file's
text (the json module and a regex over string literals), not from the server's code."""

import asyncio
import json
import re
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import corpus_file, gpt2_byte_of
from tests.lsp.harness import open_kept
from tests.lsp.harness import shared_navigation_client as client  # noqa: F401 (one server for the module)

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


@lru_cache(maxsize=2)  # one scan of an 11 MB text, not one per position (a str keeps its hash)
def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def position(text: str, index: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a str index (these files have no CR)."""
    starts = _line_starts(text)
    line = bisect_right(starts, index) - 1
    return line, len(text[starts[line] : index].encode("utf-16-le")) // 2


def merge_literals(text: str) -> list[tuple[int, int]]:
    """(start, end) str indices of every string literal of model.merges, in order."""
    start = text.index('"merges"', text.index('"model"'))
    start = text.index("[", start)
    return [m.span() for m in STRING.finditer(text, start)]


def expected_references(text: str, token: str) -> set:
    """Start and end positions of: each part equal to the token, each whole merge making
    it, the added-token content naming it."""
    model = json.loads(text)["model"]
    merges, lits = model["merges"], merge_literals(text)
    out = set()
    for rank, m in enumerate(merges):
        if isinstance(m, list):
            (s0, e0), (s1, e1) = lits[2 * rank], lits[2 * rank + 1]
            parts = [(m[0], s0, e0), (m[1], s1, e1)]
            whole = (s0, e1)
            a, b = m
        else:
            s, e = lits[rank]
            a, b = m.split(" ")
            sep = s + 1 + len(a)
            parts = [(a, s + 1, sep), (b, sep + 1, e - 1)]
            whole = (s, e)
        for part, ps, pe in parts:
            if part == token:
                out.add((position(text, ps), position(text, pe)))
        if a + b == token:
            out.add((position(text, whole[0]), position(text, whole[1])))
    return out


def key_range(text: str, token: str, after: int = 0):
    lit = json.dumps(token, ensure_ascii=False)
    i = text.index(lit + ":", after)
    return position(text, i), position(text, i + len(lit))


async def open_file(client: LanguageClient, path: Path, language="json") -> tuple[str, str]:
    if path.name == "tokenizer.json" and path.parent.name == "qwen3":  # read by three tests, indexed once
        return await open_kept(client, path, language)
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
    )
    return uri, text


def span(loc) -> tuple:
    r = loc.range
    return (r.start.line, r.start.character), (r.end.line, r.end.character)


async def answered(request, timeout: float = 120.0):
    """The first answer that is not None. The server waits at most 20 s for a file's
    navigation lookups, then answers None (session.navigation_snapshot); qwen3's took more
    than that with the suite running on both cores of a loaded machine: ask again."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while (found := await request()) is None and loop.time() < end:
        await asyncio.sleep(0.05)
    return found


async def references(client, uri, pos, decl=False):
    return await answered(
        lambda: client.text_document_references_async(
            types.ReferenceParams(
                text_document=types.TextDocumentIdentifier(uri),
                position=types.Position(*pos),
                context=types.ReferenceContext(include_declaration=decl),
            )
        )
    )


async def definition(client, uri, pos):
    return await answered(
        lambda: client.text_document_definition_async(
            types.DefinitionParams(types.TextDocumentIdentifier(uri), types.Position(*pos))
        )
    )


@pytest.mark.parametrize("rel,token", [("qwen3/tokenizer.json", "Ġthe"), ("llama2/tokenizer.json", "▁t")])
async def test_references_and_definition_on_both_merge_forms(client: LanguageClient, rel, token):
    """qwen3 writes merges as pairs, llama2 as "a b" strings."""
    uri, text = await open_file(client, corpus_file(rel))
    decl = key_range(text, token, text.index('"vocab"', text.index('"model"')))
    refs = await references(client, uri, (decl[0][0], decl[0][1] + 1))
    want = expected_references(text, token)
    assert {span(r) for r in refs} == want and len(refs) == len(want) > 1
    assert [span(r) for r in refs] == sorted(span(r) for r in refs)  # file order
    with_decl = await references(client, uri, (decl[0][0], decl[0][1] + 1), decl=True)
    assert {span(r) for r in with_decl} == want | {decl}
    # from a merge part: the vocab key; from the key: the lowest-ranked merge making it
    part = next(
        r
        for r in refs
        if r.range.start.line == r.range.end.line and r.range.end.character - r.range.start.character <= len(token) + 2
    )
    target = await definition(client, uri, (part.range.start.line, part.range.start.character + 1))
    assert [span(t) for t in target] == [decl] and target[0].uri == uri
    made = await definition(client, uri, (decl[0][0], decl[0][1] + 1))
    merges = json.loads(text)["model"]["merges"]
    first = next(r for r, m in enumerate(merges) if "".join(m if isinstance(m, list) else m.split(" ")) == token)
    assert span(made[0]) in want and span(made[0])[0][0] >= position(text, merge_literals(text)[0][0])[0]
    # the hover tells the same: rank, number of merges using it, the tree
    h = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(decl[0][0], decl[0][1] + 1))
    )
    uses = sum(1 for m in merges if token in (m if isinstance(m, list) else m.split(" ")))
    assert f"made by merge rank {first}:" in h.contents.value
    assert f"used by {uses} merge" in h.contents.value and "merge tree:" in h.contents.value


async def test_space_token_references_are_complete(client: LanguageClient):
    """`Ġ` is a part of hundreds of qwen3 merges: every one, each range the part itself."""
    uri, text = await open_file(client, corpus_file("qwen3/tokenizer.json"))
    decl = key_range(text, "Ġ", text.index('"vocab"', text.index('"model"')))
    refs = await references(client, uri, (decl[0][0], decl[0][1] + 1))
    want = expected_references(text, "Ġ")
    assert {span(r) for r in refs} == want and len(refs) == len(want) > 400


async def test_merges_file_pairs_with_its_vocab_json(client: LanguageClient):
    merges_path = corpus_file("whisper-gpt2/merges.txt")
    vocab_path = merges_path.parent / "vocab.json"
    uri, text = await open_file(client, merges_path, "plaintext")
    lines = text.split("\n")
    rank = 10  # the merge of rank 10 is line 11 (after the #version header)
    a, b = lines[rank + 1].split(" ")
    target = await definition(client, uri, (rank + 1, 0))
    vocab_text = vocab_path.read_text(encoding="utf-8")
    assert target[0].uri == vocab_path.as_uri() and span(target[0]) == key_range(vocab_text, a)
    # references from the vocab.json key: the merge lines of the merges file beside it
    vuri, _ = await open_file(client, vocab_path)
    at = key_range(vocab_text, a)[0]
    refs = await references(client, vuri, (at[0], at[1] + 1))
    want = set()
    for i, line in enumerate(lines[1:], 1):
        parts = line.split(" ")
        if len(parts) == 2:
            if parts[0] == a:
                want.add((merges_path.as_uri(), (i, 0), (i, len(parts[0]))))
            if parts[1] == a:
                want.add((merges_path.as_uri(), (i, len(parts[0]) + 1), (i, len(line))))
            if parts[0] + parts[1] == a:
                want.add((merges_path.as_uri(), (i, 0), (i, len(line))))
    assert {(r.uri, *span(r)) for r in refs} == want and want


async def test_symbols_on_a_one_line_vocab_and_a_tiktoken_file(client: LanguageClient):
    path = corpus_file("gpt2-openai/encoder.json")
    uri, text = await open_file(client, path)
    ranks = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    turi, ttext = await open_file(client, ranks, "plaintext")
    for _ in range(400):  # navigation lookups come after the diagnostics and hovers
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="#262"))
        if found and {uri, turi} <= {s.location.uri for s in found}:  # (qwen3 may be open too)
            break
        await asyncio.sleep(0.05)
    by_uri = {s.location.uri: s for s in found}
    lit = '"\\u0120the"'
    col = text.index(lit)
    assert span(by_uri[uri].location) == ((0, col), (0, col + len(lit)))
    assert by_uri[uri].name == "␣the" and "262" in by_uri[uri].container_name
    line262 = next(i for i, l in enumerate(ttext.split("\n")) if l.endswith(" 262"))
    b64 = ttext.split("\n")[line262].split(" ")[0]
    assert span(by_uri[turi].location) == ((line262, 0), (line262, len(b64)))
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert [s.name for s in symbols] == [f"vocab ({len(json.loads(text)):,})"]
    # a tiktoken rank's split is inferred from the lower ranks
    import base64

    ranks_of = {base64.b64decode(l.split(" ")[0]): int(l.split(" ")[1]) for l in ttext.split("\n") if l}
    token, rank = next((t, r) for t, r in ranks_of.items() if len(t) == 4 and t.isascii() and t.isalpha() and r > 5000)
    line = next(i for i, l in enumerate(ttext.split("\n")) if l.endswith(f" {rank}"))
    h = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(turi), types.Position(line, 1))
    )
    m = re.search(r"made by merge rank \d+ \(inferred\): `([^`]*)` \+ `([^`]*)`", h.contents.value)
    assert m is not None, h.contents.value
    left, right = (x.replace("␣", " ").encode() for x in m.groups())
    assert left + right == token and ranks_of[left] < rank and ranks_of[right] < rank


async def test_workspace_symbols_by_decoded_text(client: LanguageClient):
    uri, text = await open_file(client, corpus_file("qwen3/tokenizer.json"))
    for _ in range(400):
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="我"))
        if found:
            break
        await asyncio.sleep(0.05)
    vocab = json.loads(text)["model"]["vocab"]
    mine = [t for t in vocab if "我" in bytes(_BYTES[c] for c in t).decode("utf-8", "replace")]
    assert found[0].name == "我" and "35946" in found[0].container_name
    assert len(found) == min(200, len(mine))
    stored = "".join({b: c for c, b in _BYTES.items()}[b] for b in "我".encode())
    assert span(found[0].location) == key_range(text, stored, text.index('"vocab"', text.index('"model"')))
    lengths = [len(s.name) for s in found[1:]]
    assert lengths == sorted(lengths)  # then shorter tokens first


async def test_definition_follows_an_edit_the_index_has_not_seen(client: LanguageClient):
    """A line inserted at the top: the answer lands one line lower, whichever index gives it."""
    uri, text = await open_file(client, corpus_file("llama2/tokenizer.json"))
    decl = key_range(text, "▁t", text.index('"vocab"', text.index('"model"')))
    refs = await references(client, uri, (decl[0][0], decl[0][1] + 1))
    part = next(r for r in refs if r.range.end.character - r.range.start.character == len("▁t"))  # a part
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, 1), types.Position(0, 1)), text="\n"
                )
            ],
        )
    )
    target = await definition(client, uri, (part.range.start.line + 1, part.range.start.character + 1))
    assert [span(t) for t in target] == [((decl[0][0] + 1, decl[0][1]), (decl[1][0] + 1, decl[1][1]))]


def _byte_map() -> dict[str, int]:
    return gpt2_byte_of()


_BYTES = _byte_map()
