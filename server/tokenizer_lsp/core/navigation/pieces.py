"""What a token literal under the cursor is: resolved parts, decoded bytes, ids."""

from __future__ import annotations

from dataclasses import dataclass

from ..decoding.tokens import Decoded, Scheme, decode_token
from ..formats.json.doc import TokenRef
from ..index.document import DocumentIndex


@dataclass(frozen=True)
class Piece:
    """One token as shown to a person: a vocab key, an added token, a merge part, a rank line."""

    start: int  # source range of the piece (a part of a string merge is a sub-range)
    end: int
    token: str
    decoded: Decoded
    token_id: int | None
    role: str  # vocab | added | merge | tiktoken
    rank: int | None = None
    part: int | None = None
    merge: tuple[str, str] | None = None


def pieces(idx: DocumentIndex, ref: TokenRef) -> list[Piece]:
    """The pieces of a literal: one, or two for a "a b" merge written as one string."""
    v = idx.vocab
    if v is None:
        return []
    if ref.role == "tiktoken":
        try:
            d = decode_token(ref.token, Scheme.RAW_BYTES)
        except ValueError:
            return []
        return [Piece(ref.start, ref.end, ref.token, d, ref.rank, "tiktoken")]
    if ref.role == "merge":
        pair = idx.merge_at(ref.rank) if ref.rank is not None else None
        if ref.part is not None:
            return [_merge_piece(idx, ref.start, ref.end, ref.token, ref.rank, ref.part, pair)]
        if pair is None:
            return []
        # a whole "a b" string literal: split its source range at the separating space
        inner = ref.start + 1 if idx.data[ref.start : ref.start + 1] == b'"' else ref.start
        sep = idx.data.find(b" ", inner, ref.end)
        closing = ref.end - 1 if idx.data[ref.end - 1 : ref.end] == b'"' and inner != ref.start else ref.end
        return [
            _merge_piece(idx, inner, sep, pair[0], ref.rank, 0, pair),
            _merge_piece(idx, sep + 1, closing, pair[1], ref.rank, 1, pair),
        ]
    in_vocab = ref.role == "vocab" or ref.token in v.tokens
    return [Piece(ref.start, ref.end, ref.token, v.decode(ref.token, in_vocab), v.id_of(ref.token), ref.role)]


def _merge_piece(idx, start, end, token, rank, part, pair) -> Piece:
    v = idx.vocab
    return Piece(start, end, token, v.decode(token), v.tokens.get(token), "merge", rank, part, pair)


def piece_at(idx: DocumentIndex, offset: int) -> Piece | None:
    ref = idx.token_at(offset)
    if ref is None:
        return None
    ps = pieces(idx, ref)
    for p in ps:
        if p.start <= offset < p.end:
            return p
    # on a quote or the separating space: the nearest piece
    return min(ps, key=lambda p: min(abs(offset - p.start), abs(offset - p.end)), default=None)
