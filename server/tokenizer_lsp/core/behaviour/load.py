"""Load a tokenizer file into its own engine, exactly as its users would.

- tokenizer.json: `tokenizers.Tokenizer.from_str`.
- vocab.json + merges: `BPE.from_file(vocab, merges)` (tokenizers' own reader of both files,
  so a header, a blank line or a stray BOM mean what they mean there) with a
  ByteLevel(add_prefix_space=False) pre-tokenizer and a ByteLevel decoder (docs/features.md),
  plus the entries of an added_tokens.json beside the vocab.json (core/behaviour/folder_added.py).
- .tiktoken: the ranks read as tiktoken's `load_tiktoken_bpe` reads them, and the split
  pattern of the known encoding the file is (by content or by name), else `pattern`.

A file the engine refuses gets a LoadError saying where and why, from this project's own
checks (line:column and the finding); the engine's message is only the last resort.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile

from .. import detect
from ..decoding.tokens import Scheme
from ..formats.json.scheme import _decoder_prefix, _word_suffix, scheme_of
from ..index.files import companion_vocab_path, file_beside
from .loaded import LoadedTokenizer, LoadError, TokenDecoding

# tiktoken_ext/openai_public.py (tiktoken 0.14): each encoding's expected SHA-256 of its
# .tiktoken file, its rank count and its split pattern. Copied, never downloaded.
_R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
    r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PATTERN = (  # tiktoken joins these alternatives with "|"
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n/]*"""
    r"""|\s*[\r\n]+"""
    r"""|\s+(?!\S)"""
    r"""|\s+"""
)
# openai-whisper's whisper/tokenizer.py (20250625) `get_encoding(name)`: its two asset files,
# whisper/assets/{gpt2,multilingual}.tiktoken, split by this pattern (its gpt2.tiktoken is
# r50k_base's file byte for byte, recognised as that first; by name alone it is whisper's)
_WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
KNOWN_ENCODINGS: dict[str, tuple[str, int, str]] = {
    "r50k_base": ("306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", 50256, _R50K_PATTERN),
    "p50k_base": ("94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069", 50280, _R50K_PATTERN),
    "cl100k_base": ("223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 100256, _CL100K_PATTERN),
    "o200k_base": ("446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 199998, _O200K_PATTERN),
    "multilingual": ("b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126", 50257, _WHISPER_PATTERN),
    "gpt2": ("306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", 50256, _WHISPER_PATTERN),
}
# whisper's, named apart in messages (its special tokens, ids after the ranks, are not in the
# file: encode is tiktoken's encode_ordinary, which never makes them)
WHISPER_ENCODINGS = ("multilingual", "gpt2")


def load_tokenizer(
    data: bytes,
    path: str | None,
    companion: bytes | None = None,
    pattern: str | None = None,
    *,
    companion_path: str | None = None,
) -> LoadedTokenizer:
    """The file's engine. `companion`: the other file of a vocab.json + merges pair (the
    merges for a vocab.json, the vocabulary for a merges file); `pattern`: the split regex
    of a .tiktoken file that is not a known encoding."""
    kind = detect.content_kind(data, path) or detect.name_kind(path)
    if kind == "tiktoken":
        return _load_tiktoken(data, path, pattern)
    if kind == "merges":
        if companion is None:
            raise LoadError(
                f"{_name(path, 'merges.txt')}: a merges file needs its vocabulary: no "
                f"{' or '.join(detect.VOCAB_NAMES)} beside it"
            )
        return _load_pair(companion, data, companion_path, path, source="merges.txt")
    if kind == "json" and detect.name_kind(path) != "json" and not _is_json(data):
        kind = None  # text that merely starts with `[` (`[section]`) is not "invalid JSON"
    if kind == "json":
        if _looks_like_vocab_json(data, path):
            if companion is None:
                raise LoadError(
                    f"{_name(path, 'vocab.json')}: a vocab.json needs its merges: no "
                    f"{' or '.join(detect.MERGES_NAMES)} beside it"
                )
            return _load_pair(data, companion, path, companion_path, source="vocab.json")
        return _load_tokenizer_json(data, path)
    from ..formats.registry import formats_read

    raise LoadError(f"{_name(path, 'the file')}: not a tokenizer file (it reads {formats_read()})")


def _is_json(data: bytes) -> bool:
    import orjson

    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def read_with_companion(path: str) -> tuple[bytes, str | None, bytes | None]:
    """(the file's bytes, the path and bytes of the other file of its vocab.json + merges
    pair, found beside it; None when there is none). OSError when one cannot be read."""
    with open(path, "rb") as f:
        data = f.read()
    other = companion_path_of(data, path)
    companion = None
    if other is not None:
        with open(other, "rb") as f:
            companion = f.read()
    return data, other, companion


def load_tokenizer_file(path: str, pattern: str | None = None) -> LoadedTokenizer:
    """load_tokenizer on a file on disk, with its pair found beside it (OSError when
    unreadable)."""
    data, other, companion = read_with_companion(path)
    return load_tokenizer(data, path, companion, pattern, companion_path=other)


def companion_path_of(data: bytes, path: str | None) -> str | None:
    """The file a vocab.json or merges file loads with: the pair beside it on disk."""
    if not path:
        return None
    kind = detect.content_kind(data, path) or detect.name_kind(path)
    if kind == "merges":
        return companion_vocab_path(path)
    if kind == "json" and _looks_like_vocab_json(data, path):
        return file_beside(path, detect.MERGES_NAMES)
    return None


def token_decoding(engine) -> TokenDecoding:
    """How a tokenizers.Tokenizer's token strings decode, from its own components (the same
    rule the file's hovers follow: core/formats/json/scheme.py)."""

    def state(component):
        return json.loads(component.__getstate__()) if component is not None else None

    model = engine.model
    decoder = state(engine.decoder)
    model_obj = {
        "type": type(model).__name__,
        "byte_fallback": getattr(model, "byte_fallback", False),
        "end_of_word_suffix": getattr(model, "end_of_word_suffix", None) or "",
    }
    obj = {
        "decoder": decoder,
        "pre_tokenizer": state(engine.pre_tokenizer),
        "normalizer": state(engine.normalizer),
        "model": model_obj,
    }
    prefix = getattr(model, "continuing_subword_prefix", None) or _decoder_prefix(decoder)
    added_only = frozenset(
        i for i, tok in engine.get_added_tokens_decoder().items() if model.token_to_id(tok.content) is None
    )
    return TokenDecoding(scheme_of(obj), prefix or "", _word_suffix(model_obj, decoder), added_only)


# ---- tokenizer.json and vocab.json + merges ----------------------------------------------


def _load_tokenizer_json(data: bytes, path: str | None) -> LoadedTokenizer:
    from tokenizers import Tokenizer

    try:
        engine = Tokenizer.from_str(data.decode("utf-8"))
    except Exception as e:  # noqa: BLE001 (tokenizers raises a bare Exception; bad UTF-8 UnicodeDecodeError)
        raise LoadError(_refusal([(data, path, "tokenizer.json", None)], path, str(e))) from None
    return LoadedTokenizer("tokenizers", engine, source="tokenizer.json", decoding=token_decoding(engine))


def _load_pair(
    vocab: bytes, merges: bytes, vocab_path: str | None, merges_path: str | None, source: str
) -> LoadedTokenizer:
    from tokenizers import Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE

    try:
        with tempfile.TemporaryDirectory(prefix="tokenizer-lsp-") as tmp:
            v, m = os.path.join(tmp, "vocab.json"), os.path.join(tmp, "merges.txt")
            with open(v, "wb") as f:
                f.write(vocab)
            with open(m, "wb") as f:
                f.write(merges)
            model = BPE.from_file(v, m)
    except Exception as e:  # noqa: BLE001 (tokenizers raises a bare Exception)
        from ..index.build import load_vocabulary

        def vocabulary():
            return load_vocabulary(vocab, vocab_path)

        raise LoadError(
            _refusal(
                [(vocab, vocab_path, "vocab.json", None), (merges, merges_path, "merges.txt", vocabulary)], None, str(e)
            )
        ) from None
    engine = Tokenizer(model)
    engine.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    engine.decoder = decoders.ByteLevel()
    from .folder_added import add_folder_tokens

    added_only, notes = add_folder_tokens(engine, vocab_path)  # a slow folder's added_tokens.json
    return LoadedTokenizer(
        "tokenizers",
        engine,
        source=source,
        decoding=TokenDecoding(Scheme.BYTE_LEVEL, added_only=added_only),
        notes=notes,
    )


def _looks_like_vocab_json(data: bytes, path: str | None) -> bool:
    """A token -> id object (GPT-2's vocab.json / encoder.json), told from a tokenizer.json by
    its name or by its first entry (HF writes `"version": "1.0"` or another key first)."""
    base = os.path.basename(path or "").lower()
    if base in detect.VOCAB_NAMES:
        return True
    return detect._VOCAB_START.match(data[: detect.RULES["sniffBytes"]]) is not None


# ---- .tiktoken ---------------------------------------------------------------------------


def _load_tiktoken(data: bytes, path: str | None, pattern: str | None) -> LoadedTokenizer:
    import tiktoken

    ranks = _tiktoken_ranks(data, path)
    name = _known_encoding(data, ranks, path)
    if name is None and not pattern:
        raise LoadError(
            f"{_name(path, 'the file')}: not one of the known tiktoken encodings "
            f"({known_encodings_said()}) by name or content, so its split pattern is "
            "unknown: give it with --pattern REGEX"
        )
    pat = pattern or KNOWN_ENCODINGS[name][2]
    try:
        engine = tiktoken.Encoding(
            name or os.path.basename(path or "custom"), pat_str=pat, mergeable_ranks=ranks, special_tokens={}
        )
    except Exception as e:  # noqa: BLE001 (a pattern fancy-regex refuses, a rank beyond u32)
        what = "--pattern is not a regular expression tiktoken accepts" if pattern else "tiktoken refuses the ranks"
        raise LoadError(f"{_name(path, 'the file')}: {what}: {e}") from None
    return LoadedTokenizer("tiktoken", engine, ranks=ranks, pattern=pat, encoding_name=name, source="tiktoken")


def _tiktoken_ranks(data: bytes, path: str | None) -> dict[bytes, int]:
    """bytes -> rank, as tiktoken.load.load_tiktoken_bpe reads a file (same loop)."""
    ranks: dict[bytes, int] = {}
    b64decode = base64.b64decode
    try:
        for line in data.splitlines():
            if not line:
                continue
            token, rank = line.split()
            ranks[b64decode(token)] = int(rank)
    except Exception as e:  # noqa: BLE001 (what tiktoken's loader would raise, said our way)
        raise LoadError(
            _refusal([(data, path, "the file", None)], path, f"its loader fails: {e}", "tiktoken")
        ) from None
    if not ranks:
        raise LoadError(f"{_name(path, 'the file')}: no ranks: the file is empty")
    return ranks


def _known_encoding(data: bytes, ranks: dict[bytes, int], path: str | None) -> str | None:
    """The known encoding this file is: its SHA-256 (tiktoken's own check), else the same
    ranks written another way (line ends, spacing, order: the canonical text's SHA-256),
    else its name (`cl100k_base.tiktoken`, `o200k_base (1).tiktoken`)."""
    digest = hashlib.sha256(data).hexdigest()
    for name, (sha, _, _) in KNOWN_ENCODINGS.items():
        if digest == sha:
            return name
    same_size = [name for name, (_, n, _) in KNOWN_ENCODINGS.items() if n == len(ranks)]
    if same_size:
        canonical = b"".join(
            b"%s %d\n" % (base64.b64encode(t), r) for t, r in sorted(ranks.items(), key=lambda kv: kv[1])
        )
        digest = hashlib.sha256(canonical).hexdigest()
        for name in same_size:
            if digest == KNOWN_ENCODINGS[name][0]:
                return name
    stem = os.path.basename(path or "").lower()
    for name in KNOWN_ENCODINGS:
        if name in stem:
            return name
    return None


def known_encodings_said() -> str:
    """The known encodings as an error message names them."""
    openai = [n for n in KNOWN_ENCODINGS if n not in WHISPER_ENCODINGS]
    return f"{', '.join(openai)}; whisper's {' and '.join(f'{n}.tiktoken' for n in WHISPER_ENCODINGS)}"


# ---- where and why a file is refused -----------------------------------------------------


def _refusal(files, path: str | None, engine_message: str, engine: str = "tokenizers") -> str:
    """Our own error findings (json-syntax, schema, merge-unknown-token, tiktoken-malformed...)
    with line:column, for each file; the engine's own words only when we found nothing."""
    from ..index.build import build_index

    lines: list[str] = []
    total = 0
    for data, file_path, default_name, vocabulary in files:
        name = _name(file_path, default_name)
        idx = build_index(data, file_path, companion=vocabulary)
        if not idx.is_tokenizer:
            lines.append(f"{name}: {idx.not_tokenizer_reason}")
            total += 1
            continue
        errors = [f for f in idx.findings if f.severity == "error"]
        total += len(errors)
        for f in errors[: 3 - min(3, len(lines))]:
            line, col = idx.lines.position(f.start, "utf-32")
            lines.append(f"{name}:{line + 1}:{col + 1}: {f.code}: {f.message}")
    if not lines:
        return f"{_name(path, 'the file')}: {engine} cannot load it: {engine_message}"
    more = f" (and {total - len(lines)} more errors: run `tokenizer-lsp check`)" if total > len(lines) else ""
    return "; ".join(lines) + more


def _name(path: str | None, default: str) -> str:
    return path if path else default
