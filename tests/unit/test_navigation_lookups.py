"""The navigation lookups in their compact form (3-byte ordinals, blobs by length and
character width, UTF-8 stored forms), checked against what the file itself says: merges
and vocabulary read with orjson, byte-level forms decoded with GPT-2's byte map."""

from __future__ import annotations

import gc
import weakref

import orjson
import pytest
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.navigation.build import build_navigation

from tests.conftest import corpus_file, gpt2_byte_of


def _byte_map() -> dict[str, int]:
    return gpt2_byte_of()


_BYTES = _byte_map()


def _decoded(token: str) -> str:
    return bytes(_BYTES[c] for c in token).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def qwen3():
    path = corpus_file("qwen3/tokenizer.json")
    data = path.read_bytes()
    idx = build_index(data, str(path))
    idx.prepare_lookups()
    nav = build_navigation(idx)
    obj = orjson.loads(data)
    vocab = obj["model"]["vocab"]
    merges = [m.split(" ") if isinstance(m, str) else m for m in obj["model"]["merges"]]
    return idx, vocab, merges, nav


def test_merge_lookups_match_the_files_merges(qwen3):
    idx, vocab, merges, nav = qwen3
    order = list(vocab)  # ordinals: the keys' order in the file
    ordinal = {t: o for o, t in enumerate(order)}
    assert nav.merge_count == len(merges)
    producers: dict[str, list[int]] = {}
    using: dict[str, list[tuple[int, int]]] = {}
    for rank, (a, b) in enumerate(merges):
        producers.setdefault(a + b, []).append(rank)
        using.setdefault(a, []).append((rank, 0))
        using.setdefault(b, []).append((rank, 1))
    for rank in (0, 1, len(merges) // 2, len(merges) - 1):
        a, b = merges[rank]
        assert nav.parts(rank) == (ordinal[a], ordinal[b], ordinal[a + b])
    # the most used part, a rare one, a base byte and the last token
    common = max(using, key=lambda t: len(using[t]))
    rare = next(t for t in order[1000:] if len(using.get(t, ())) == 1)
    for token in (common, rare, order[0], order[-1], "Ġthe"):
        o = ordinal[token]
        assert nav.using(o) == sorted(using.get(token, []))
        assert nav.uses(o) == len({r for r, _ in using.get(token, [])})
        assert nav.producers(o) == producers.get(token, [])
        assert nav.producer(o) == (producers[token][0] if token in producers else None)


def test_search_finds_stored_forms_in_utf8_blobs_shortest_first(qwen3):
    idx, vocab, _, nav = qwen3
    found = [idx.token_at_ordinal(o) for o in nav.search("Ġthe", 1000, idx.ordinal_of("Ġthe"))]
    expected = {t for t in vocab if "Ġthe" in t}
    assert set(found) == expected and len(found) == len(expected)
    assert found[0] == "Ġthe"  # the exact match first
    lengths = [len(_decoded(t)) for t in found[1:]]
    assert lengths == sorted(lengths)
    ids = [vocab[t] for t in found[1:] if len(_decoded(t)) == lengths[0]]
    assert ids == sorted(ids)  # one length: vocabulary order


def test_search_finds_decoded_text_across_character_widths(qwen3):
    idx, vocab, _, nav = qwen3
    found = {idx.token_at_ordinal(o) for o in nav.search("我", 100_000)}
    assert found == {t for t in vocab if "我" in _decoded(t)}
    assert len(found) > 10
    assert nav.search("我", 5) and len(nav.search("我", 5)) == 5


def test_ids_in_key_order_need_no_table_and_others_still_resolve(tmp_path):
    in_order = build_index(orjson.dumps({"a": 0, "b": 1, "ab": 2}), str(tmp_path / "vocab.json"))
    assert [in_order.token_of_id(i) for i in range(4)] == ["a", "b", "ab", None]
    shuffled = build_index(orjson.dumps({"ab": 2, "a": 0, "b": 5}), str(tmp_path / "vocab.json"))
    assert [shuffled.token_of_id(i) for i in range(6)] == ["a", None, "ab", None, None, "b"]


def test_an_index_replaced_by_an_edit_is_released(qwen3):
    idx, _, _, _ = qwen3
    data = idx.data
    at = data.index('"Ġthe"'.encode()) + len('"Ġthe'.encode())
    new = data[:at] + b"x" + data[at:]
    first = idx.edited([(at, at, b"x")], new)
    assert first is not None and first.parse_id == idx.parse_id
    first.prepare_lookups()
    then = first.edited([(at + 1, at + 1, b"y")], new[: at + 1] + b"y" + new[at + 1 :])
    assert then is not None
    gone = weakref.ref(first)
    del first
    gc.collect()
    assert gone() is None  # a chain of derived indexes never keeps every version alive


def test_ids_after_an_edit_name_the_edited_key_without_a_list_of_every_key(qwen3):
    idx, vocab, _, _ = qwen3
    assert idx.token_of_id(vocab["Ġthe"]) == "Ġthe"
    data = idx.data
    at = data.index('"Ġthe"'.encode()) + len('"Ġthe'.encode())
    edited = idx.edited([(at, at, b"x")], data[:at] + b"x" + data[at:])
    assert edited is not None
    assert edited.token_of_id(vocab["Ġthe"]) == "Ġthex"
    assert edited.token_of_id(vocab["!"]) == "!" and edited.token_of_id(len(vocab) + 10**6) is None
    assert "_token_list" not in edited.__dict__  # 151k str objects (9 MB) per typed version
