"""unreachable-token without loading the model into the engine.

For a tokenizer.json whose model is BPE with ordered merges (merge_structure.py) or with
`ignore_merges`, and which adds no prefix space, the question splits in two:
- does the token's text come out of the normalizer, the added tokens and the pre-tokenizer
  as one word equal to the token? The engine's own components answer, in a tokenizer built
  from the file with an empty model (it loads in a millisecond);
- does BPE build that word back into the token? The merges' structure answers, in one pass.
The entries are those of reachability.unreachable_tokens, with the same reasons and pieces
(`tests/test_reachability_fast.py` holds the two equal on the corpus). On qwen3 this takes
about a third of the engine's load and BPE of 150k words, and never holds the model's few
hundred MB. Anything outside that shape gives None, and the engine decides as before.
"""

from __future__ import annotations

from operator import add, methodcaller

import orjson

from .. import detect, hooks
from ..formats.json_scheme import _types
from .loaded import TokenDecoding
from .merge_structure import MergeStructure
from .reachability import Explainer, token_texts

# normalizers that change a text one character at a time (Lowercase) or as a Unicode
# normalization form; _SEP, a private-use character, is a starter they leave alone
_SEPARABLE = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Sequence"}
_SEP = "\ue000"
_MODEL_KEYS = {"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
               "byte_fallback", "ignore_merges", "vocab", "merges"}


class _Components:
    """What Explainer asks of a tokenizer, from the light one and the file's own ids."""

    def __init__(self, light, by_id: dict[int, str]) -> None:
        self.normalizer, self.pre_tokenizer = light.normalizer, light.pre_tokenizer
        self.id_to_token = by_id.get


def unreachable_by_structure(data: bytes, path: str | None) -> list[dict] | None:
    """reachability.unreachable_tokens' entries for this file, or None when this way does
    not apply (the caller then loads the engine)."""
    if (detect.content_kind(data, path) or detect.name_kind(path)) != "json":
        return None
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    model = obj.get("model") if isinstance(obj, dict) else None
    plain = _plain_bpe(model)
    if plain is None:
        return None
    light = _light_tokenizer(obj, model)
    if light is None:
        return None
    return _unreachable(obj, model, *plain, light)


def _apart(light, obj: dict, stored: list[str], decoding: TokenDecoding, lo: int, hi: int,
           contents: set[str]) -> dict[int, tuple[str, list[str], str | None]] | None:
    """place -> (text, words, reason) for each token in stored[lo:hi] whose text the
    normalizer and pre-tokenizer do not leave as the token alone; None when a text holds an
    added token (the engine tells how it splits). Runs beside the merges' walk
    (core.hooks.beside), so it also decodes the texts and words the reasons."""
    texts = token_texts(stored[lo:hi], decoding)
    picked = [k for k, text in enumerate(texts, lo) if text]
    raw = [texts[k - lo] for k in picked]
    normalized = _normalized(light, obj, raw)
    if contents and (_any_holds(contents, raw) or _any_holds(contents, normalized)):
        return None
    pre = light.pre_tokenizer
    pretokenize = pre.pre_tokenize_str if pre is not None else (lambda n: [(n, (0, len(n)))])
    explain = Explainer(light, decoding, "", set())
    out = {}
    for k, text, n in zip(picked, raw, normalized):
        got = pretokenize(n)
        if len(got) != 1 or got[0][0] != stored[k]:
            out[k] = (text, [w for w, _ in got], explain.reason_of(text, n, [span for _, span in got] if pre else None))
    return out


def _plain_bpe(model) -> tuple[dict[str, int], list[str], list[str]] | None:
    """(vocab, merges' first parts, second parts) of a BPE model whose words are split
    into characters and nothing else (no dropout, no subword prefix or word suffix)."""
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
    if not merges:
        return vocab, [], []
    kinds = set(map(type, merges))
    if kinds == {str}:
        if set(map(methodcaller("count", " "), merges)) != {1}:
            return None  # a part holding a space: the engine's own reading decides
        merges = [m.split(" ") for m in merges]
    elif kinds != {list} or set(map(len, merges)) != {2}:
        return None
    firsts, seconds = map(list, zip(*merges))
    if set(map(type, firsts)) | set(map(type, seconds)) != {str}:
        return None
    return vocab, firsts, seconds


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


def _unreachable(obj: dict, model: dict, vocab: dict[str, int], firsts: list[str], seconds: list[str], light):
    from .load import token_decoding

    decoding = token_decoding(light)
    added = _added_tokens(obj, vocab)
    if added is None or decoding.subword_prefix or decoding.word_suffix:
        return None
    contents = set(added.values())
    decoding = TokenDecoding(decoding.scheme, added_only=frozenset(i for i, c in added.items() if c not in vocab))
    if _words(light, _normalized(light, obj, ["test"])[0]) != ["test"]:
        return None  # a prefix space or a rewrite of plain text: the engine's way («)
    by_id = dict(zip(vocab.values(), vocab))
    # the model's own tokens (an added token's content in the vocab is the added token)
    ids = sorted(set(by_id).difference(added, [vocab[c] for c in contents if c in vocab]))
    stored = list(map(by_id.__getitem__, ids))
    # a child takes most texts while this process reads the merges (0.6 s of 1.5 on qwen3):
    # on two cores both end together; merges that are not ordered stop it unread. With
    # ignore_merges a word in the vocab is its token: the merges only explain the others
    ignore_merges = model.get("ignore_merges") is True
    cut = len(ids) // 2 if ignore_merges else len(ids) * 5 // 6
    theirs = hooks.beside(_apart, light, obj, stored, decoding, 0, cut, contents)
    structure = None
    if ignore_merges:
        if not _all_known(vocab, firsts, seconds):
            return None  # the engine refuses the file: it says why
    else:
        try:
            structure = MergeStructure(vocab, firsts, seconds)
        except ValueError:
            return None
        if not structure.ordered:
            return None
        structure.find_reachable()
    apart = _apart(light, obj, stored, decoding, cut, len(ids), contents)
    got = theirs.result()
    if apart is None or got is None:
        return None
    apart.update(got)
    if structure is None:
        structure = MergeStructure(vocab, firsts, seconds) if apart else None
    else:  # one word, the token itself, which BPE does not build back
        reach = structure.reach
        for k in (k for k, tid in enumerate(ids) if not reach[tid] and k not in apart):
            text = token_texts([stored[k]], decoding)[0]
            if text:
                apart[k] = (text, [stored[k]], "no merge builds it")
    by_id.update(added)
    explain = Explainer(_Components(light, by_id), decoding, "", set(added))
    out = []
    for k in sorted(apart):
        text, words, reason = apart[k]
        pieces = _encoded(words, vocab, structure, ignore_merges)
        if pieces is None:
            return None  # a character outside the vocab: unknown-token rules, the engine's
        out.append(explain.entry(ids[k], stored[k], text, pieces, reason))
    return out


def _encoded(words: list[str], vocab: dict[str, int], structure: MergeStructure | None, ignore_merges: bool):
    """The ids BPE gives these words, as the engine's model does."""
    out: list[int] = []
    for word in words:
        tid = vocab.get(word)
        if tid is not None and (ignore_merges or structure.reachable(tid)):
            out.append(tid)
            continue
        ids = structure.encode_word(word)
        if ids is None:
            return None
        out.extend(ids)
    return out


def _all_known(vocab: dict[str, int], firsts: list[str], seconds: list[str]) -> bool:
    """Every merge's parts and result are vocab tokens (else the engine refuses the file)."""
    known = vocab.__contains__
    return all(map(known, firsts)) and all(map(known, seconds)) and all(map(known, map(add, firsts, seconds)))


def _any_holds(contents: set[str], texts: list[str]) -> bool:
    """Whether any text holds an added token's content (one pass of a C search each)."""
    joined = "\0".join(texts)
    return any(c in joined for c in contents if c)
