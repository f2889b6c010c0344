"""Code actions: each fix's edit applied to the text, the result loaded with HF `tokenizers`
and compared with the tokenizer of the correct file the defect was injected into (same
encodings of multilingual samples, same vocabulary). Defects are injected into real corpus
files; expected texts are the original files themselves, not our output."""

import ast
import json
import sys

import pytest
import pytest_lsp
import tokenizers  # a dependency of the package: a broken install fails, never skips
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tokenizer_lsp.core.fixes import apply_edits, fixes_for, rewrites_at, safe_fixes
from tokenizer_lsp.core.index.build import build_index

from tests.conftest import corpus_file
from tests.lsp.harness import capabilities

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

SAMPLES = [
    "Hello world, this is a test of tokenizers.",
    "我爱北京天安门。今天天气很好！",
    "Привет, мир! Как дела?",
    "def f(x):\n\treturn x ** 2  # squared",
    "naïve café résumé ế — ½ “quotes”",
    "👋🏽 emoji and ‎RTL שלום עולם",
    "   leading spaces and\r\nCRLF",
    "日本語のテキスト、カタカナ、ひらがな。",
]


def encodings(text: str) -> list[list[int]]:
    tok = tokenizers.Tokenizer.from_str(text)
    return [tok.encode(s).ids for s in SAMPLES]


def same_tokenizer(a: str, b: str) -> bool:
    ta, tb = tokenizers.Tokenizer.from_str(a), tokenizers.Tokenizer.from_str(b)
    return ta.get_vocab(True) == tb.get_vocab(True) and all(ta.encode(s).ids == tb.encode(s).ids for s in SAMPLES)


def index(text: str, name: str = "tokenizer.json", companion=None):
    idx = build_index(text.encode("utf-8"), name, companion=companion)
    idx.prepare_lookups()
    return idx


def one_fix(idx, code: str):
    found = [f for f in idx.findings if f.code == code]
    assert found, f"no {code} finding"
    fixes = fixes_for(idx, code, found[0].start, found[0].end, found[0].message)
    assert len(fixes) == 1
    return fixes[0]


def applied(idx, fix) -> str:
    return apply_edits(idx.data, fix.resolved_edits()).decode("utf-8")


@pytest.fixture(scope="module")
def llama2_text() -> str:
    return corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def llama2_pairs(llama2_text) -> str:
    """llama2 written by tokenizers itself: merges as pairs over four lines each."""
    return tokenizers.Tokenizer.from_str(llama2_text).to_str(pretty=True)


# ---- remove a merge naming a missing token ---------------------------------------------


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_remove_a_pair_merge_gives_back_the_original(llama2_pairs, where):
    lines = llama2_pairs.split("\n")
    start = lines.index('  "model": {')
    opening = [i for i, line in enumerate(lines) if i > start and line == "      ["]
    bad = ["      [", '        "▁zzqx",', '        "t"', "      ],"]
    if where == "last":  # after the last pair: it takes the comma
        close = max(i for i, line in enumerate(lines) if line == "      ]")
        injected = (
            lines[:close] + ["      ],", "      [", '        "▁zzqx",', '        "t"', "      ]"] + lines[close + 1 :]
        )
    else:
        at = opening[0] if where == "first" else opening[len(opening) // 2]
        injected = lines[:at] + bad + lines[at:]
    text = "\n".join(injected)
    with pytest.raises(Exception, match="out of vocabulary"):
        tokenizers.Tokenizer.from_str(text)
    idx = index(text)
    fix = one_fix(idx, "merge-unknown-token")
    assert fix.kind == "quickfix" and fix.preferred
    assert applied(idx, fix) == llama2_pairs


def test_remove_a_string_merge_gives_back_the_original(llama2_text):
    at = llama2_text.index('      "e r",\n')
    text = llama2_text[:at] + '      "▁zzqx t",\n' + llama2_text[at:]
    idx = index(text)
    fix = one_fix(idx, "merge-unknown-token")
    assert applied(idx, fix) == llama2_text


def test_remove_a_line_of_a_merges_file():
    vocab_path, merges_path = corpus_file("whisper-gpt2/vocab.json"), corpus_file("whisper-gpt2/merges.txt")
    merges = merges_path.read_text(encoding="utf-8")
    lines = merges.split("\n")
    text = "\n".join(lines[:500] + ["Ġzzqx t"] + lines[500:])
    vocab_idx = build_index(vocab_path.read_bytes(), str(vocab_path))
    idx = index(text, str(merges_path), companion=lambda: vocab_idx.vocab)
    fix = one_fix(idx, "merge-unknown-token")
    assert applied(idx, fix) == merges


# ---- ids ---------------------------------------------------------------------------------


def test_set_an_added_token_id_to_the_vocabulary_id(llama2_text):
    needle = '"id": 2,\n      "content": "</s>"'
    assert needle in llama2_text
    text = llama2_text.replace(needle, '"id": 7,\n      "content": "</s>"')
    idx = index(text)
    fix = one_fix(idx, "added-token-mismatch")
    assert fix.preferred and fix.safe
    fixed = applied(idx, fix)
    assert fixed == llama2_text and same_tokenizer(fixed, llama2_text)
    assert apply_edits(idx.data, safe_fixes(idx)).decode("utf-8") == llama2_text


def test_set_an_added_tokens_decoder_key_to_the_tokenizer_id(tmp_path):
    from tokenizer_lsp.core.model_folder import folder

    (tmp_path / "tokenizer.json").write_bytes(corpus_file("llama2/tokenizer.json").read_bytes())
    original = corpus_file("llama2/tokenizer_config.json").read_text(encoding="utf-8")
    text = original.replace('"1": {\n      "content": "<s>"', '"5": {\n      "content": "<s>"')
    assert text != original
    path = str(tmp_path / "tokenizer_config.json")
    (tmp_path / "tokenizer_config.json").write_text(text, encoding="utf-8")
    idx = index(text, path, companion=lambda: folder.load_folder(path))
    fix = one_fix(idx, "config-id-mismatch")
    assert fix.preferred and applied(idx, fix) == original


# ---- merges header -----------------------------------------------------------------------


def test_add_the_version_header_to_a_merges_file():
    vocab_path, merges_path = corpus_file("whisper-gpt2/vocab.json"), corpus_file("whisper-gpt2/merges.txt")
    merges = merges_path.read_text(encoding="utf-8")
    body = merges.split("\n", 1)[1]  # without its `#version: 0.2 - Trained by ...` line
    vocab_idx = build_index(vocab_path.read_bytes(), str(vocab_path))
    idx = index(body, str(merges_path), companion=lambda: vocab_idx.vocab)
    fix = one_fix(idx, "merges-header")
    fixed = applied(idx, fix)
    assert fixed == "#version: 0.2\n" + body
    assert apply_edits(idx.data, safe_fixes(idx)).decode("utf-8") == fixed
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))

    def bpe(text: str):
        pairs = [tuple(line.split(" ")) for line in text.split("\n")[1:] if line]
        tok = tokenizers.Tokenizer(tokenizers.models.BPE(vocab, pairs))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        return [tok.encode(s).ids for s in SAMPLES]

    assert bpe(fixed) == bpe(merges)
    assert [
        f.code for f in index(fixed, str(merges_path), lambda: vocab_idx.vocab).findings if f.code == "merges-header"
    ] == []


# ---- converting every merge --------------------------------------------------------------


def _conversion(text: str):
    idx = index(text)
    at = len(text[: text.index("[", text.index('"merges"')) + 20].encode("utf-8"))  # a byte offset
    fixes = rewrites_at(idx, at, at)
    assert len(fixes) == 1 and fixes[0].kind == "refactor.rewrite"
    return idx, fixes[0]


@pytest.mark.parametrize("rel", ["qwen3/tokenizer.json", "llama2/tokenizer.json"])
def test_conversion_both_ways_keeps_the_tokenizer_and_the_text(rel):
    original = corpus_file(rel).read_text(encoding="utf-8")
    idx, fix = _conversion(original)
    converted = applied(idx, fix)
    assert len(fix.resolved_edits()) == 1
    form = json.loads(converted)["model"]["merges"][0]
    assert isinstance(form, str) == isinstance(json.loads(original)["model"]["merges"][0], list)
    assert same_tokenizer(original, converted)
    idx2, back = _conversion(converted)
    assert applied(idx2, back) == original


@pytest.mark.parametrize("layout", ["one line", "ascii escapes", "CRLF", "tabs"])
def test_conversion_keeps_other_layouts(llama2_text, layout):
    obj = json.loads(llama2_text)
    if layout == "one line":
        original = json.dumps(obj, ensure_ascii=False)
    elif layout == "ascii escapes":
        original = json.dumps(obj, indent=2)
    elif layout == "CRLF":
        original = llama2_text.replace("\n", "\r\n")
    else:
        original = json.dumps(obj, indent="\t", ensure_ascii=False)
    idx, fix = _conversion(original)
    converted = applied(idx, fix)
    assert same_tokenizer(original, converted)
    assert converted.count("\n") == converted.count("\r\n") if layout == "CRLF" else "\r" not in converted
    if layout == "one line":
        assert "\n" not in converted
    if layout == "tabs":
        assert "\n\t\t\t[\n\t\t\t\t" in converted
    idx2, back = _conversion(converted)
    assert applied(idx2, back) == original


def test_llama2_pairs_written_like_tokenizers_writes_them(llama2_text, llama2_pairs):
    idx, fix = _conversion(llama2_text)
    converted = json.loads(applied(idx, fix))
    assert converted["model"]["merges"] == json.loads(llama2_pairs)["model"]["merges"]


def test_an_ambiguous_merge_is_converted_the_way_chosen(llama2_text):
    obj = json.loads(llama2_text)
    vocab = obj["model"]["vocab"]
    for token in ("x y", "y z", "xy z", "x yz"):
        vocab[token] = len(vocab)
    obj["model"]["merges"].insert(100, "x y z")
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    idx = index(text)
    finding = next(f for f in idx.findings if f.code == "merge-ambiguous")
    fixes = fixes_for(idx, "merge-ambiguous", finding.start, finding.end, finding.message)
    assert [f.key["pair"] for f in fixes] == [["x", "y z"], ["x y", "z"]]
    assert rewrites_at(idx, finding.start, finding.start) == []  # not without a choice
    for fix in fixes:
        fixed = applied(idx, fix)
        assert json.loads(fixed)["model"]["merges"][100] == fix.key["pair"]
        # raw-space tokens cannot come out of this tokenizer: encodings are llama2's
        assert encodings(fixed) == encodings(llama2_text)


# ---- over LSP ----------------------------------------------------------------------------


def _caps(resolve: bool) -> types.ClientCapabilities:
    caps = capabilities()
    caps.text_document.code_action = types.CodeActionClientCapabilities(
        resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]) if resolve else None
    )
    caps.workspace.workspace_edit = types.WorkspaceEditClientCapabilities(document_changes=True)
    return caps


def _lsp_client(resolve: bool):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tokenizer_lsp"]))
    async def client(lsp_client: LanguageClient):
        @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def on_refresh(params):
            return None

        await lsp_client.initialize_session(types.InitializeParams(capabilities=_caps(resolve)))
        yield
        await lsp_client.shutdown_session()

    return client


client = _lsp_client(resolve=False)
resolving_client = _lsp_client(resolve=True)


def offset_of(text: str, line: int, character: int) -> int:
    """A str index of an LSP position (UTF-16 columns; these texts end lines with \\n)."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    start = starts[line]
    col, i = 0, start
    while col < character:
        col += 2 if ord(text[i]) > 0xFFFF else 1
        i += 1
    return i


def apply_lsp(text: str, edit: types.WorkspaceEdit) -> str:
    edits = [e for change in edit.document_changes for e in change.edits]
    spans = [
        (
            offset_of(text, e.range.start.line, e.range.start.character),
            offset_of(text, e.range.end.line, e.range.end.character),
            e.new_text,
        )
        for e in edits
    ]
    for s, e, new in sorted(spans, reverse=True):
        text = text[:s] + new + text[e:]
    return text


async def _open(client: LanguageClient, path, text: str):
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def _actions(client, uri, pos, diagnostics=(), only=None):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(*pos), types.Position(*pos)),
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
    )


async def test_lsp_quickfix_sets_the_added_token_id(client: LanguageClient, llama2_text, tmp_path):
    text = llama2_text.replace('"id": 2,\n      "content": "</s>"', '"id": 7,\n      "content": "</s>"')
    uri = await _open(client, tmp_path / "tokenizer.json", text)
    diag = next(d for d in client.diagnostics[uri] if d.code == "added-token-mismatch")
    actions = await _actions(client, uri, (diag.range.start.line, diag.range.start.character), [diag])
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert fix.is_preferred and fix.diagnostics[0].code == "added-token-mismatch"
    assert apply_lsp(text, fix.edit) == llama2_text


async def test_lsp_conversion_inline_on_a_small_file(client: LanguageClient, tmp_path):
    from tests.conftest import ROOT

    original = (ROOT / "examples" / "tokenizer.json").read_text(encoding="utf-8")
    uri = await _open(client, tmp_path / "tokenizer.json", original)
    line = original[: original.index('"merges"')].count("\n") + 3
    actions = await _actions(client, uri, (line, 8), only=[types.CodeActionKind.RefactorRewrite])
    assert [a.kind for a in actions] == [types.CodeActionKind.RefactorRewrite] and actions[0].edit is not None
    converted = apply_lsp(original, actions[0].edit)
    assert isinstance(json.loads(converted)["model"]["merges"][0], str) and same_tokenizer(original, converted)


async def test_lsp_large_conversion_through_a_command(client: LanguageClient, llama2_text, tmp_path):
    """A client that does not resolve edits gets a command for a large conversion; running
    it sends the edit with workspace/applyEdit."""
    received = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams):
        received.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    uri = await _open(client, tmp_path / "tokenizer.json", llama2_text)
    line = llama2_text[: llama2_text.index('"e r"')].count("\n")
    actions = await _actions(client, uri, (line, 8), only=[types.CodeActionKind.RefactorRewrite])
    # lsprotocol reads any action that has a `command` as a Command, its CodeAction (title,
    # kind, command object) flattened into `command` as text: read that back
    assert len(actions) == 1 and isinstance(actions[0], types.Command)
    command = ast.literal_eval(actions[0].command)
    assert command["command"] == "tokenizer-lsp.convertMerges"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )
    assert result == {"applied": True} and len(received) == 1
    converted = apply_lsp(llama2_text, received[0])
    assert isinstance(json.loads(converted)["model"]["merges"][0], list) and same_tokenizer(llama2_text, converted)


async def test_lsp_conversion_resolved_lazily(resolving_client: LanguageClient, llama2_pairs, tmp_path):
    client = resolving_client
    uri = await _open(client, tmp_path / "tokenizer.json", llama2_pairs)
    line = llama2_pairs[: llama2_pairs.index('"merges"')].count("\n") + 3
    actions = await _actions(client, uri, (line, 8))
    rewrite = next(a for a in actions if a.kind == types.CodeActionKind.RefactorRewrite)
    assert rewrite.edit is None and rewrite.data is not None
    resolved = await client.code_action_resolve_async(rewrite)
    converted = apply_lsp(llama2_pairs, resolved.edit)
    assert isinstance(json.loads(converted)["model"]["merges"][0], str) and same_tokenizer(llama2_pairs, converted)


async def test_lsp_fix_all_adds_the_header(client: LanguageClient, tmp_path):
    merges = corpus_file("whisper-gpt2/merges.txt").read_text(encoding="utf-8")
    (tmp_path / "vocab.json").write_bytes(corpus_file("whisper-gpt2/vocab.json").read_bytes())
    body = merges.split("\n", 1)[1]
    uri = await _open(client, tmp_path / "merges.txt", body)
    actions = await _actions(client, uri, (0, 0), only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in actions] == ["source.fixAll.tokenizer-lsp"]
    assert apply_lsp(body, actions[0].edit) == "#version: 0.2\n" + body
