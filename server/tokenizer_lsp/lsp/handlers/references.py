"""textDocument/references: every merge using the token as a part, the merges producing
it, its added_tokens entry (and its vocab entry with includeDeclaration), in this file and
the paired one, each range the literal itself, in file order."""

from __future__ import annotations

from itertools import chain

import orjson
from lsprotocol import types

from ...core.formats.json.merge_layout import RangeRun
from ...core.model_folder.config_queries import config_occurrences, named_by
from ...core.model_folder.folder import facts_of_index
from ...core.navigation.queries import reference_ranges, references
from ..lsp_types import JsonResult, navigable_piece
from ..paired import config_context, config_snapshots, paired


async def handle(ls, params: types.ReferenceParams) -> JsonResult | None:
    uri = params.text_document.uri
    decl = bool(params.context and params.context.include_declaration)
    config = await config_context(ls, uri, params.position)
    if config is not None:  # a config token: the tokenizer's references, then the config files'
        _, item, (tokenizer_uri, tokenizer) = config
        token = named_by(item, facts_of_index(tokenizer.index))
        if token is None:
            return None
        out = _token_locations(tokenizer_uri, tokenizer, token, decl)
        _then(out, await _in_configs(ls, tokenizer.index, token))
        return JsonResult(orjson.Fragment(_json_array(out)))
    found = await navigable_piece(ls, uri, params.position)
    if found is None:
        return None
    snap, piece = found
    out = _token_locations(uri, snap, piece.token, decl)
    other = await paired(ls, snap, ls.session.path_of(uri))
    if other is not None:
        _then(out, _token_locations(other[0], other[1], piece.token, decl))
    _then(out, await _in_configs(ls, snap.index, piece.token))
    return JsonResult(orjson.Fragment(_json_array(out)))


# The answer is JSON text made of pieces (str: orjson takes a str fragment as it is) that
# are joined once: `▁` has 40k locations, 5 MB, and every copy of that is a fresh mapping
# whose pages fault in (runtime/malloc.py). Each list below is pieces whose concatenation
# is JSON values separated by commas.


def _then(out: list[str], more: list[str]) -> None:
    if out and more:
        out.append(",")
    out += more


def _json_array(pieces: list[str]) -> str:
    return "".join(chain(("[",), pieces, ("]",)))


async def _in_configs(ls, tokenizer, token: str) -> list[str]:
    """The literals naming the token (or its id) in the model config files beside it."""
    out: list[str] = []
    for uri, snap in await config_snapshots(ls, tokenizer.path):
        _then(out, _locations(uri, snap, config_occurrences(snap.index, token, tokenizer.id_of(token))))
    return out


_LOCATION = '{"uri":%s,"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}}'
_HEAD = '{"uri":%s,"range":{"start":{"line":'  # what _LOCATION is made of, for runs
_COLUMN, _END, _CLOSE = ',"character":', '},"end":{"line":', "}}}"


def _token_locations(uri: str, snap, token: str, decl: bool) -> list[str]:
    """The token's references in one file."""
    if snap.spans:  # edits since the index: each range carried through them
        return _locations(uri, snap, references(snap.index, snap.navigation, token, decl))
    quoted, out = orjson.dumps(uri).decode(), []
    for item in reference_ranges(snap.index, snap.navigation, token, decl, snap.encoding):
        if isinstance(item, RangeRun):
            _then(out, _run_pieces(quoted, item))
        else:
            (a, b) = item
            _then(out, [_LOCATION % (quoted, a[0], a[1], b[0], b[1])])
    return out


def _run_pieces(quoted: str, run: RangeRun) -> list[str]:
    """Locations on one line each: the constant pieces shared, the numbers made by one
    C-level pass, all placed by slice assignment (no Python code per location)."""
    n, head = len(run), _HEAD % quoted
    lines = list(map(str, run.lines))
    if isinstance(run.start, int) and isinstance(run.end, int):  # head l mid l tail, ...
        mid, tail = f"{_COLUMN}{run.start}{_END}", f"{_COLUMN}{run.end}{_CLOSE}"
        out = [tail + "," + head] * (4 * n + 1)
        out[0], out[-1] = head, tail
        out[1::4], out[2::4], out[3::4] = lines, [mid] * n, lines
        return out
    # columns that differ: head l , s end l , e close, ...
    starts, ends = ([str(v)] * n if isinstance(v, int) else list(map(str, v)) for v in (run.start, run.end))
    out = [_CLOSE + "," + head] * (8 * n + 1)
    out[0], out[-1] = head, _CLOSE
    out[1::8], out[2::8], out[3::8], out[4::8] = lines, [_COLUMN] * n, starts, [_END] * n
    out[5::8], out[6::8], out[7::8] = lines, [_COLUMN] * n, ends
    return out


def _locations(uri: str, snap, spans) -> list[str]:
    """Locations of byte spans: `Ġ` or `▁` have tens of thousands (a dict or an lsprotocol
    object each costs more than finding them)."""
    ranges = [snap.range_of(s, e) for s, e in spans] if snap.spans else _ranges_fast(snap, spans)
    quoted = orjson.dumps(uri).decode()
    values = [_LOCATION % (quoted, a[0], a[1], b[0], b[1]) for a, b in (r for r in ranges if r is not None)]
    if not values:
        return []
    out = [","] * (2 * len(values) - 1)
    out[0::2] = values
    return out


def _ranges_fast(snap, spans):
    """Positions of many spans in one sorted pass (tens of thousands for `▁`)."""
    return snap.index.lines.span_positions(spans, snap.encoding)
