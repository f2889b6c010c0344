"""The files of a model folder: which tokenizer a config file belongs to, the config files
beside a tokenizer, and a config file's index (its findings against that tokenizer)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import orjson

from .. import detect
from ..compact_vocab import known_of
from ..disk_cache import FileCache
from ..formats.json.doc import JsonDocument
from ..formats.json.errors import _locate
from ..formats.json.parse import parse_deferring_merges
from ..index.document import DocumentIndex
from ..model import Vocabulary
from .checks import config_findings
from .config_doc import CONFIG_NAMES, ConfigDocument, is_config_name
from .facts import NOT_READ, TokenizerFacts
from .table_facts import facts_of_table, facts_of_table_file

# the tokenizer a folder's config files describe: its tokenizer.json, else a GPT-2 vocabulary,
# else a SentencePiece model (Llama, T5, XLM-R names) or a BERT vocab.txt (plug-in formats)
TOKENIZER_NAMES = tuple(detect.RULES["modelTokenizerNames"])
NO_TOKENIZER = (
    f"not a tokenizer file (a model config file with no tokenizer file beside it: {', '.join(TOKENIZER_NAMES)})"
)


@dataclass
class Folder:
    """What a config file is checked against: the tokenizer and the other config files."""

    facts: TokenizerFacts
    configs: dict[str, ConfigDocument] = field(default_factory=dict)  # by file name


def tokenizer_beside(path: str) -> str | None:
    folder = os.path.dirname(os.path.abspath(path))
    for name in TOKENIZER_NAMES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def configs_beside(path: str) -> list[str]:
    """The config files in the folder of `path` (a tokenizer file), in CONFIG_NAMES order."""
    folder = os.path.dirname(path)  # as the user wrote it: check prints these paths
    return [p for p in (os.path.join(folder, n) for n in CONFIG_NAMES) if os.path.isfile(p)]


def owns_configs(path: str) -> bool:
    """Whether the config files beside `path` describe this tokenizer file (a folder with
    both a tokenizer.json and a vocab.json: the tokenizer.json)."""
    found = tokenizer_beside(path)
    return found is not None and os.path.abspath(found) == os.path.abspath(path)


def facts_of_index(idx: DocumentIndex) -> TokenizerFacts | None:
    if idx.vocab is None:
        table = getattr(idx, "table", None)  # a plug-in format's file (.model, vocab.txt)
        if table is None:
            return None
        return facts_of_table(table, getattr(getattr(idx, "plugin", None), "style", None), idx.path)
    name = os.path.basename(idx.path or "tokenizer.json")
    post = getattr(idx.doc, "post_processor", NOT_READ) if idx.format == "tokenizer.json" else NOT_READ
    if known_of(idx.vocab.tokens) is not None:
        # the table is on its way from the build's child: the tokens and ids the configs
        # name are answered without it (TokenizerFacts), any other waits for it
        return TokenizerFacts(idx.vocab, name, _TokenOfIdWhenAsked(idx), post)
    # the index's lookup without the index: config checks keep their facts for a while, and
    # an index is its whole text (one per keystroke was kept until the edits settled)
    return TokenizerFacts(idx.vocab, name, idx.token_of_id_lookup, post)


class _TokenOfIdWhenAsked:
    """idx.token_of_id_lookup, made the first time an id is asked (it reads the whole
    table); the index is let go of then."""

    def __init__(self, idx: DocumentIndex) -> None:
        self._idx, self._lookup = idx, None

    def __call__(self, tid: int) -> str | None:
        if self._lookup is None:
            self._lookup, self._idx = self._idx.token_of_id_lookup, None
        return self._lookup(tid)


def load_tokenizer_vocab(data: bytes, path: str) -> Vocabulary | None:
    """The vocabulary and added tokens of a tokenizer.json or vocab.json text, without
    checks or merges (a large file's merges are left unparsed)."""
    try:
        obj, merges_span = parse_deferring_merges(data)
    except orjson.JSONDecodeError:
        return None
    if detect.is_tokenizer_json(obj):
        try:
            return JsonDocument(data, obj, "tokenizer.json", merges_span).vocab
        except (AttributeError, KeyError, TypeError, ValueError):  # a shape the checks report
            return None
    if detect.is_vocab_json(obj):
        return JsonDocument(data, obj, "vocab.json").vocab
    return None


def _facts_of_file(path: str) -> TokenizerFacts | None:
    if not path.lower().endswith(".json"):  # tokenizer.model, vocab.txt: a plug-in reads them
        return facts_of_table_file(path)
    with open(path, "rb") as f:
        data = f.read()
    vocab = load_tokenizer_vocab(data, path)
    return TokenizerFacts(vocab, os.path.basename(path)) if vocab is not None else None


# the tokenizer file at a path read for its tokens, kept while the file is unchanged (one
# entry: the folder being worked on)
facts_from_disk = FileCache(_facts_of_file, keep=1).get


def read_config(path: str, text: bytes | None = None) -> ConfigDocument | None:
    """A config file parsed (None when it is not JSON or unreadable)."""
    try:
        if text is None:
            with open(path, "rb") as f:
                text = f.read()
        return ConfigDocument(text, path)
    except (OSError, orjson.JSONDecodeError):
        return None


def load_folder(
    config_path: str, facts: TokenizerFacts | None = None, open_text: Callable[[str], bytes | None] | None = None
) -> Folder | None:
    """The folder a config file is checked in: the tokenizer beside it (`facts`, else read
    from disk) and the other config files (the editor's text when `open_text` has it)."""
    if facts is None:
        tokenizer = tokenizer_beside(config_path)
        facts = facts_from_disk(tokenizer) if tokenizer is not None else None
        if facts is None:
            return None
    here = os.path.basename(config_path).lower()
    configs = {}
    for other in configs_beside(config_path):
        name = os.path.basename(other).lower()
        if name != here:
            doc = read_config(other, open_text(other) if open_text is not None else None)
            if doc is not None:
                configs[name] = doc
    return Folder(facts, configs)


def build_config_index(data: bytes, path: str | None, folder: Folder | None) -> DocumentIndex:
    """A config file's index: its findings against the folder's tokenizer; with no
    tokenizer beside it, not a file this tool reports on."""
    if folder is None or not is_config_name(path):
        return DocumentIndex(data, path, not_tokenizer_reason=NO_TOKENIZER)
    try:
        doc = _parsed(data, path)
    except orjson.JSONDecodeError as err:
        error, _ = _locate(data, err)
        return DocumentIndex(data, path, "config", None, [error], syntax_error=error)
    findings = config_findings(doc, folder.configs, folder.facts) if isinstance(doc.obj, dict) else []
    return DocumentIndex(data, path, "config", doc, findings)


_last_parsed: dict[str, ConfigDocument] = {}


def parse_ahead(data: bytes, path: str) -> None:
    """Parse a config text now, for build_config_index's next call on the same text (a
    caller that waits for something else first spends the wait on it)."""
    try:
        _parsed(data, path)
    except orjson.JSONDecodeError:
        pass  # build_config_index reports it


def _parsed(data: bytes, path: str) -> ConfigDocument:
    """The config text parsed, reusing the last parse of the same text: every edit of the
    tokenizer re-checks the open config files, whose text did not change."""
    last = _last_parsed.get(path)
    if last is not None and (last.data is data or last.data == data):
        return last
    doc = ConfigDocument(data, path)
    doc.build_tables()
    if len(_last_parsed) > 16:
        _last_parsed.clear()
    _last_parsed[path] = doc
    return doc


def config_files_checked(tokenizer_idx: DocumentIndex, path: str, checked: set[str]) -> list[tuple[str, DocumentIndex]]:
    """(path, index) of each config file beside a tokenizer file (read from disk), checked
    against it: what `check tokenizer.json` adds. `checked` holds the absolute paths of
    the config files reported so far (none twice), and of `path` itself."""
    checked.add(os.path.abspath(path))
    if is_config_name(path) or not owns_configs(path):
        return []
    facts = facts_of_index(tokenizer_idx)
    if facts is None:
        return []
    out = []
    for config in configs_beside(path):
        if os.path.abspath(config) in checked:
            continue
        checked.add(os.path.abspath(config))
        try:
            with open(config, "rb") as f:
                data = f.read()
        except OSError:
            continue
        out.append((config, build_config_index(data, config, load_folder(config, facts))))
    return out


def tokenizer_paths(paths: list[str]) -> tuple[list[str], list[str]]:
    """The paths to check, a folder replaced by its tokenizer files; and the folders
    that hold none."""
    out, empty = [], []
    for path in paths:
        if os.path.isdir(path):
            found = tokenizer_files_in(path)
            out.extend(found)
            if not found:
                empty.append(path)
        else:
            out.append(path)
    return out, empty


def tokenizer_files_in(folder: str) -> list[str]:
    """The tokenizer files of a folder (by name), in name order: what `check DIR` checks."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    from ..formats.registry import named

    return [
        os.path.join(folder, n)
        for n in names
        if not is_config_name(n)
        and named(n)  # a plug-in's usual name (detect_rules.json's names)
        and os.path.isfile(os.path.join(folder, n))
    ]
