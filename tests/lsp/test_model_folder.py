"""The model folder: config files beside a tokenizer (tokenizer_config.json,
special_tokens_map.json, generation_config.json, config.json, added_tokens.json) checked
against it, by `check` and by the server, and navigation from their tokens and ids.

Expected ids come from HF `tokenizers` itself (`Tokenizer.token_to_id`), expected lines
and columns from the config text; a defect is one edited value in a copy of a real folder.
"""

import asyncio
import json
import shutil

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from tokenizer_lsp.cli import main as cli
from tokenizer_lsp.core.index.build import build_index
from tokenizers import Tokenizer

from tests.conftest import corpus_file
from tests.lsp.harness import capabilities, share_session

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run", "cli_main_in_process")

FOLDERS = ("qwen3", "llama3", "gemma3", "llama2")


def check(*paths, capsys) -> tuple[int, list[dict]]:
    code = cli(["check", "--format", "json", *map(str, paths)])
    return code, json.loads(capsys.readouterr().out or "[]")


def copy_folder(tmp_path, name: str):
    """A writable copy of a real model folder (its tokenizer.json and tokenizer_config.json)."""
    src = corpus_file(f"{name}/tokenizer_config.json").parent
    dst = tmp_path / name
    dst.mkdir()
    for f in src.iterdir():
        shutil.copyfile(f, dst / f.name)
    return dst


def line_of(text: str, needle: str, after: str = "") -> int:
    """0-based line of the first `needle` (after the first `after`)."""
    return text.count("\n", 0, text.index(needle, text.index(after) if after else 0))


def edit_json(path, change) -> str:
    obj = json.loads(path.read_text(encoding="utf-8"))
    change(obj)
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return text


def only(rows, path) -> list[tuple[str, int]]:
    """The findings of one file; what a folder's chat template renders (chat-template-* but
    -token) is tests/chat's, held to transformers there."""
    return [
        (r["code"], r["range"]["start"]["line"])
        for r in rows
        if r["path"] == str(path) and (not r["code"].startswith("chat-template-") or r["code"] == "chat-template-token")
    ]


_ids: dict = {}


def tid(folder, token: str) -> int:
    if folder not in _ids:
        _ids[folder] = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return _ids[folder].token_to_id(token)


# ---- real folders ----------------------------------------------------------------------


@pytest.mark.parametrize("name", FOLDERS)
def test_real_config_files_give_no_error_or_warning(name, capsys):
    """The config files agree with their tokenizers (the corpus README's fact). What their chat
    templates do is held to transformers in tests/chat/test_checks.py (llama3's template ends
    turns on a token its eos_token is not)."""
    config = corpus_file(f"{name}/tokenizer_config.json")
    code, rows = check(config, capsys=capsys)
    rows = [r for r in rows if not r["code"].startswith("chat-template-") or r["code"] == "chat-template-token"]
    assert [r for r in rows if r["severity"] in ("error", "warning")] == []


@pytest.mark.parametrize("name", ("qwen3", "llama2"))
def test_check_a_real_folder(name, capsys):
    folder = corpus_file(f"{name}/tokenizer.json").parent
    code, rows = check(folder, capsys=capsys)
    rows = [r for r in rows if not r["code"].startswith("chat-template-") or r["code"] == "chat-template-token"]
    assert code == 0 and not [r for r in rows if r["severity"] in ("error", "warning")]
    assert {r["path"] for r in rows} <= {str(folder / "tokenizer.json"), str(folder / "tokenizer_config.json")}


# ---- one defect per code, at its file and line -------------------------------------------


def test_config_token_missing_string_and_added_token_object(tmp_path, capsys):
    folder = copy_folder(tmp_path, "llama2")
    config = folder / "tokenizer_config.json"
    text = edit_json(
        config,
        lambda o: o.update(
            eos_token="</S>",
            unk_token={
                "__type": "AddedToken",
                "content": "<UNK>",
                "lstrip": False,
                "normalized": True,
                "rstrip": False,
                "single_word": False,
            },
        ),
    )
    code, rows = check(config, capsys=capsys)
    assert code == 1
    assert only(rows, config) == [
        ("config-token-missing", line_of(text, '"eos_token"')),
        ("config-token-missing", line_of(text, '"unk_token"')),
    ]
    unk = next(r for r in rows if "<UNK>" in r["message"])
    # an entry written as an object: from its key to its closing brace
    assert unk["range"]["end"]["line"] == line_of(text, "}", '"unk_token"')
    assert "tokenizer.json" in unk["message"] and "unk_token" in unk["message"]


def test_added_token_objects_that_name_real_tokens_are_fine(tmp_path, capsys):
    folder = copy_folder(tmp_path, "llama2")

    def added(content):
        return {
            "__type": "AddedToken",
            "content": content,
            "lstrip": False,
            "normalized": True,
            "rstrip": False,
            "single_word": False,
        }

    edit_json(folder / "tokenizer_config.json", lambda o: o.update(bos_token=added("<s>"), eos_token=added("</s>")))
    (folder / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": added("<s>"), "eos_token": added("</s>"), "unk_token": added("<unk>")}, indent=2)
    )
    code, rows = check(folder, capsys=capsys)
    assert code == 0 and [r for r in rows if r["severity"] in ("error", "warning")] == []


def test_added_tokens_decoder_key_that_is_not_the_tokens_id(tmp_path, capsys):
    folder = copy_folder(tmp_path, "qwen3")
    config = folder / "tokenizer_config.json"
    im_end = tid(folder, "<|im_end|>")

    def shift(o):
        dec = o["added_tokens_decoder"]
        dec[str(im_end + 100)] = dec.pop(str(im_end))

    text = edit_json(config, shift)
    code, rows = check(config, capsys=capsys)
    assert code == 1 and only(rows, config) == [("config-id-mismatch", line_of(text, f'"{im_end + 100}"'))]
    msg = rows[0]["message"]
    assert f"is id {im_end} in tokenizer.json" in msg and str(im_end + 100) in msg and "<|im_end|>" in msg
    assert rows[0]["range"]["end"]["line"] == line_of(text, "}", f'"{im_end + 100}"')


def test_generation_config_ids_against_the_named_tokens(tmp_path, capsys):
    folder = copy_folder(tmp_path, "qwen3")
    im_end, endoftext = tid(folder, "<|im_end|>"), tid(folder, "<|endoftext|>")
    gen = folder / "generation_config.json"
    # eos_token is <|im_end|>: a single eos id must be its id, even when it is another real token
    gen.write_text(
        json.dumps({"bos_token_id": endoftext, "eos_token_id": endoftext, "pad_token_id": endoftext}, indent=2)
    )
    code, rows = check(gen, capsys=capsys)
    text = gen.read_text()
    assert code == 1 and only(rows, gen) == [("config-id-mismatch", line_of(text, '"eos_token_id"'))]
    assert rows[0]["message"] == (
        f"eos_token `<|im_end|>` is id {im_end} in tokenizer.json, but "
        f"generation_config.json eos_token_id is {endoftext} (`<|endoftext|>`)"
    )


@pytest.mark.parametrize(
    "ids,want",
    [
        ("ok", []),
        ("unknown", ["element"]),  # one of the list is no token
        ("without", ["entry"]),  # the named token's id is not in the list
    ],
)
def test_id_lists(tmp_path, capsys, ids, want):
    folder = copy_folder(tmp_path, "llama2")
    eos, bos = tid(folder, "</s>"), tid(folder, "<s>")
    size = Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab_size(with_added_tokens=True)
    value = {"ok": [bos, eos], "unknown": [eos, size + 5], "without": [bos, 0]}[ids]
    gen = folder / "generation_config.json"
    gen.write_text(f'{{\n  "bos_token_id": {bos},\n  "eos_token_id": [\n    {value[0]},\n    {value[1]}\n  ]\n}}\n')
    code, rows = check(gen, capsys=capsys)
    text = gen.read_text()
    lines = {
        "element": lambda: text.count("\n", 0, text.index(str(size + 5))),
        "entry": lambda: line_of(text, '"eos_token_id"'),
    }
    assert only(rows, gen) == [("config-id-mismatch", lines[kind]()) for kind in want]
    assert code == (1 if want else 0)


@pytest.mark.parametrize("delta,want", [(-1, "error"), (0, None), (64, "information")])
def test_vocab_size_below_equal_above(tmp_path, capsys, delta, want):
    folder = copy_folder(tmp_path, "llama2")
    ids = [
        tid(folder, t) for t in Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab(with_added_tokens=True)
    ]
    size = max(ids) + 1 + delta
    config = folder / "config.json"
    config.write_text(
        json.dumps(
            {"architectures": ["LlamaForCausalLM"], "eos_token_id": tid(folder, "</s>"), "vocab_size": size}, indent=2
        )
    )
    code, rows = check(config, capsys=capsys)
    got = [(r["code"], r["severity"], r["range"]["start"]["line"]) for r in rows]
    assert got == ([] if want is None else [("vocab-size", want, line_of(config.read_text(), '"vocab_size"'))])
    assert code == (1 if want == "error" else 0)


@pytest.mark.parametrize("good,bad", [("<|im_start|>", "<|im_strat|>"), ("<tool_call>", "<tool_cal>")])
def test_chat_template_token(tmp_path, capsys, good, bad):
    folder = copy_folder(tmp_path, "qwen3")
    config = folder / "tokenizer_config.json"
    raw = config.read_text(encoding="utf-8")
    # one literal misspelt in the template (its last use); its prose (`<tools>`,
    # `<function-name>`) is not a token either, and not flagged
    template = json.loads(raw)["chat_template"]
    i = template.rindex(good)
    text = raw.replace(
        json.dumps(template, ensure_ascii=False)[1:-1],
        json.dumps(template[:i] + bad + template[i + len(good) :], ensure_ascii=False)[1:-1],
    )
    assert text != raw and Tokenizer.from_file(str(folder / "tokenizer.json")).token_to_id(bad) is None
    config.write_text(text, encoding="utf-8")
    code, rows = check(config, capsys=capsys)
    # what the misspelt template renders is the other chat-template codes' (tests/chat)
    rows = [r for r in rows if r["code"] == "chat-template-token"]
    literal = text.index(bad)
    line = text.count("\n", 0, literal)
    col = literal - text.rfind("\n", 0, literal) - 1
    assert code == 0 and [
        (
            r["code"],
            r["severity"],
            r["range"]["start"]["line"],
            r["range"]["start"]["character"],
            r["range"]["end"]["character"],
        )
        for r in rows
    ] == [("chat-template-token", "warning", line, col, col + len(bad))]
    assert good in rows[0]["message"]  # the near miss it probably meant


def test_added_tokens_json(tmp_path, capsys):
    folder = copy_folder(tmp_path, "llama2")
    added = folder / "added_tokens.json"
    added.write_text(json.dumps({"<s>": tid(folder, "<s>"), "</s>": 7, "<pad>": 32000}, indent=2))
    code, rows = check(added, capsys=capsys)
    text = added.read_text()
    assert code == 1
    assert only(rows, added) == [
        ("config-id-mismatch", line_of(text, '"</s>"')),
        ("config-token-missing", line_of(text, '"<pad>"')),
    ]


# ---- folders and lone config files -----------------------------------------------------------


def test_check_dir_and_check_tokenizer_report_the_config_files(tmp_path, capsys):
    folder = copy_folder(tmp_path, "llama2")
    config = folder / "tokenizer_config.json"
    text = edit_json(config, lambda o: o.update(eos_token="</S>"))
    for target in (folder, folder / "tokenizer.json"):
        code, rows = check(target, capsys=capsys)
        assert code == 1 and only(rows, config) == [("config-token-missing", line_of(text, '"eos_token"'))]
    # named as well: reported once
    code, rows = check(folder / "tokenizer.json", config, capsys=capsys)
    assert len(only(rows, config)) == 1
    # text output: its own path and 1-based line
    assert cli(["check", str(folder)]) == 1
    line = line_of(text, '"eos_token"') + 1
    assert f"{config}:{line}:3: error config-token-missing" in capsys.readouterr().out


def test_config_file_alone_is_not_reported(tmp_path, capsys):
    lone = tmp_path / "tokenizer_config.json"
    lone.write_text(json.dumps({"eos_token": "<nothing>", "added_tokens_decoder": {"5": {"content": "x"}}}))
    assert build_index(lone.read_bytes(), str(lone)).findings == []
    assert cli(["check", str(lone)]) == 2 and "not a tokenizer file" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli(["check", str(empty)]) == 2 and "no tokenizer file" in capsys.readouterr().err


def test_broken_config_json_is_json_syntax(tmp_path, capsys):
    folder = copy_folder(tmp_path, "llama2")
    config = folder / "tokenizer_config.json"
    config.write_text('{\n  "eos_token": "</s>",\n  "bos_token": \n}\n')
    code, rows = check(config, capsys=capsys)
    assert code == 1 and [(r["code"], r["range"]["start"]["line"]) for r in rows] == [("json-syntax", 3)]


# ---- the server ------------------------------------------------------------------------------


async def _prepare(lsp_client: LanguageClient) -> None:
    lsp_client.published = {}
    default = lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def recording(params):
        lsp_client.published.setdefault(params.uri, []).append(params.diagnostics)
        return default(params)

    lsp_client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        return None

    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))


# one server for the module's server tests (each starts with nothing open, nothing recorded)
client = share_session(_prepare, key="model-folder")


def open_file(client, path, text=None) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8") if text is None else text
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    return uri, text


async def published(client, uri, count=1, timeout=30.0) -> list:
    """The `count`-th publication for uri (waiting for it)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while len(client.published.get(uri, [])) < count:
        if loop.time() > end:
            raise AssertionError(f"no publication {count} for {uri}")
        await asyncio.sleep(0.05)
    return client.published[uri][count - 1]


def pos(text: str, needle: str, after: str = "", inside: int = 1) -> types.Position:
    i = text.index(needle, text.index(after) if after else 0) + inside
    line = text.count("\n", 0, i)
    return types.Position(line, len(text[text.rfind("\n", 0, i) + 1 : i].encode("utf-16-le")) // 2)


def at(loc) -> tuple[int, int]:
    return loc.range.start.line, loc.range.start.character


@pytest.mark.parametrize("name", ("qwen3", "llama2"))
async def test_server_real_config_has_no_error_or_warning(client, name):
    uri, _ = open_file(client, corpus_file(f"{name}/tokenizer_config.json"))
    diags = await published(client, uri)
    # the chat template's own findings are held to transformers in tests/chat
    diags = [d for d in diags if not str(d.code).startswith("chat-template-") or d.code == "chat-template-token"]
    assert [d for d in diags if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)] == []


async def test_server_config_findings_follow_the_tokenizer(client, tmp_path):
    folder = copy_folder(tmp_path, "llama2")
    config = folder / "tokenizer_config.json"
    text = edit_json(config, lambda o: o.update(eos_token="</S>"))
    uri, _ = open_file(client, config)
    diags = await published(client, uri)
    assert [(d.code, d.range.start.line) for d in diags] == [("config-token-missing", line_of(text, '"eos_token"'))]
    # the open tokenizer.json edited (unsaved): `</s>` renamed `</S>` in its added_tokens
    turi, ttext = open_file(client, folder / "tokenizer.json")
    await published(client, turi)
    p = pos(ttext, '"content": "</s>"', inside=len('"content": "</'))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=turi, version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(p, types.Position(p.line, p.character + 1)), text="S"
                )
            ],
        )
    )
    loop = asyncio.get_running_loop()
    end = loop.time() + 30
    while client.published[uri][-1] and loop.time() < end:
        await asyncio.sleep(0.05)
    assert list(client.published[uri][-1]) == []


async def test_server_navigation_from_and_to_config_tokens(client, tmp_path):
    folder = copy_folder(tmp_path, "qwen3")
    im_end = tid(folder, "<|im_end|>")
    gen = folder / "generation_config.json"
    gen.write_text(json.dumps({"eos_token_id": [im_end, tid(folder, "<|endoftext|>")]}, indent=2))
    uri, text = open_file(client, folder / "tokenizer_config.json")
    await published(client, uri)
    # hover on eos_token's string: the token, its id
    h = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), pos(text, '"<|im_end|>"', '"eos_token"'))
    )
    assert f"id {im_end}" in h.contents.value and "<|im_end|>" in h.contents.value
    # hover on an id of generation_config.json names the token
    guri, gtext = open_file(client, gen)
    await published(client, guri)
    h = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(guri), pos(gtext, str(im_end), inside=0))
    )
    assert "<|im_end|>" in h.contents.value
    # definition: only an added token in qwen3, so its added_tokens entry in tokenizer.json
    ttext = (folder / "tokenizer.json").read_text(encoding="utf-8")
    turi = (folder / "tokenizer.json").as_uri()
    target = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), pos(text, '"<|im_end|>"', '"eos_token"'))
    )
    entry = ttext.index('"content": "<|im_end|>"')
    assert [t.uri for t in target] == [turi]
    start = ttext.rfind("{", 0, entry)
    assert ttext.count("\n", 0, start) <= target[0].range.start.line <= ttext.count("\n", 0, ttext.index("}", entry))
    # references from the tokenizer_config.json token: across files, each literal
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=pos(text, '"<|im_end|>"', '"eos_token"'),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    by_file: dict = {}
    for r in refs:
        by_file.setdefault(r.uri, []).append(at(r))
    config_spots = [(text.count("\n", 0, i), i - text.rfind("\n", 0, i) - 1) for i in _all(text, '"<|im_end|>"')]
    template = json.loads(text)["chat_template"]
    assert len(by_file[uri]) == len(config_spots) + template.count("<|im_end|>")
    assert set(config_spots) <= set(by_file[uri])
    assert by_file[guri] == [at_index(gtext, gtext.index(str(im_end)))]
    assert len(by_file[turi]) == 1  # its added_tokens entry
    # ... and from the tokenizer.json's added token: the config entries naming it too
    turi2, _ = open_file(client, folder / "tokenizer.json", ttext)
    back = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(turi2),
            position=pos(ttext, '"<|im_end|>"', '"added_tokens"'),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert {r.uri for r in back} == {turi, uri, guri}
    assert sorted(at(r) for r in back if r.uri == uri) == sorted(by_file[uri])


def _all(text: str, needle: str) -> list[int]:
    out, i = [], text.find(needle)
    while i >= 0:
        out.append(i)
        i = text.find(needle, i + 1)
    return out


def at_index(text: str, i: int) -> tuple[int, int]:
    return text.count("\n", 0, i), i - text.rfind("\n", 0, i) - 1


async def test_server_config_follows_the_other_config_and_definition_to_vocab_key(client, tmp_path):
    folder = copy_folder(tmp_path, "llama2")
    gen = folder / "generation_config.json"
    gen.write_text(json.dumps({"bos_token_id": tid(folder, "<s>"), "eos_token_id": tid(folder, "</s>")}, indent=2))
    guri, gtext = open_file(client, gen)
    assert list(await published(client, guri)) == []
    uri, text = open_file(client, folder / "tokenizer_config.json")
    await published(client, uri)
    # eos_token edited (unsaved) to another real token: generation_config.json's eos id is now wrong
    p = pos(text, '"</s>"', '"eos_token"', inside=1)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [
                types.TextDocumentContentChangePartial(
                    range=types.Range(p, types.Position(p.line, p.character + 4)), text="<unk>"
                )
            ],
        )
    )
    loop = asyncio.get_running_loop()
    end = loop.time() + 30
    while not client.published[guri][-1] and loop.time() < end:
        await asyncio.sleep(0.05)
    assert [(d.code, d.range.start.line) for d in client.published[guri][-1]] == [
        ("config-id-mismatch", line_of(gtext, '"eos_token_id"'))
    ]
    assert "<unk>" in client.published[guri][-1][0].message and "</s>" in client.published[guri][-1][0].message
    # `<s>` is in llama2's model.vocab: definition lands on its vocab key
    target = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), pos(text, '"<s>"', '"bos_token"'))
    )
    ttext = (folder / "tokenizer.json").read_text(encoding="utf-8")
    key = ttext.index('"<s>":', ttext.index('"vocab"'))
    assert [(t.uri, at(t)) for t in target] == [((folder / "tokenizer.json").as_uri(), at_index(ttext, key))]


@pytest.mark.parametrize("ascii_only", (True, False))
def test_template_literals_located_through_escapes(ascii_only):
    """`\\n`, `\\u00e9` and surrogate pairs before a literal: its span is still the literal."""
    from tokenizer_lsp.core.model_folder.config_doc import ConfigDocument

    template = "é\n😀 {{ '<|im_start|>' }}\t\"<start_of_turn>\" 我 <|x|>"
    data = json.dumps({"chat_template": template}, ensure_ascii=ascii_only).encode()
    items = [i for i in ConfigDocument(data, "/m/tokenizer_config.json").items if i.role == "template"]
    assert [data[i.start : i.end].decode() for i in items] == ["<|im_start|>", "<start_of_turn>", "<|x|>"]


async def test_server_config_files_beside_an_open_tokenizer(client, tmp_path):
    """Not open themselves: checked while the tokenizer is open, on their own URIs."""
    folder = copy_folder(tmp_path, "llama2")
    config = folder / "tokenizer_config.json"
    text = edit_json(config, lambda o: o.update(eos_token="</S>"))
    turi, _ = open_file(client, folder / "tokenizer.json")
    diags = await published(client, config.as_uri())
    assert [(d.code, d.range.start.line) for d in diags] == [("config-token-missing", line_of(text, '"eos_token"'))]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(turi)))
    assert list(await published(client, config.as_uri(), count=2)) == []


def test_the_facts_of_an_index_do_not_keep_the_index_alive():
    """A config check keeps the tokenizer's facts for a while; an index is its whole text
    (one per keystroke was kept until the edits settled: +11 MB each on qwen3)."""
    import gc
    import weakref

    from tokenizer_lsp.core.model_folder.folder import facts_of_index

    path = corpus_file("qwen3/tokenizer.json")
    data = path.read_bytes()
    idx = build_index(data, str(path))
    idx.prepare_lookups()
    facts = facts_of_index(idx)
    vocab = json.loads(data)["model"]["vocab"]
    by_id = {i: t for t, i in vocab.items()}
    added = {t["id"]: t["content"] for t in json.loads(data)["added_tokens"]}
    probes = [0, 1, 35946, 151642, 151643, 151665, len(by_id) + len(added) + 5]
    want = [by_id.get(i, added.get(i)) for i in probes]
    assert [facts.token_of(i) for i in probes] == want
    gone = weakref.ref(idx)
    del idx
    gc.collect()
    assert gone() is None, "the facts keep the index (its text) alive"
    assert [facts.token_of(i) for i in probes] == want
