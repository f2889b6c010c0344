"""ServedIndexes.serving (lsp/documents.py): the one rule of which index answers a request,
used by hovers (lookups needed), commands (the whole vocabulary) and a config file's checks
against the tokenizer beside it. Stand-in indexes: only the properties the rule reads."""

from __future__ import annotations

from dataclasses import dataclass

from tokenizer_lsp.lsp.documents import ServedIndexes


@dataclass
class _Idx:
    name: str
    salvaged: bool = False
    lookups_ready: bool = True
    is_tokenizer: bool = True
    doc: object = True


def _served(index=None, good=None) -> ServedIndexes:
    s = ServedIndexes()
    s.index, s.indexed_version = index, 3 if index is not None else None
    if good is not None:
        s.good, s.good_version = good, 2
    return s


def test_the_newest_whole_index_answers():
    new = _Idx("new")
    assert _served(new, _Idx("old")).serving() == (new, 3)


def test_a_salvaged_index_gives_way_to_a_whole_one():
    old = _Idx("old")
    assert _served(_Idx("salvaged", salvaged=True), old).serving() == (old, 2)
    salvaged = _Idx("salvaged", salvaged=True)
    assert _served(salvaged).serving() == (salvaged, 3)  # nothing better


def test_an_index_without_its_lookups_answers_only_commands_and_only_alone():
    building, old = _Idx("building", lookups_ready=False), _Idx("old")
    assert _served(building, old).serving() == (old, 2)
    assert _served(building, old).serving(lookups=False) == (old, 2)
    assert _served(building).serving() is None
    assert _served(building).serving(lookups=False) == (building, 3)


def test_a_command_about_the_vocabulary_wants_a_tokenizer():
    config, tok = _Idx("config", is_tokenizer=False), _Idx("tok")
    assert _served(config, tok).serving(tokenizer=True) == (tok, 2)
    assert _served(config, tok).serving() == (config, 3)


def test_an_index_that_parsed_nothing_never_answers():
    assert _served(_Idx("broken", doc=None)).serving(lookups=False) is None
