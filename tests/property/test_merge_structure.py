"""core/behaviour/reachability/merge_structure.py against the engine itself: which tokens BPE builds
back from their own word, and the BPE of any word, on random vocabularies and merges
(hypothesis), ordered ones (each token made by one merge of earlier tokens, as `tokenizers`
trains them) and shuffled ones (as SentencePiece conversions list them)."""

import pytest
import tokenizers  # noqa: F401 (a dependency of the package: a broken install fails, never skips)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from tokenizer_lsp.core.behaviour.reachability.merge_structure import MergeStructure

ALPHABET = "abcd"


@st.composite
def trained(draw, shuffled: bool | None = False):
    """A vocabulary grown the way BPE training grows one: each merge joins two tokens that
    exist already into a new one."""
    tokens = list(ALPHABET)
    merges: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 40))):
        x = draw(st.sampled_from(tokens))
        y = draw(st.sampled_from(tokens))
        if x + y in tokens or len(x + y) > 8:
            continue
        tokens.append(x + y)
        merges.append((x, y))
    if shuffled or (shuffled is None and draw(st.booleans())):
        merges = draw(st.permutations(merges))
    vocab = {t: i for i, t in enumerate(tokens)}
    return vocab, merges


def engine(vocab: dict[str, int], merges: list[tuple[str, str]]):
    """One word in, its BPE out: no normalizer, no pre-tokenizer."""
    from tokenizers import Tokenizer
    from tokenizers.models import BPE

    return Tokenizer(BPE(vocab=dict(vocab), merges=list(merges)))


def structure_of(vocab, merges) -> MergeStructure:
    s = MergeStructure(vocab, [a for a, _ in merges], [b for _, b in merges])
    if s.ordered:
        s.find_reachable()
    return s


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trained())
def test_reachable_tokens_are_those_the_engine_gives_back(case):
    vocab, merges = case
    s = structure_of(vocab, merges)
    assert s.ordered
    tok = engine(vocab, merges)
    for token, tid in vocab.items():
        assert s.reachable(tid) == (tok.encode(token).ids == [tid]), token
    event(f"{sum(map(s.reachable, vocab.values())) < len(vocab)} some token unreachable")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trained(shuffled=None), st.lists(st.text(ALPHABET, min_size=1, max_size=12), min_size=1, max_size=8))
def test_encode_word_is_the_engines_bpe(case, words):
    vocab, merges = case
    s = structure_of(vocab, merges)
    tok = engine(vocab, merges)
    for word in words + list(vocab):
        assert s.encode_word(word) == tok.encode(word).ids, word


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trained(shuffled=True))
def test_shuffled_merges_are_ordered_only_when_each_part_comes_first(case):
    vocab, merges = case
    made = {a + b: r for r, (a, b) in enumerate(merges)}
    expected = all(made.get(a, -1) < r and made.get(b, -1) < r for r, (a, b) in enumerate(merges))
    assert structure_of(vocab, merges).ordered == expected


def test_the_leftmost_of_two_equal_pairs_merges_first():
    """`aaa` with the merge a+a: the engine makes [aa, a], so aaa (made as a + aa) is never
    produced, while aaa made as aa + a is."""
    for merges, reachable in ([("a", "a"), ("a", "aa")], False), ([("a", "a"), ("aa", "a")], True):
        vocab = {"a": 0, "aa": 1, "aaa": 2}
        s = structure_of(vocab, merges)
        assert s.reachable(2) is reachable
        assert (engine(vocab, merges).encode("aaa").ids == [2]) is reachable


def test_a_merge_across_the_halves_that_ranks_first_wins():
    """abc made as ab + c, but b + c ranks before a + b: BPE makes [a, bc]."""
    vocab = {"a": 0, "b": 1, "c": 2, "bc": 3, "ab": 4, "abc": 5}
    merges = [("b", "c"), ("a", "b"), ("ab", "c")]
    s = structure_of(vocab, merges)
    assert not s.reachable(5) and s.encode_word("abc") == [0, 3] == engine(vocab, merges).encode("abc").ids


def test_a_merge_naming_a_missing_token_is_refused():
    with pytest.raises(ValueError):
        MergeStructure({"a": 0, "b": 1}, ["a"], ["b"])  # "ab" is not in the vocab


# ---- the whole file: reachability_fast against the engine's way ---------------------------


def _tokenizer_json(tmp_path, ignore_merges: bool, normalizer) -> tuple[bytes, str]:
    """A small byte-level BPE trained by `tokenizers` itself on text with digits, accents
    and apostrophes, so some tokens' texts are split by the GPT-2 regex or rewritten by
    the normalizer; saved with the model flag asked."""
    import json

    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        pre_tokenizers,
        trainers,
    )

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = ["it's 2024 and 1999's cafe\u0301 isn't 42x", "don't we'll 12ab ab12 CAFÉ café", "ﬁne ½ x²"] * 50
    tok.train_from_iterator(
        corpus,
        trainers.BpeTrainer(vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False),
    )
    # tokens the trainer could not make: a word across the regex's split, a decomposed é
    obj = json.loads(tok.to_str())
    vocab, merges = obj["model"]["vocab"], obj["model"]["merges"]
    for a, b in [("Ġit", "'s"), ("Ġcaf", "e")]:
        if a in vocab and b in vocab and a + b not in vocab:
            vocab[a + b] = len(vocab)
            merges.append([a, b])
    obj["model"]["ignore_merges"] = ignore_merges
    if normalizer is not None:
        obj["normalizer"] = json.loads(normalizer.__getstate__())
    path = tmp_path / "tokenizer.json"
    data = json.dumps(obj).encode("utf-8")
    path.write_bytes(data)
    return data, str(path)


@pytest.mark.parametrize("ignore_merges", [False, True])
@pytest.mark.parametrize("nfkc", [False, True])
def test_read_off_the_merges_equals_the_engines_set(tmp_path, ignore_merges, nfkc):
    from tokenizer_lsp.core.behaviour.load import load_tokenizer_file
    from tokenizer_lsp.core.behaviour.reachability.compute import unreachable_tokens
    from tokenizer_lsp.core.behaviour.reachability.fast import unreachable_by_structure
    from tokenizers import normalizers

    data, path = _tokenizer_json(tmp_path, ignore_merges, normalizers.NFKC() if nfkc else None)
    engine_set = unreachable_tokens(load_tokenizer_file(path))
    assert engine_set, "the file was meant to hold unreachable tokens"
    assert unreachable_by_structure(data, path) == engine_set
