"""CompactTokens answers exactly as the dict it was built from."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tokenizer_lsp.core import compact_vocab
from tokenizer_lsp.core.compact_vocab import CompactTokens
from tokenizer_lsp.core.model import RenamedTokens

# any text, lone surrogates included (JSON "\ud800" escapes make such tokens)
tokens = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12)


@given(st.dictionaries(tokens, st.integers(-(2**63), 2**63 - 1), max_size=300), st.lists(tokens, max_size=20))
def test_same_answers_as_the_dict(d, probes):
    c = CompactTokens(d)
    assert len(c) == len(d)
    assert list(c) == list(d)  # source order kept
    for k, v in d.items():
        assert k in c and c[k] == v and c.get(k) == v
    for p in probes:
        assert (p in c) == (p in d)
        assert c.get(p, "absent") == d.get(p, "absent")


def test_several_blocks(monkeypatch):
    # more than one block of hashes cut into hash ranges: every key is found wherever its
    # block and range put it
    d = {f"Ġtok{i}": i * 7 for i in range(3 * compact_vocab._BLOCK + 5)}
    c = CompactTokens(d)
    assert len(c._hashes) == len(d) and list(c._hashes) == sorted(c._hashes)
    assert all(c[k] == v for k, v in d.items())
    assert "Ġtok" not in c and c.get(f"Ġtok{len(d)}") is None
    with pytest.raises(KeyError):
        c["missing"]


class Colliding(str):
    """Every instance hashes alike: the lookup must tell them apart by their bytes."""

    def __hash__(self):
        return 12345


def test_hash_collisions_are_told_apart():
    d = {Colliding(t): i for i, t in enumerate(["a", "b", "Ġc", "\ud800", ""])}
    c = CompactTokens(d)
    for i, t in enumerate(["a", "b", "Ġc", "\ud800", ""]):
        assert c[Colliding(t)] == i
    assert Colliding("z") not in c
    assert 5 not in c and None not in c  # not strings: absent, no error


def test_ids_beyond_64_bits_are_refused():
    with pytest.raises(OverflowError):
        CompactTokens({"a": 2**64})


def test_renaming_over_a_compact_base():
    base = CompactTokens({"Ġa": 0, "Ġb": 1, "c": 2})
    r = RenamedTokens(base).rename("Ġb", "Ġbx")
    assert "Ġb" not in r and r["Ġbx"] == 1 and r["c"] == 2 and len(r) == 3
    assert list(r) == ["Ġa", "c", "Ġbx"]


@given(st.dictionaries(tokens, st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=200), st.data())
def test_values_items_and_ids_follow_the_keys_as_a_dict_does(d, data):
    """values(), items() and ids() come from the id array, not a lookup per key: the same
    as the dict, also after renames (a renamed key last, as copy-and-rename would put it)."""
    c = CompactTokens(d)
    assert list(c.values()) == list(d.values()) and list(c.items()) == list(d.items())
    r, plain = RenamedTokens(c), dict(d)
    for _ in range(data.draw(st.integers(0, 4))):
        old = data.draw(st.sampled_from(list(plain)))
        new = data.draw(tokens.filter(lambda t: t not in plain))
        r = r.rename(old, new)
        plain[new] = plain.pop(old)
    assert list(r) == list(plain)
    assert list(r.items()) == list(plain.items()) and list(r.values()) == list(plain.values())
    assert list(r.ids()) == list(plain.values())
    for k in list(d)[:20] + list(plain)[-5:]:
        assert r.get(k, "absent") == plain.get(k, "absent")
    first = next(iter(d.items()))
    assert first in c.items() and (first[0], first[1] + 1) not in c.items()  # still a view


@given(st.integers(-(2**63), 2**63 - 1))
def test_the_c_level_key_of_a_hash_is_the_plain_one(h):
    assert compact_vocab._key(h) == compact_vocab._key_of_hash(h)


@given(st.dictionaries(tokens, st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=100), st.data())
def test_the_highest_id_is_the_mappings_after_renames(d, data):
    c = CompactTokens(d)
    assert c.max_id() == max(d.values())
    r, plain = RenamedTokens(c), dict(d)
    for _ in range(data.draw(st.integers(0, 5))):
        old = data.draw(st.sampled_from(list(plain)))
        new = data.draw(tokens.filter(lambda t: t not in plain))
        r, plain[new] = r.rename(old, new), plain.pop(old)
        assert r.max_id() == max(plain.values()) and dict(r.items()) == plain
    assert RenamedTokens(dict(d)).max_id() == max(d.values())
