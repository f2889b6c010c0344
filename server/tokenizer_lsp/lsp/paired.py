"""The other file of a pair: a merges file's vocab.json, a vocab.json's merges file.

The editor's text when that file is open (its navigation snapshot), else the file on
disk, indexed once per modification (in the navigator thread) and kept while unchanged.
"""

from __future__ import annotations

import os

from pygls.uris import from_fs_path

from ..core.detect import MERGES_NAMES, is_chat_template_name
from ..core.disk_cache import FileCache
from ..core.index.document import DocumentIndex
from ..core.index.files import companion_vocab_path, file_beside, index_file
from ..core.model_folder.chat_template_file import FORMAT as TEMPLATE_FORMAT
from ..core.model_folder.chat_template_file import TemplateDocument, anchor
from ..core.model_folder.config_doc import ConfigDocument, is_config_name
from ..core.model_folder.folder import (
    Folder,
    configs_beside,
    facts_of_index,
    load_folder,
    owns_configs,
    tokenizer_beside,
)
from ..core.navigation.build import Navigation, build_navigation
from .snapshot import Snapshot
from .work import Mode, off_loop


def paired_path(snap: Snapshot, path: str | None) -> str | None:
    if not path:
        return None
    if snap.index.format == "merges.txt":
        return companion_vocab_path(path)
    if snap.index.format == "vocab.json":
        return file_beside(path, MERGES_NAMES)
    if snap.index.format == "config":  # a model folder's config file: its tokenizer
        return tokenizer_beside(path)
    if snap.index.format == TEMPLATE_FORMAT:  # a chat template file: its model folder's tokenizer
        return tokenizer_beside(anchor(path))
    return None


async def paired(ls, snap: Snapshot, path: str | None) -> tuple[str, Snapshot] | None:
    """(uri, snapshot) of the file paired with the one at `path`, if any."""
    other = paired_path(snap, path)
    if other is None:
        return None
    session = ls.session
    want = os.path.abspath(other)
    uri = session.uri_of_path(want)
    if uri is not None:
        found = await session.navigation_snapshot(uri)
        return (uri, found) if found is not None else None
    found = await off_loop(Mode.LATENCY, None, _disk_index, want, pool=ls.scheduler.navigator)
    if found is None:
        return None
    idx, navigation = found
    return from_fs_path(want) or ("file://" + want), Snapshot(idx, (), session.encoding, session.settings, navigation)


def _indexed_from_disk(path: str) -> tuple[DocumentIndex, Navigation | None] | None:
    """(index, its navigation lookups) of a file on disk."""
    idx = index_file(path)  # a merges file with the vocabulary beside it
    if idx.doc is None:
        return None
    idx.prepare_lookups()
    return idx, build_navigation(idx)


_disk_indexes = FileCache(_indexed_from_disk)
_disk_index = _disk_indexes.get


# ---- the model folder: config files and the tokenizer they describe ----------------------


def config_folder(session, config_path: str | None) -> Folder | None:
    """What a config file is checked against: the tokenizer beside it as the editor has it
    (open, its newest index) or on disk, and the folder's other config files."""
    tokenizer = tokenizer_beside(config_path) if config_path else None
    if tokenizer is None:
        return None
    doc = session.document_at(tokenizer)
    found = doc.served.serving(lookups=False, tokenizer=True) if doc is not None else None
    idx = found[0] if found is not None and found[0].vocab is not None else None
    return load_folder(config_path, facts_of_index(idx) if idx is not None else None, session.open_text)


async def config_snapshots(ls, tokenizer_path: str | None) -> list[tuple[str, Snapshot]]:
    """(uri, snapshot) of the config files beside a tokenizer file: the editor's when open."""
    if not tokenizer_path or is_config_name(tokenizer_path) or not owns_configs(tokenizer_path):
        return []
    session, out = ls.session, []
    for path in configs_beside(tokenizer_path):
        doc = session.document_at(path)
        snap = await session.first_snapshot(doc.uri) if doc is not None else None
        if snap is None:
            idx = await off_loop(Mode.LATENCY, None, _disk_config, path, pool=ls.scheduler.navigator)
            uri = from_fs_path(os.path.abspath(path)) or ("file://" + os.path.abspath(path))
            snap = Snapshot(idx, (), session.encoding, session.settings) if idx is not None else None
        else:
            uri = doc.uri
        if snap is not None and isinstance(snap.index.doc, ConfigDocument):
            out.append((uri, snap))
    return out


def _config_from_disk(path: str) -> DocumentIndex | None:
    """A config file on disk, parsed for its token literals."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = ConfigDocument(data, path)
    except ValueError:
        return None
    doc.build_tables()
    return DocumentIndex(data, path, "config", doc)


_disk_configs = FileCache(_config_from_disk)
_disk_config = _disk_configs.get  # (kept while unchanged)


async def config_context(ls, uri: str, position):
    """On a token or id literal of a config file, or a special-token literal of a chat
    template file: (its snapshot, the literal, (uri, snapshot) of the tokenizer beside it);
    else None."""
    path = ls.session.path_of(uri)
    if path is None or not (is_config_name(path) or is_chat_template_name(path)):
        return None
    snap = await ls.session.first_snapshot(uri)
    if snap is None or not isinstance(snap.index.doc, (ConfigDocument, TemplateDocument)):
        return None
    offset = snap.offset_at((position.line, position.character))
    item = snap.index.doc.item_at(offset) if offset is not None else None
    tokenizer = await paired(ls, snap, path) if item is not None else None
    return (snap, item, tokenizer) if tokenizer is not None else None


def closed_config_diagnostics(session, path: str) -> list[tuple[str, str, list[dict]]]:
    """(path, uri, diagnostics) of the config files beside the tokenizer at (or beside)
    `path` that are not open: checked against it while it is open, cleared once it is not."""
    from ..core.model_folder.folder import build_config_index, parse_ahead
    from .render.diagnostics import diagnostics_for

    tokenizer = tokenizer_beside(path) if is_config_name(path) else path
    if tokenizer is None or not owns_configs(tokenizer):
        return []
    tokenizer_open = session.document_at(tokenizer) is not None
    out = []
    for config in configs_beside(tokenizer):
        if session.document_at(config) is not None:
            continue  # published as its own document
        uri = from_fs_path(os.path.abspath(config)) or ("file://" + os.path.abspath(config))
        diags: list[dict] = []
        if tokenizer_open:
            try:
                with open(config, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            # parsed before the tokenizer's facts are asked for: right after a large file's
            # first findings its token table is still on its way from the build's child,
            # and this parse (gemma3's config: 0.4-0.9 s) fits in that wait
            parse_ahead(data, config)
            idx = build_config_index(data, config, config_folder(session, config))
            diags = diagnostics_for(idx, session.settings, session.encoding) if idx.is_tokenizer else []
        out.append((config, uri, diags))
    return out
