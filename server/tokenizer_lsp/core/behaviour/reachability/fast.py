"""unreachable-token without loading the model into the engine.

For a tokenizer.json whose model is BPE (merges ordered or not, merge_structure.py, or
`ignore_merges`), and which adds no prefix space, the question splits in two:
- does the token's text come out of the normalizer, the added tokens and the pre-tokenizer
  as one word equal to the token? The engine's own components answer, in a tokenizer built
  from the file with an empty model (it loads in a millisecond);
- does BPE build that word back into the token? The merges' structure answers, in one pass
  for ordered merges, else by BPE on each word here.
The entries are those of reachability.unreachable_tokens, with the same reasons and pieces
(tests/unit/test_unreachable.py and tests/unit/test_engine_memory.py hold the two equal on the corpus
and on synthetic files built by `tokenizers`, hypothesis). It
never holds the model's few hundred MB (gemma3: 370 MB in the engine): the merges are read
in pieces straight into arrays of ids, and the texts are decoded a slice at a time. It runs
in one process (the server's forked child, engine/reachability_child.py), with nothing forked again.
Anything outside that shape gives None, and the engine decides as before.
"""

from __future__ import annotations

from array import array
from operator import methodcaller

import orjson

from ... import detect
from ...formats.json.parse import parse_deferring_merges
from ...formats.json.pieces import _piece, _pieces
from ...formats.json.scheme import _types
from ..loaded import TokenDecoding
from .compute import Explainer, token_texts
from .merge_structure import MergeStructure

# normalizers that change a text one character at a time (Lowercase) or as a Unicode
# normalization form; _SEP, a private-use character, is a starter they leave alone
_SEPARABLE = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Sequence"}
_SEP = "\ue000"
_SLICE = 1 << 14  # tokens whose texts are decoded and split at a time
_OTHER_MODELS = ("WordPiece", "WordLevel", "Unigram")  # outside the definition (BPE only)
_MODEL_KEYS = {
    "type",
    "dropout",
    "unk_token",
    "continuing_subword_prefix",
    "end_of_word_suffix",
    "fuse_unk",
    "byte_fallback",
    "ignore_merges",
    "vocab",
    "merges",
}


class _Components:
    """What Explainer asks of a tokenizer, from the light one and the file's own ids."""

    def __init__(self, light, by_id: list[str | None], added: dict[int, str]) -> None:
        self.normalizer, self.pre_tokenizer = light.normalizer, light.pre_tokenizer
        self.by_id, self.added = by_id, added

    def id_to_token(self, tid: int) -> str | None:
        if tid in self.added:
            return self.added[tid]
        return self.by_id[tid] if 0 <= tid < len(self.by_id) else None


def unreachable_by_structure(data: bytes, path: str | None, other_models_empty: bool = False) -> list[dict] | None:
    """reachability.unreachable_tokens' entries for this file, or None when this way does
    not apply (the caller then loads the engine). `other_models_empty`: a WordPiece,
    WordLevel or Unigram model has none (as the engine's answer), without loading it; a
    caller that must report a file the engine refuses leaves it off."""
    if (detect.content_kind(data, path) or detect.name_kind(path)) != "json":
        return None
    try:
        obj, merges_span = parse_deferring_merges(data)
    except orjson.JSONDecodeError:
        return None
    model = obj.get("model") if isinstance(obj, dict) else None
    if other_models_empty and isinstance(model, dict) and model.get("type") in _OTHER_MODELS:
        return []
    plain = _plain_bpe(model, data, merges_span)
    if plain is None:
        return None
    light = _light_tokenizer(obj, model)
    if light is None:
        return None
    return _unreachable(obj, model, *plain, light)


def _apart(
    light,
    obj: dict,
    stored: list[str],
    decoding: TokenDecoding,
    lo: int,
    hi: int,
    contents: set[str],
    split: list[bool],
) -> tuple[dict[int, tuple[str, list[str], str | None]], list]:
    """(place -> (text, words, reason) for each token in stored[lo:hi] whose text the
    normalizer and pre-tokenizer do not leave as the token alone, the slice's texts); True
    is added to `split` if an added token splits one of the texts."""
    texts = token_texts(stored[lo:hi], decoding)
    picked = [k for k, text in enumerate(texts, lo) if text]
    raw = [texts[k - lo] for k in picked]
    normalized = _normalized(light, obj, raw)
    if contents and _added_inside(light, contents, raw, normalized):
        split.append(True)
        return {}, texts
    pre = light.pre_tokenizer
    pretokenize = pre.pre_tokenize_str if pre is not None else (lambda n: [(n, (0, len(n)))])
    explain = Explainer(light, decoding, "", set())
    out = {}
    for k, text, n in zip(picked, raw, normalized):
        got = pretokenize(n)
        if len(got) != 1 or got[0][0] != stored[k]:
            out[k] = (text, [w for w, _ in got], explain.reason_of(text, n, [span for _, span in got] if pre else None))
    return out, texts


def _plain_bpe(model, data: bytes, merges_span: tuple[int, int] | None):
    """(vocab, merges' first parts' ids, second parts', results') of a BPE model whose
    words are split into characters and nothing else (no dropout, no subword prefix or word
    suffix); None also when a merge names a token the vocab lacks (the engine refuses it)."""
    if not isinstance(model, dict) or model.get("type") != "BPE" or not set(model) <= _MODEL_KEYS:
        return None
    if model.get("dropout") is not None or model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return None
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        return None
    ids = vocab.values()
    if set(map(type, ids)) - {int} or min(ids, default=0) < 0 or len(set(ids)) != len(vocab):
        return None
    chunks = [merges] if merges_span is None else _merge_pieces(data, *merges_span)
    a, b, c = array("l"), array("l"), array("l")
    for chunk in chunks:
        if chunk is None or not isinstance(chunk, list):
            return None
        if not chunk:
            continue
        kinds = set(map(type, chunk))
        if kinds == {str}:
            if set(map(methodcaller("count", " "), chunk)) != {1}:
                return None  # a part holding a space: the engine's own reading decides
            chunk = [m.split(" ") for m in chunk]
        elif kinds != {list} or set(map(len, chunk)) != {2}:
            return None
        firsts, seconds = map(list, zip(*chunk))
        del chunk
        if set(map(type, firsts)) | set(map(type, seconds)) != {str}:
            return None
        try:
            a.extend(map(vocab.__getitem__, firsts))
            b.extend(map(vocab.__getitem__, seconds))
            c.extend(map(vocab.__getitem__, map(str.__add__, firsts, seconds)))
        except KeyError:
            return None
        del firsts, seconds
    return vocab, a, b, c


def _merge_pieces(data: bytes, start: int, end: int):
    """model.merges parsed a run of elements at a time (never all its strings at once);
    the whole array in one piece when the first run does not parse, and None (the engine
    decides) when a later one does not (a cut the text fooled, or broken JSON)."""
    first = True
    for lo, hi in _pieces(data, start, end - 1):
        piece = _piece(data, lo, hi, 0x5B)
        if piece is None and first:
            try:
                yield orjson.loads(memoryview(data)[start:end])
            except orjson.JSONDecodeError:
                yield None
            return
        first = False
        yield piece
        if piece is None:
            return


def _light_tokenizer(obj: dict, model: dict):
    """The file's tokenizer with an empty vocabulary: its normalizer, pre-tokenizer, added
    tokens and flags as the engine reads them, none of the model's size."""
    import orjson
    from tokenizers import Tokenizer

    light = dict(obj)
    light["model"] = {**model, "vocab": {}, "merges": [], "unk_token": None}
    try:
        return Tokenizer.from_str(orjson.dumps(light).decode("utf-8"))
    except Exception:  # noqa: BLE001 (tokenizers raises a bare Exception: the engine path says why)
        return None


def _normalized(light, obj: dict, texts: list[str]) -> list[str]:
    """Each text as the engine's normalizer leaves it: in one call on the texts joined by
    _SEP when the normalizer works character by character or as a Unicode normalization
    form (whose changes never reach past a starter that composes with nothing, which _SEP
    is), else one call a text."""
    norm = light.normalizer
    if norm is None:
        return texts
    if set(_types(obj.get("normalizer"))) <= _SEPARABLE:
        joined = _SEP.join(texts)
        if joined.count(_SEP) == len(texts) - 1:  # no text holds it
            parts = norm.normalize_str(joined).split(_SEP)
            if len(parts) == len(texts):
                return parts
    return list(map(norm.normalize_str, texts))


def _words(light, normalized: str) -> list[str]:
    """The words the engine's pre-tokenizer makes of a normalized text."""
    pre = light.pre_tokenizer
    return [w for w, _ in pre.pre_tokenize_str(normalized)] if pre is not None else [normalized]


def _added_tokens(obj: dict, vocab: dict[str, int]) -> dict[int, str] | None:
    """id -> content of the file's added tokens, as the engine numbers them: a content in
    the vocab keeps the vocab's id (None for a file whose ids the engine would renumber)."""
    entries = obj.get("added_tokens") or []
    if not isinstance(entries, list):
        return None
    out: dict[int, str] = {}
    for e in entries:
        content, tid = (e.get("content"), e.get("id")) if isinstance(e, dict) else (None, None)
        if type(content) is not str or type(tid) is not int:
            return None
        if vocab.get(content, tid) != tid or (content not in vocab and tid in out):
            return None
        out[tid] = content
    return out


def _unreachable(obj: dict, model: dict, vocab: dict[str, int], a: array, b: array, c: array, light):
    from ..load import token_decoding

    decoding = token_decoding(light)
    added = _added_tokens(obj, vocab)
    if added is None or decoding.subword_prefix or decoding.word_suffix:
        return None
    contents = set(added.values())
    decoding = TokenDecoding(decoding.scheme, added_only=frozenset(i for i, c in added.items() if c not in vocab))
    if _words(light, _normalized(light, obj, ["test"])[0]) != ["test"]:
        return None  # a prefix space or a rewrite of plain text: the engine's way («)
    # a list, not a dict: 1 MB for qwen3's 151k tokens, not 10 (all of it is the tree's)
    by_id: list[str | None] = [None] * (max(vocab.values(), default=-1) + 1)
    for token, tid in vocab.items():
        by_id[tid] = token
    # the model's own tokens (an added token's content in the vocab is the added token)
    left_out = set(added).union([vocab[c] for c in contents if c in vocab])
    ids = array("l", (tid for tid, token in enumerate(by_id) if token is not None and tid not in left_out))
    del left_out
    stored = list(map(by_id.__getitem__, ids))
    # With ignore_merges a word in the vocab is its token: the merges only explain the others
    ignore_merges = model.get("ignore_merges") is True
    structure = MergeStructure.of_ids(vocab, a, b, c)
    del a, b, c
    if model.get("byte_fallback") is True:
        structure.use_byte_fallback()
    by_walk = structure.ordered and not ignore_merges
    if by_walk:
        structure.find_reachable()
    elif not ignore_merges:
        structure.many_words()
    apart: dict[int, tuple[str, list[str], str | None]] = {}
    split: list[bool] = []  # whether an added token splits a text (the engine tells how)
    for lo in range(0, len(ids), _SLICE):  # a slice at a time: its texts never all alive at once
        hi = min(len(ids), lo + _SLICE)
        got, texts = _apart(light, obj, stored, decoding, lo, hi, contents, split)
        if split:
            return None  # the engine tells how an added token splits a text
        apart.update(got)
        if ignore_merges:
            continue
        # one word, the token itself, which BPE does not build back
        for k, text in enumerate(texts, lo):
            if text and k not in apart and not _builds(structure, by_walk, stored[k], ids[k]):
                apart[k] = (text, [stored[k]], "no merge builds it")
    explain = Explainer(_Components(light, by_id, added), decoding, "", set(added))
    out = []
    for k in sorted(apart):
        text, words, reason = apart[k]
        pieces = _encoded(words, vocab, structure, ignore_merges, by_walk)
        if pieces is None:
            return None  # a character outside the vocab: unknown-token rules, the engine's
        out.append(explain.entry(ids[k], stored[k], text, pieces, reason))
    return out


def _builds(structure: MergeStructure, by_walk: bool, token: str, tid: int) -> bool:
    if by_walk:
        return structure.reachable(tid)
    if len(token) == 1:
        return True  # its own character: BPE has nothing to merge
    return structure.encode_word(token) == [tid]


def _encoded(words: list[str], vocab: dict[str, int], structure: MergeStructure, ignore_merges: bool, by_walk: bool):
    """The ids BPE gives these words, as the engine's model does."""
    out: list[int] = []
    for word in words:
        tid = vocab.get(word)
        if tid is not None and (ignore_merges or (by_walk and structure.reachable(tid))):
            out.append(tid)
            continue
        ids = structure.encode_word(word)
        if ids is None:
            return None
        out.extend(ids)
    return out


_FEW_ADDED = 64  # added tokens looked for one by one below this many


def _added_inside(light, contents: set[str], raw: list[str], normalized: list[str]) -> bool:
    """Whether an added token may split a text (the engine then tells how). With few added
    tokens, whether a text holds one, before or after the normalizer. With many, the
    light tokenizer's own matching: its model has no vocabulary, so every id its encoding
    gives is an added token's (normalized or not, single_word, lstrip... as the engine
    does it). A search for each content in every text took 23 s on gemma3 (6414 of them)."""
    if len(contents) <= _FEW_ADDED:
        return _any_holds(contents, raw) or _any_holds(contents, normalized)
    try:
        encodings = light.encode_batch_fast(raw, add_special_tokens=False)
    except Exception:  # noqa: BLE001 (an engine that refuses: the plain search)
        return _any_holds(contents, raw) or _any_holds(contents, normalized)
    return any(e.ids for e in encodings)


def _any_holds(contents: set[str], texts: list[str]) -> bool:
    """Whether any text holds an added token's content (one pass of a C search each;
    texts hold no NUL, so none is found across two of them)."""
    joined = "\0".join(texts)
    return any(c in joined for c in contents if c)
