"""`encode` of a slow GPT-2 style folder (vocab.json + merges.txt + added_tokens.json, as
whisper's): the added_tokens.json entries are matched as added tokens with their ids, as
transformers' GPT2Tokenizer and a tokenizers BPE given those tokens encode. The CLI and the
LSP command (the engine helper) load through the same path; both are held to it.

Expected ids come from transformers' AutoTokenizer on the same folder and from tokenizers
(BPE.from_file + ByteLevel + add_tokens in the file's id order), never from our code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.corpus.test_fidelity_found import slow_folder
from tests.lsp.harness import make_fixture

SAMPLE = "<|startoftranscript|><|en|> the cat<|notimestamps|>sat on<|en|>the mat"


def cli(*args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "tokenizer_lsp", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def whisper_like(folder: Path, gap: int = 0) -> dict[str, int]:
    """The folder, its added tokens after the vocabulary (`gap` ids past its end, which
    transformers does not honour); `<|en|>` named special by tokenizer_config.json."""
    slow_folder(folder, {})
    n = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    added = {"<|startoftranscript|>": n + gap, "<|en|>": n + gap + 1, "<|notimestamps|>": n + gap + 2}
    slow_folder(folder, added, {"tokenizer_class": "GPT2Tokenizer", "additional_special_tokens": ["<|en|>"]})
    return added


def tokenizers_reference(folder: Path, added: dict[str, int]):
    from tokenizers import AddedToken, Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE

    tok = Tokenizer(BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    for token, _ in sorted(added.items(), key=lambda kv: kv[1]):
        if token == "<|en|>":
            tok.add_special_tokens([AddedToken(token, special=True, normalized=False)])
        else:
            tok.add_tokens([token])
    return tok


def test_cli_encode_matches_added_tokens_json_entries(tmp_path):
    import transformers

    folder = tmp_path / "whisper-like"
    added = whisper_like(folder)
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    want = auto.encode(SAMPLE, add_special_tokens=False)
    assert want == tokenizers_reference(folder, added).encode(SAMPLE).ids
    assert set(added.values()) <= set(want)  # the sample does hit every added token
    for target in (folder, folder / "vocab.json", folder / "merges.txt"):
        code, out, err = cli("encode", "--format", "json", str(target), SAMPLE)
        assert code == 0, err
        result = json.loads(out)
        assert result["ids"] == want, target
        assert "notes" not in result  # the file's ids are those transformers gives
        # an added token's row is its own text, not a byte-level decoding of it
        rows = {r["id"]: r for r in result["tokens"]}
        assert {rows[i]["text"] for i in added.values()} == set(added)
        assert [SAMPLE[r["start"] : r["end"]] for r in result["tokens"] if r["id"] in added.values()] == [
            auto.convert_ids_to_tokens(i) for i in want if i in added.values()
        ]


def test_cli_encode_says_when_the_file_ids_are_not_those_given(tmp_path):
    """Ids with a gap after the vocabulary: transformers gives the next free ids in order;
    encode gives those too and says which entries differ from the file."""
    import transformers

    folder = tmp_path / "gapped"
    added = whisper_like(folder, gap=3)
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    given = {t: auto.convert_tokens_to_ids(t) for t in added}
    assert given != added  # transformers does not keep them
    code, out, err = cli("encode", "--format", "json", str(folder), SAMPLE)
    assert code == 0, err
    result = json.loads(out)
    assert result["ids"] == auto.encode(SAMPLE, add_special_tokens=False)
    (note,) = result["notes"]
    assert all(f"`{t}` {added[t]} -> {given[t]}" in note for t in added)


def test_cli_encode_with_whisper_many_timestamp_tokens(tmp_path):
    """Whisper's folders add 1.5k timestamp tokens (`<|0.00|>` ... `<|30.00|>`) after a few
    specials: every one matched, with transformers' ids."""
    import transformers

    folder = tmp_path / "timestamps"
    slow_folder(folder, {})
    n = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    names = ["<|startoftranscript|>", "<|en|>", "<|notimestamps|>"] + [f"<|{i * 0.02:.2f}|>" for i in range(1501)]
    added = {t: n + k for k, t in enumerate(names)}
    slow_folder(folder, added, {"tokenizer_class": "GPT2Tokenizer", "additional_special_tokens": ["<|en|>"]})
    text = "<|startoftranscript|><|en|><|0.00|> the cat<|1.24|><|1.24|> sat<|30.00|><|endoftext|>"
    want = transformers.AutoTokenizer.from_pretrained(str(folder)).encode(text, add_special_tokens=False)
    assert {added["<|0.00|>"], added["<|30.00|>"]} <= set(want)
    code, out, err = cli("encode", "--format", "json", str(folder), text)
    assert code == 0, err
    assert json.loads(out)["ids"] == want


@pytest.mark.parametrize(
    "config",
    [
        {"tokenizer_class": "GPT2Tokenizer"},  # the class's default <|endoftext|>
        {
            "tokenizer_class": "GPT2Tokenizer",
            "eos_token": "<|endoftext|>",
            "bos_token": "<|endoftext|>",
            "unk_token": "<|endoftext|>",
        },
    ],
)
def test_the_folder_special_tokens_are_matched_whole(tmp_path, config):
    """GPT-2's real vocab.json + merges.txt (whisper's copy) in a folder with a
    tokenizer_config.json and no added_tokens.json: `<|endoftext|>`, a vocab token the
    config (or GPT2Tokenizer's default) makes special, is matched whole, as transformers does."""
    import shutil

    import transformers

    from tests.conftest import corpus_file

    folder = tmp_path / "gpt2"
    folder.mkdir()
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(corpus_file(f"whisper-gpt2/{name}"), folder / name)
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    text = "Hello world<|endoftext|>Bye <|endoftext|> <|endof"
    want = transformers.AutoTokenizer.from_pretrained(str(folder)).encode(text, add_special_tokens=False)
    eot = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))["<|endoftext|>"]
    assert want.count(eot) == 2
    code, out, err = cli("encode", "--format", "json", str(folder), text)
    assert code == 0, err
    assert json.loads(out)["ids"] == want


def test_a_special_token_the_folder_lacks_is_said(tmp_path):
    import transformers

    folder = tmp_path / "lacking"
    whisper_like(folder)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, "pad_token": "<|pad|>"}), encoding="utf-8")
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    assert "<|pad|>" not in vocab and auto.convert_tokens_to_ids("<|pad|>") >= len(vocab)  # a new id there
    code, out, err = cli("encode", "--format", "json", str(folder), SAMPLE)
    assert code == 0, err
    result = json.loads(out)
    assert result["ids"] == auto.encode(SAMPLE, add_special_tokens=False)
    (note,) = result["notes"]
    assert "`<|pad|>`" in note and "config-token-missing" in note


client = make_fixture()  # the harness's session (utf-16, refreshes answered)


async def test_lsp_encode_matches_added_tokens_json_entries(client: LanguageClient, tmp_path):
    import transformers  # noqa: F401 (the oracle must be there: a failure, not a skip)

    folder = tmp_path / "whisper-like"
    added = whisper_like(folder)
    want = tokenizers_reference(folder, added).encode(SAMPLE).ids
    for name in ("vocab.json", "merges.txt"):
        path = folder / name
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=path.as_uri(),
                    language_id="json" if name.endswith("json") else "plaintext",
                    version=1,
                    text=path.read_text(encoding="utf-8"),
                )
            )
        )
        got = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="tokenizer-lsp.encode", arguments=[path.as_uri(), SAMPLE])
        )
        assert got["ids"] == want, name


async def test_lsp_encode_follows_added_tokens_json_on_disk(client: LanguageClient, tmp_path):
    """The engine keeps a loaded tokenizer while its text is unchanged; an added_tokens.json
    written since makes it load again."""
    folder = tmp_path / "whisper-like"
    added = whisper_like(folder)
    path = folder / "vocab.json"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=path.as_uri(), language_id="json", version=1, text=path.read_text(encoding="utf-8")
            )
        )
    )
    text = SAMPLE + "<|fr|>"

    async def ids():
        return (
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="tokenizer-lsp.encode", arguments=[path.as_uri(), text])
            )
        )["ids"]

    assert await ids() == tokenizers_reference(folder, added).encode(text).ids
    more = {**added, "<|fr|>": max(added.values()) + 1}
    (folder / "added_tokens.json").write_text(json.dumps(more), encoding="utf-8")
    want = tokenizers_reference(folder, more).encode(text).ids
    assert more["<|fr|>"] in want
    assert await ids() == want


def _unreachable_ids(folder: Path, cache: Path) -> set[int]:
    env = {**os.environ, "TOKENIZER_LSP_CACHE_DIR": str(cache)}  # a user's cache, kept between runs
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", str(folder), "--format", "json", "--show-hints"],
        capture_output=True,
        text=True,
        env=env,
    )
    rc, out, err = p.returncode, p.stdout, p.stderr
    assert rc in (0, 1), err
    return {
        int(f["message"].split("id ")[1].split(")")[0]) for f in json.loads(out) if f["code"] == "unreachable-token"
    }


def test_check_calls_no_token_the_folder_matches_whole_unreachable(tmp_path):
    # whisper's vocab.json + merges.txt: `<|endoftext|>` is a vocab entry no merge builds.
    # Read by transformers as a GPT2Tokenizer folder it is the class's bos/eos/unk token,
    # matched whole; the pair alone (tokenizers' BPE) splits it
    import transformers
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers.models import BPE

    from tests.conftest import corpus_file

    folder = tmp_path / "whisper"
    folder.mkdir()
    for name in ("vocab.json", "merges.txt"):
        (folder / name).write_bytes(corpus_file(f"whisper-gpt2/{name}").read_bytes())
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    eot = vocab["<|endoftext|>"]
    pair = Tokenizer(BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
    pair.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert pair.encode("<|endoftext|>").ids != [eot]
    cache = tmp_path / "cache"
    assert eot in _unreachable_ids(folder, cache)  # the pair alone: never produced

    # whisper's own layout: its added tokens after the vocabulary, named special
    added = {"<|startoftranscript|>": len(vocab), "<|en|>": len(vocab) + 1}
    (folder / "added_tokens.json").write_text(json.dumps(added), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "WhisperTokenizer", "additional_special_tokens": list(added)}), encoding="utf-8"
    )
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert tok("<|endoftext|>", add_special_tokens=False)["input_ids"] == [eot]
    # the same vocab.json and merges.txt as before: a set cached for the pair alone must not
    # speak for the folder
    assert eot not in _unreachable_ids(folder, cache)
    rc, out, _ = cli("encode", str(folder), "<|endoftext|>", "--format", "json")
    assert rc == 0 and [t["id"] for t in json.loads(out)["tokens"]] == [eot]
