"""Documentation of the codes of the SentencePiece, tekken, WordPiece and GGUF formats
(docs/formats/); core/codes/__init__.py holds the rest and the CodeDoc type.

Text formats (tekken, vocab.txt) carry an example file that `check` runs on when the format
plug-in is present; binary formats (.model, .gguf) show the output as `check` prints it
(`path:#N:` for a token, `path:KEY:` for a metadata key: binary files have no lines).
"""

from __future__ import annotations

import base64
import json

from .doc import CodeDoc


def _tekken(entries: list[tuple[int, bytes, str | None]]) -> str:
    vocab = [{"rank": r, "token_bytes": base64.b64encode(b).decode(), "token_str": s} for r, b, s in entries]
    doc = {
        "config": {
            "pattern": r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+",
            "num_vocab_tokens": len(vocab),
            "default_vocab_size": len(vocab),
            "default_num_special_tokens": 0,
            "version": "v7",
        },
        "vocab": vocab,
        "special_tokens": [],
    }
    return json.dumps(doc, indent=2) + "\n"


_BYTES = [(i, bytes([i]), None) for i in range(256)]


PART3 = {
    "spm-byte-pieces": CodeDoc(
        "A SentencePiece `.model` with `byte_fallback` lacks some of the 256 `<0xNN>` pieces.",
        "Text with a character outside the vocabulary falls back to bytes; a missing byte piece becomes "
        "`<unk>`, so that text can no longer be decoded back.",
        "Retrain or repair the model so that it holds all 256 byte pieces `<0x00>`…`<0xFF>` (type BYTE).",
        shown="tokenizer.model:#3: error spm-byte-pieces byte_fallback is on but 2 of the 256 byte pieces are "
        "missing: <0x80>, <0xFF>",
    ),
    "special-id": CodeDoc(
        "An unk/bos/eos/pad id (a `.model`'s trainer spec, GGUF metadata or tekken) is out of range or names a "
        "piece of the wrong type.",
        "The runtime inserts or stops on that id: out of range it crashes, on an ordinary piece it stops "
        "generation in the middle of text.",
        "Point the id at the CONTROL (or UNKNOWN, for unk) piece that stands for it, or set it to -1 when unused.",
        shown="tokenizer.model:eos_id: error special-id eos_id 32000 is out of range (32000 pieces)",
    ),
    "tekken-rank": CodeDoc(
        "A tekken entry's `rank` is not its index, or the first 256 entries are not the single bytes.",
        "mistral-common assigns ids by position; a rank that disagrees means the file was edited or merged wrongly.",
        "Renumber the entries so that `rank` equals the position and the first 256 are bytes 0x00…0xFF.",
        {"tekken.json": _tekken(_BYTES + [(257, b"ab", "ab")])},
        shown="tekken.json:#256: error tekken-rank entry 256 has rank 257: a tekken rank is its index in `vocab`",
    ),
    "tekken-token-str": CodeDoc(
        "A non-null `token_str` differs from the decoded `token_bytes`.",
        "Tools that read `token_str` (for display or search) show a token other than the one encoded.",
        "Set `token_str` to the UTF-8 of `token_bytes`, or to null when the bytes are not valid UTF-8.",
        {"tekken.json": _tekken(_BYTES + [(256, b"ab", "ba")])},
        shown="tekken.json:#256: warning tekken-token-str token_str `ba` differs from its token_bytes (`ab`)",
    ),
    "wordpiece-unreachable": CodeDoc(
        "A `vocab.txt` line that holds whitespace, or is empty.",
        "BERT's pre-tokenizer splits on whitespace first, so such a token is never produced.",
        "Remove the line, or replace the whitespace if the token was meant to be something else "
        "(ids are line numbers: keep a placeholder such as `[unused5]` to keep later ids).",
        {"vocab.txt": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nnew york\n##s\n"},
        shown="vocab.txt:7:1: warning wordpiece-unreachable `new york` holds whitespace: the pre-tokenizer splits "
        "there, so it is never produced",
    ),
    "wordpiece-unk-missing": CodeDoc(
        "A `vocab.txt` without `[UNK]` (or without the unk token a `tokenizer_config.json` beside it names).",
        "Any word the vocabulary cannot spell has nowhere to go: `BertWordPieceTokenizer` fails to encode it.",
        "Add `[UNK]` (BERT puts it at id 100) or name the file's own unk token in `tokenizer_config.json`.",
        {"vocab.txt": "[PAD]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\n"},
        shown="vocab.txt:1:1: error wordpiece-unk-missing no `[UNK]` token: words the vocabulary cannot spell "
        "cannot be encoded",
    ),
    "gguf-pre-missing": CodeDoc(
        "A `gpt2`-model GGUF without `tokenizer.ggml.pre`, or with a name llama.cpp does not know.",
        "llama.cpp then falls back to the default pre-tokenizer and splits text differently from the model's "
        "training: it warns \"GENERATION QUALITY WILL BE DEGRADED\".",
        "Convert again with a current `convert_hf_to_gguf.py`, which writes the right `tokenizer.ggml.pre`.",
        shown="model.gguf:tokenizer.ggml.pre: warning gguf-pre-missing a gpt2 tokenizer without "
        "tokenizer.ggml.pre: llama.cpp falls back to its default pre-tokenizer",
    ),
    "gguf-token-type": CodeDoc(
        "A token HF marks `special: true` (or a control token of the `.model`) is not CONTROL in the GGUF, or the reverse.",
        "llama.cpp parses special tokens by type: a special token typed NORMAL is split into pieces, and "
        "chat templates stop working.",
        "Convert again from the HF folder; check `added_tokens` in tokenizer.json for the token's `special` flag.",
        shown="model.gguf:#151645: error gguf-token-type `<|im_end|>` is special in tokenizer.json but "
        "NORMAL in the GGUF",
    ),
    "gguf-mismatch": CodeDoc(
        "Against the HF source beside it (or given: `check model.gguf HF_DIR`): a token's text at an id, the "
        "merges, or the pre-tokenizer's split differ.",
        "The converted model then encodes text differently from the model it came from.",
        "Convert again from the right source and revision; compare with `tokenizer-lsp diff model.gguf HF_DIR`.",
        shown="model.gguf:#1234: error gguf-mismatch id 1234 is `▁world` in the GGUF but `▁World` in tokenizer.json",
    ),
    "gguf-special-id": CodeDoc(
        "bos/eos/pad/unk id in the GGUF differs from the source's tokenizer_config / generation_config.",
        "Generation stops on the wrong token, or never stops.",
        "Convert again, or set `tokenizer.ggml.eos_token_id` (etc.) with `gguf_set_metadata.py`.",
        shown="model.gguf:tokenizer.ggml.eos_token_id: error gguf-special-id eos is 151643 in the GGUF but "
        "151645 in generation_config.json",
    ),
    "gguf-chat-template": CodeDoc(
        "`tokenizer.chat_template` differs from the source's `chat_template`.",
        "llama.cpp formats conversations with the GGUF's template; an old one gives prompts the model was not trained on.",
        "Convert again from the current source, or replace the template with `gguf_new_metadata.py --chat-template`.",
        shown="model.gguf:tokenizer.chat_template: warning gguf-chat-template the chat template differs from "
        "tokenizer_config.json's",
    ),
}
