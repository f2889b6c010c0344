"""Checks of a SentencePiece `.model` table (docs/formats/sentencepiece.md): the byte
pieces byte_fallback needs, the special ids of the trainer spec, and (with the engine)
the pieces its own encode never produces."""

from __future__ import annotations

from ...decoding.display import quoted as _q
from ...decoding.tokens import SP_SPACE, sp_byte
from ..table import TableFinding, TokenTable

# the type SentencePiece gives the piece of each special id (trainer_interface.cc)
_SPECIAL_TYPE = {
    "unk_id": ("UNKNOWN",),
    "bos_id": ("CONTROL", "USER_DEFINED"),
    "eos_id": ("CONTROL", "USER_DEFINED"),
    "pad_id": ("CONTROL", "USER_DEFINED"),
}


def findings(table: TokenTable) -> list[TableFinding]:
    return byte_pieces(table) + special_ids(table)


def byte_pieces(table: TokenTable) -> list[TableFinding]:
    """spm-byte-pieces: with byte_fallback, a character outside the vocabulary becomes its
    UTF-8 bytes as <0xNN> pieces; a missing one makes the engine emit <unk> instead."""
    if not table.meta.get("byte_fallback"):
        return []
    have = {sp_byte(r.token) for r in table.rows if r.type == "BYTE"}
    missing = [b for b in range(256) if b not in have]
    if not missing:
        return []
    shown = ", ".join(f"<0x{b:02X}>" for b in missing[:8]) + (", …" if len(missing) > 8 else "")
    return [
        TableFinding(
            "spm-byte-pieces",
            f"byte_fallback is on but {len(missing)} of the 256 byte pieces are "
            f"missing ({shown}): those bytes encode as <unk>",
            key="trainer_spec.byte_fallback",
        )
    ]


def special_ids(table: TokenTable) -> list[TableFinding]:
    """special-id: a trainer spec unk/bos/eos/pad id past the pieces, or at a piece of the
    wrong type (unk must be UNKNOWN; bos/eos/pad CONTROL or USER_DEFINED). -1 is "none"."""
    if not table.meta.get("has_trainer_spec"):
        return []
    out = []
    n = len(table.rows)
    for name, types in _SPECIAL_TYPE.items():
        tid = table.meta.get(name)
        if tid is None or tid == -1 and name != "unk_id":
            continue
        key = f"trainer_spec.{name}"
        if not 0 <= tid < n:
            out.append(TableFinding("special-id", f"{name} {tid} is outside the {n} pieces", key=key))
            continue
        row = table.rows[tid]
        if row.type not in types:
            out.append(
                TableFinding(
                    "special-id",
                    f"{name} {tid} is {_q(row.token)}, a {row.type} piece; expected {' or '.join(types)}",
                    id=tid,
                    key=key,
                )
            )
    return out


# ---- unreachable tokens: the engine's own encode of each piece's text -------------------


def unreachable(table: TokenTable) -> list[TableFinding]:
    """unreachable-token: a NORMAL piece whose text does not encode back to that one piece
    (BYTE, CONTROL, UNKNOWN, USER_DEFINED and UNUSED pieces are left out: the engine emits
    those by rule, or never). With add_dummy_prefix the engine puts `▁` before the text:
    a piece starting with `▁` is encoded without it, any other after `«` (whose own pieces
    are dropped), as the prefix-space rule of `unreachable-token` says."""
    if table.source is None:
        return []
    from ...checks.unreachable import message
    from .engine import processor

    sp = processor(table.source)
    prefix = bool(table.meta.get("add_dummy_prefix"))
    # the empty token's rule: a piece that is only the prefix `▁` has no text of its own
    rows = [r for r in table.rows if r.type == "NORMAL" and r.token and not (prefix and r.token == SP_SPACE)]
    texts, marked = [], []
    for r in rows:
        text = r.token.replace(SP_SPACE, " ")
        if prefix and r.token.startswith(SP_SPACE):
            texts.append(text[1:])
            marked.append(False)
        elif prefix:
            texts.append("\u00ab" + text)
            marked.append(True)
        else:
            texts.append(text)
            marked.append(False)
    lead = sp.encode("\u00ab") if prefix else []
    encoded = sp.encode(texts)
    out = []
    for r, ids, m in zip(rows, encoded, marked):
        if m and ids[: len(lead)] == lead:
            ids = ids[len(lead) :]
        if ids == [r.id]:
            continue
        pieces = [{"id": i, "text": _text(table, i)} for i in ids]
        entry = {"id": r.id, "token": r.token, "text": r.data.decode("utf-8", "replace"), "pieces": pieces}
        out.append(TableFinding("unreachable-token", message(entry), id=r.id))
    return out


def _text(table: TokenTable, tid: int) -> str | None:
    if not 0 <= tid < len(table.rows):
        return None
    try:
        return table.rows[tid].data.decode("utf-8")
    except UnicodeDecodeError:
        return None
