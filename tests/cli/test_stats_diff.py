"""stats and diff: the command line and the LSP commands on the real corpus files.

Expected values come from shared/corpus/README.md, from HF tokenizers itself
(get_vocab_size, encode) or from the files' text read with the json module; the edited
copies diff compares are written here with json, each with one known change."""

import asyncio
import copy
import json
import subprocess
import sys
from functools import cache

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import corpus_file

# file -> README facts: vocab size, merges (None: the file lists none), added tokens, fragments
FACTS = {
    "qwen3/tokenizer.json": (151643, 151387, 26, 1448),
    "llama3/tokenizer.json": (128000, 280147, 256, 1352),
    "gemma3/tokenizer.json": (262144, 514906, 6415, 128),
    "llama2/tokenizer.json": (32000, 58980, None, 128),
    "gpt2-openai/encoder.json": (50257, None, 0, 344),
    "whisper-gpt2/vocab.json": (50257, None, 0, 344),
    "openai-tiktoken/o200k_base.tiktoken": (199998, None, 0, 1562),
    "all-minilm-l6-v2/tokenizer.json": (30522, None, None, 0),
}
TOKENIZER_JSONS = [f for f in FACTS if f.endswith("tokenizer.json")]


def cli(*args):
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", *map(str, args)], capture_output=True, text=True, check=False
    )
    return p.returncode, p.stdout, p.stderr


def stats_json(*paths):
    code, out, err = cli("stats", "--format", "json", "--no-unreachable", *paths)
    assert code == 0, err
    return json.loads(out)


def diff_json(old, new, *extra):
    code, out, err = cli("diff", "--format", "json", old, new, *extra)
    assert code in (0, 1), err
    return code, json.loads(out)


@cache
def hf(path: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(path)


# ---- stats -----------------------------------------------------------------------------


@pytest.mark.parametrize("rel", list(FACTS))
def test_stats_match_the_corpus_facts(rel):
    path = corpus_file(rel)
    vocab, merges, added, fragments = FACTS[rel]
    [s] = stats_json(path)
    assert s["path"] == str(path)
    assert s["vocab_size"] == vocab
    assert s["merges"] == merges
    if added is not None:
        assert s["added_tokens"] == added
    assert s["fragments"] == fragments
    assert s["unreachable"] is None  # --no-unreachable
    assert sum(s["token_length_histogram"].values()) == vocab
    longest = s["longest_tokens"]
    assert longest and longest[0]["bytes"] == max(int(k) for k in s["token_length_histogram"])
    if rel.endswith("tokenizer.json"):
        tok = hf(str(path))
        assert s["vocab_size"] == tok.get_vocab_size(with_added_tokens=False)
        assert s["vocab_size_with_added"] == tok.get_vocab_size(with_added_tokens=True)
        assert s["id_range"] == [0, tok.get_vocab_size(with_added_tokens=True) - 1]
        specials = sum(1 for a in json.loads(path.read_text(encoding="utf-8"))["added_tokens"] if a["special"])
        assert s["special_tokens"] == specials


def test_stats_text_and_several_paths():
    a, b = corpus_file("llama2/tokenizer.json"), corpus_file("gpt2-openai/vocab.bpe")
    code, out, _ = cli("stats", "--no-unreachable", a, b)
    assert code == 0
    assert out.startswith(f"{a}\n") and f"\n\n{b}\n" in out
    assert "vocab size    32,000" in out and "merges        58,980" in out and "50,000" in out
    assert [s["format"] for s in stats_json(a, b)] == ["tokenizer.json", "merges.txt"]


def test_stats_of_a_file_that_is_not_a_tokenizer(tmp_path):
    other = tmp_path / "package.json"
    other.write_text('{"name": "x", "version": "1.0.0"}')
    code, out, err = cli("stats", other)
    assert code == 2 and "not a tokenizer file" in err and out == ""
    code, out, err = cli("stats", corpus_file("qwen3/tokenizer_config.json"))
    assert code == 2 and "not a tokenizer file" in err and out == ""


def test_stats_counts_unreachable_tokens():
    import tokenizer_lsp.core.behaviour.reachability.compute  # noqa: F401 (a broken import fails, never skips)

    code, out, err = cli("stats", "--format", "json", corpus_file("gpt2-openai/encoder.json"))
    assert code == 0, err
    assert json.loads(out)[0]["unreachable"] == 1  # `<|endoftext|>` (README)


# ---- diff: the same meaning in the other merges form -------------------------------------


def other_merges_form(obj: dict) -> dict:
    out = copy.copy(obj)
    model = dict(obj["model"])
    merges = model["merges"]
    if isinstance(merges[0], list):
        assert not any(" " in p for m in merges for p in m)  # else the string form would be ambiguous
        model["merges"] = [" ".join(m) for m in merges]
    else:
        model["merges"] = [m.split(" ") for m in merges]
    out["model"] = model
    return out


@pytest.mark.parametrize("rel", [f for f in TOKENIZER_JSONS if FACTS[f][1]])
def test_diff_against_the_other_merges_form_is_the_same(rel, tmp_path):
    path = corpus_file(rel)
    obj = json.loads(path.read_text(encoding="utf-8"))
    again = tmp_path / "tokenizer.json"
    again.write_text(json.dumps(other_merges_form(obj), ensure_ascii=False, indent=1), encoding="utf-8")
    code, out, err = cli("diff", path, again)
    assert code == 0, out + err
    assert "same meaning: no differences" in out
    code, d = diff_json(again, path)
    assert code == 0 and d["same"] is True and not any(d["counts"].values())


# ---- diff: injected changes found exactly ------------------------------------------------


@cache
def llama2() -> dict:
    return json.loads(corpus_file("llama2/tokenizer.json").read_text(encoding="utf-8"))


def edited(tmp_path, edit, base=None) -> tuple:
    obj = copy.deepcopy(base if base is not None else llama2())
    edit(obj)
    new = tmp_path / "edited.json"
    new.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return diff_json(corpus_file("llama2/tokenizer.json"), new)


def only(d: dict, **expected) -> None:
    """Every count is zero but the expected ones."""
    want = {k: 0 for k in d["counts"]} | expected
    assert d["counts"] == want
    assert d["same"] is False


def test_diff_finds_a_removed_token(tmp_path):
    def edit(obj):
        del obj["model"]["vocab"]["▁Hello"]

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, vocab_removed=1)
    assert d["vocab"]["removed"] == [{"token": "▁Hello", "text": "␣Hello", "id": llama2()["model"]["vocab"]["▁Hello"]}]


def test_diff_finds_a_renumbered_token(tmp_path):
    old_id = llama2()["model"]["vocab"]["▁world"]

    def edit(obj):
        obj["model"]["vocab"]["▁world"] = 40000

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, vocab_renumbered=1)
    [r] = d["vocab"]["renumbered"]
    assert (r["token"], r["old_id"], r["new_id"]) == ("▁world", old_id, 40000)


def test_diff_finds_two_swapped_merges(tmp_path):
    merges = llama2()["model"]["merges"]

    def edit(obj):
        m = obj["model"]["merges"]
        m[100], m[200] = m[200], m[100]

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, merges_reranked=2)
    got = sorted((" ".join(r["merge"]), r["old_rank"], r["new_rank"]) for r in d["merges"]["reranked"])
    assert got == sorted([(merges[100], 100, 200), (merges[200], 200, 100)])


def test_diff_finds_a_removed_merge_and_nothing_re_ranked(tmp_path):
    merges = llama2()["model"]["merges"]

    def edit(obj):
        del obj["model"]["merges"][500]

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, merges_removed=1)  # the later merges move up one rank: their order is unchanged
    assert d["merges"]["removed"] == [{"merge": merges[500].split(" "), "rank": 500}]


def test_diff_finds_a_flipped_model_flag(tmp_path):
    assert "ignore_merges" not in llama2()["model"] or llama2()["model"]["ignore_merges"] is False

    def edit(obj):
        obj["model"]["ignore_merges"] = True

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, model_flags=1)
    assert d["model"] == [{"flag": "ignore_merges", "old": False, "new": True}]


def test_an_absent_flag_reads_as_the_default(tmp_path):
    """`ignore_merges: false` written out and left out mean the same; `fuse_unk` left out is
    false, which llama2's `true` is not."""
    explicit = copy.deepcopy(llama2())
    explicit["model"]["ignore_merges"] = False
    old = tmp_path / "explicit.json"
    old.write_text(json.dumps(explicit, ensure_ascii=False), encoding="utf-8")
    code, d = diff_json(old, corpus_file("llama2/tokenizer.json"))
    assert code == 0 and d["same"] is True
    dropped = copy.deepcopy(llama2())
    del dropped["model"]["fuse_unk"]
    new = tmp_path / "dropped.json"
    new.write_text(json.dumps(dropped, ensure_ascii=False), encoding="utf-8")
    code, d = diff_json(corpus_file("llama2/tokenizer.json"), new)
    assert code == 1 and d["model"] == [{"flag": "fuse_unk", "old": True, "new": False}]


def test_diff_finds_a_changed_normalizer(tmp_path):
    old = llama2()["normalizer"]

    def edit(obj):
        obj["normalizer"] = {"type": "NFC"}

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, config_sections=1)
    [c] = d["config"]
    assert (c["section"], c["old"], c["new"]) == ("normalizer", old, {"type": "NFC"})


def test_diff_finds_an_added_token(tmp_path):
    token = {
        "id": 32000,
        "content": "<|tool|>",
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": True,
    }

    def edit(obj):
        obj["added_tokens"].append(token)

    code, d = edited(tmp_path, edit)
    assert code == 1
    only(d, added_tokens_added=1)
    [a] = d["added_tokens"]["added"]
    assert a == token


def test_diff_finds_a_swap_across_merge_forms(tmp_path):
    """qwen3 (pair merges) against a copy in string form with two merges swapped: only the
    swap is a difference."""
    path = corpus_file("qwen3/tokenizer.json")
    obj = other_merges_form(json.loads(path.read_text(encoding="utf-8")))
    m = obj["model"]["merges"]
    m[7], m[9000] = m[9000], m[7]
    new = tmp_path / "tokenizer.json"
    new.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    code, d = diff_json(path, new)
    assert code == 1
    only(d, merges_reranked=2)
    assert sorted((r["old_rank"], r["new_rank"]) for r in d["merges"]["reranked"]) == [(7, 9000), (9000, 7)]


def test_diff_text_report_truncates_lists_and_counts_first(tmp_path):
    def edit(obj):
        vocab = obj["model"]["vocab"]
        for token in list(vocab)[1000:1030]:
            del vocab[token]

    new = tmp_path / "edited.json"
    obj = copy.deepcopy(llama2())
    edit(obj)
    new.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    code, out, _ = cli("diff", corpus_file("llama2/tokenizer.json"), new)
    lines = out.splitlines()
    assert code == 1
    assert lines[2] == "differences: vocab -30"
    assert "vocab: 0 added, 30 removed, 0 renumbered" in lines
    assert "  … and 10 more" in lines and sum(1 for line in lines if line.startswith("  - ")) == 20
    _, d = diff_json(corpus_file("llama2/tokenizer.json"), new)
    assert len(d["vocab"]["removed"]) == 30  # the JSON is complete


def test_diff_errors_exit_2(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, ')
    code, _, err = cli("diff", corpus_file("llama2/tokenizer.json"), bad)
    # a broken tokenizer file is a finding at error level: 1, as `check` gives it
    assert code == 1 and "not valid JSON" in err and str(bad) in err
    code, _, err = cli("diff", tmp_path / "missing.json", bad)
    assert code == 2 and "cannot read" in err
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    code, _, err = cli("diff", corpus_file("llama2/tokenizer.json"), notes)
    assert code == 2 and "not a tokenizer file" in err


def test_diff_text_gives_both_encodings_as_tokenizers_does(tmp_path):
    text = "the theory of the thermal theme: 你好 👋"
    old = corpus_file("llama2/tokenizer.json")
    obj = copy.deepcopy(llama2())
    obj["model"]["merges"] = [m for m in obj["model"]["merges"] if m != "▁t he"]
    new = tmp_path / "tokenizer.json"
    new.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    code, d = diff_json(old, new, "--text", text)
    want_old = hf(str(old)).encode(text, add_special_tokens=False).ids
    want_new = hf(str(new)).encode(text, add_special_tokens=False).ids
    assert want_old != want_new  # the removed merge matters for this text
    t = d["text"]
    assert (t["old_ids"], t["new_ids"]) == (want_old, want_new)
    assert (t["old_count"], t["new_count"], t["count_change"]) == (
        len(want_old),
        len(want_new),
        len(want_new) - len(want_old),
    )
    assert code == 1 and d["counts"]["text_encodings"] == 1
    code, out, _ = cli("diff", old, old, "--text", text)
    assert code == 0 and f"both: {len(want_old)} tokens" in out


def test_diff_of_vocab_json_pairs_and_tiktoken():
    """GPT-2's files from two packages mean the same; against o200k the tokens compare by
    their bytes and the merges are not compared (a note says so)."""
    code, d = diff_json(corpus_file("gpt2-openai/encoder.json"), corpus_file("whisper-gpt2/vocab.json"))
    assert code == 0 and d["same"]
    code, d = diff_json(corpus_file("gpt2-openai/vocab.bpe"), corpus_file("whisper-gpt2/merges.txt"))
    assert code == 0 and d["same"]
    code, d = diff_json(corpus_file("gpt2-openai/encoder.json"), corpus_file("openai-tiktoken/o200k_base.tiktoken"))
    assert code == 1 and any("merges are not compared" in n for n in d["notes"])
    # GPT-2's first 256 ids are its bytes, o200k's ranks 0-255 too, in another order
    gpt2 = json.loads(corpus_file("gpt2-openai/encoder.json").read_text(encoding="utf-8"))
    assert d["counts"]["vocab_removed"] + d["counts"]["vocab_renumbered"] <= len(gpt2)


def test_diff_of_unigram_scores(tmp_path):
    def unigram(scores):
        return {
            "version": "1.0",
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": None,
            "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], *scores], "byte_fallback": False},
        }

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(unigram([["a", -1.0], ["b", -2.0]])))
    new.write_text(json.dumps(unigram([["a", -1.0], ["b", -0.5]])))
    code, d = diff_json(old, new)
    assert code == 1
    only(d, vocab_rescored=1)
    assert d["vocab"]["rescored"] == [{"token": "b", "text": "b", "old_score": -2.0, "new_score": -0.5}]
    code, out, _ = cli("diff", old, new)
    assert "differences: 1 vocab score" in out and '  ~ "b"  score -2.0 → -0.5' in out


def test_diff_of_tiktoken_ranks(tmp_path):
    """Two rank files: a changed rank is a renumbered token, a dropped line a removed one."""
    path = corpus_file("openai-tiktoken/o200k_base.tiktoken")
    lines = path.read_bytes().splitlines(keepends=True)
    b64, rank = lines[1000].split()
    edited = lines[:1000] + [b64 + b" 250000\n"] + lines[1001:2000] + lines[2001:]
    new = tmp_path / "edited.tiktoken"
    new.write_bytes(b"".join(edited))
    code, d = diff_json(path, new)
    assert code == 1
    only(d, vocab_renumbered=1, vocab_removed=1)
    [r] = d["vocab"]["renumbered"]
    assert (r["token"], r["old_id"], r["new_id"]) == (b64.decode(), int(rank), 250000)
    assert [e["id"] for e in d["vocab"]["removed"]] == [int(lines[2000].split()[1])]
    assert d["notes"] == []


@pytest.mark.parametrize(
    "rel", ["qwen3/tokenizer.json", "llama2/tokenizer.json", "openai-tiktoken/o200k_base.tiktoken"]
)
def test_decoded_rows_show_text_as_visible_text_does(rel):
    """The decoded view's rows (shared with `decode`) take a shortcut for printable text: the
    same as visible_text's escaping, row by row."""
    from tokenizer_lsp.core.decoding.columns import cell
    from tokenizer_lsp.core.decoding.display import visible_text
    from tokenizer_lsp.core.decoding.listing import decoded_rows, text_row
    from tokenizer_lsp.core.index.files import index_file

    # (the columns' widths are test_column_widths.py's: here, the text in them)
    for row in decoded_rows(index_file(str(corpus_file(rel)))):
        shown = visible_text(bytes.fromhex(row["bytes"]))
        stored = json.dumps(row["token"], ensure_ascii=False)
        assert text_row(row)[9:].startswith(f"{cell(stored, 20)[0]} {cell(shown, 16)[0]} "), row


# ---- LSP commands ------------------------------------------------------------------------

# the session the navigation tests use (tests/lsp/harness.py)
from tests.lsp.harness import navigation_client as client  # noqa: E402, F401 (a fixture)


async def command(client, name, *args):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(name, list(args)))


def open_doc(client, path, text=None):
    text = path.read_text(encoding="utf-8") if text is None else text
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    return uri, text


def replace(client, uri, text, start, end, new, version):
    """didChange replacing text[start:end] (str indices; these files have no CR)."""

    def pos(i):
        line = text.count("\n", 0, i)
        col = len(text[text.rfind("\n", 0, i) + 1 : i].encode("utf-16-le")) // 2
        return types.Position(line, col)

    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(pos(start), pos(end)), text=new)],
        )
    )
    return text[:start] + new + text[end:]


async def test_stats_command_on_an_open_file_with_an_unsaved_edit(client: LanguageClient, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(corpus_file("llama2/tokenizer.json").read_bytes())
    uri, text = open_doc(client, path)
    before = await command(client, "tokenizer-lsp.stats", uri)
    assert (before["vocab_size"], before["merges"], before["fragments"]) == (32000, 58980, 128)
    assert before["format"] == "tokenizer.json" and before["model_type"] == "BPE"
    assert "vocab size" in before["text"]
    # delete the entry `"<0x80>": 131,` (a byte-fallback fragment) without saving
    entry = '\n      "<0x80>": 131,'
    at = text.index(entry)
    replace(client, uri, text, at, at + len(entry), "", 2)
    after = await command(client, "tokenizer-lsp.stats", uri)
    assert (after["vocab_size"], after["fragments"]) == (31999, 127)
    assert after["id_gaps"] == {"ranges": 1, "missing_ids": 1} and after["version"] == 2
    assert path.read_bytes() == corpus_file("llama2/tokenizer.json").read_bytes()


async def test_stats_command_counts_the_unreachable_findings_once_known(client: LanguageClient):
    """null until the server holds the unreachable-token findings, then their number (GPT-2's
    encoder.json has one: `<|endoftext|>`, README)."""
    import tokenizer_lsp.core.behaviour.reachability.compute  # noqa: F401 (a broken import fails, never skips)

    uri, _ = open_doc(client, corpus_file("gpt2-openai/encoder.json"))
    for _ in range(240):
        stats = await command(client, "tokenizer-lsp.stats", uri)
        assert stats["unreachable"] in (None, 1)
        if stats["unreachable"] is not None:
            break
        await asyncio.sleep(0.5)
    assert stats["unreachable"] == 1 and stats["fragments"] == 344
    assert "unreachable  1 (tokens the tokenizer never produces)" in stats["text"]


async def test_decoded_vocabulary_command_equals_the_cli(client: LanguageClient):
    path = corpus_file("whisper-gpt2/vocab.json")
    uri, _ = open_doc(client, path)
    got = await command(client, "tokenizer-lsp.decodedVocabulary", uri)
    code, out, _ = cli("decode", path)
    assert code == 0
    assert got["text"] == out and got["rows"] == out.count("\n") == 50257


async def test_diff_command_between_an_open_document_and_a_file_on_disk(client: LanguageClient, tmp_path):
    disk = corpus_file("llama2/tokenizer.json")
    path = tmp_path / "tokenizer.json"
    path.write_bytes(disk.read_bytes())
    uri, text = open_doc(client, path)
    same = await command(client, "tokenizer-lsp.diff", uri, str(disk))
    assert same["same"] is True and "same meaning" in same["report"]
    # an unsaved edit: the open text wins over the copy on disk
    at = text.index('"fuse_unk": ')
    replace(client, uri, text, at, at, '"ignore_merges": true, ', 2)
    got = await command(client, "tokenizer-lsp.diff", str(disk), uri)
    assert got["same"] is False
    assert got["diff"]["model"] == [{"flag": "ignore_merges", "old": False, "new": True}]
    assert "ignore_merges: false → true" in got["report"]
    # with a text: both encodings, from the engine helper process
    sample = "Hello world"
    with_text = await command(client, "tokenizer-lsp.diff", str(disk), uri, {"text": sample})
    t = with_text["diff"]["text"]
    from tokenizers import Tokenizer

    edited_text = text[:at] + '"ignore_merges": true, ' + text[at:]
    want_old = hf(str(disk)).encode(sample, add_special_tokens=False).ids
    want_new = Tokenizer.from_str(edited_text).encode(sample, add_special_tokens=False).ids
    assert (t["old_ids"], t["new_ids"]) == (want_old, want_new)
    assert (t["old_count"], t["new_count"]) == (len(want_old), len(want_new))


async def test_commands_say_what_is_wrong(client: LanguageClient, tmp_path):
    from pygls.exceptions import JsonRpcInvalidParams

    with pytest.raises(JsonRpcInvalidParams, match="not open"):
        await command(client, "tokenizer-lsp.stats", (tmp_path / "x.json").as_uri())
    with pytest.raises(JsonRpcInvalidParams, match="cannot read"):
        await command(client, "tokenizer-lsp.diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
