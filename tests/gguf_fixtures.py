"""Files for the GGUF tests, built by the formats' own libraries: an HF folder made with
`tokenizers` (a byte-level BPE trained here, Llama 3's split, special tokens after the
vocabulary as Llama 3 has them), and GGUFs written with `gguf.GGUFWriter` the way
llama.cpp's convert_hf_to_gguf.py writes them, faithfully or with one conversion bug."""

from __future__ import annotations

import json
import os
from pathlib import Path

LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<start_of_turn>", "<end_of_turn>", "<|eot_id|>"]
USER_TOKEN = "<custom_tool>"  # an added token that is not special
TEMPLATE = "{% for m in messages %}<start_of_turn>{{ m['role'] }}\n{{ m['content'] }}<end_of_turn>\n{% endfor %}"
CORPUS_TEXT = [
    "The quick brown fox jumps over the lazy dog. I'll say it's 1234 times faster!",
    "def hello_world():\n    print('Hello, world')\n\treturn 42\n",
    "Ürün café naïve résumé 这是一个测试 日本語 🦙🚀 $100 + 20% = €5,000.50",
    "HelloWorld camelCase CONSTANT_NAME don't WE'RE you've line1\r\nline2\n\nline3",
] * 20


def hf_folder(folder: Path) -> Path:
    """tokenizer.json, tokenizer_config.json, generation_config.json in `folder`."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3_SPLIT), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(CORPUS_TEXT, trainer)
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in SPECIALS])
    tok.add_tokens([AddedToken(USER_TOKEN, special=False, normalized=False)])
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "chat_template": TEMPLATE})
    )
    ids = {s: tok.token_to_id(s) for s in SPECIALS}
    (folder / "generation_config.json").write_text(
        json.dumps(
            {"bos_token_id": ids["<|begin_of_text|>"], "eos_token_id": [ids["<|end_of_text|>"], ids["<|eot_id|>"]]}
        )
    )
    return folder


def converted(folder: Path) -> dict:
    """What convert_hf_to_gguf.py takes from the folder: tokens by id, their types, the
    merges, the special ids, the template."""
    tj = json.loads((folder / "tokenizer.json").read_text())
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    by_id = {i: t for t, i in tj["model"]["vocab"].items()}
    types = {i: 1 for i in by_id}  # NORMAL
    for a in tj["added_tokens"]:
        by_id[a["id"]] = a["content"]
        types[a["id"]] = 3 if a["special"] else 4  # CONTROL / USER_DEFINED
    n = max(by_id) + 1
    tokens = [by_id.get(i, f"[PAD{i}]") for i in range(n)]
    ids = {t: i for i, t in enumerate(tokens)}
    merges = [m if isinstance(m, str) else " ".join(m) for m in tj["model"]["merges"]]
    return {
        "tokens": tokens,
        "types": [types.get(i, 4) for i in range(n)],
        "merges": merges,
        "pre": "llama-bpe",
        "bos": ids[cfg["bos_token"]],
        "eos": ids[cfg["eos_token"]],
        "template": cfg["chat_template"],
    }


def write_gguf(path: Path, conv: dict, tensor_bytes: int = 0) -> Path:
    """A GGUF of `conv` written by gguf.GGUFWriter (vocabulary only, or with one tensor
    whose data is a hole of `tensor_bytes`: a sparse file of that size)."""
    import gguf
    import numpy as np

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("gpt2")
    if conv.get("pre") is not None:
        w.add_tokenizer_pre(conv["pre"])
    w.add_token_list(conv["tokens"])
    w.add_token_types(conv["types"])
    w.add_token_merges(conv["merges"])
    w.add_bos_token_id(conv["bos"])
    w.add_eos_token_id(conv["eos"])
    if conv.get("template") is not None:
        w.add_chat_template(conv["template"])
    if tensor_bytes:
        w.add_tensor_info(
            "token_embd.weight",
            [tensor_bytes],
            np.dtype(np.uint8),
            tensor_bytes,
            raw_dtype=gguf.GGMLQuantizationType.I8,
        )
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    if tensor_bytes:
        with open(path, "r+b") as f:  # the tensor data: aligned, then a hole
            end = f.seek(0, os.SEEK_END)
            f.truncate(end + (-end % 32) + tensor_bytes)
    return path


BUG_NAMES = (
    "pre-missing",
    "start-of-turn-normal",
    "eos-end-of-text",
    "added-token-lost",
    "template-changed",
    "token-text-changed",
    "normal-token-control",
)


def bugs(conv: dict) -> dict[str, tuple[str, dict]]:
    """Each conversion bug of issue 27: name -> (the code it must give, the converted data)."""
    ids = {t: i for i, t in enumerate(conv["tokens"])}

    def changed(**kw) -> dict:
        return {**conv, **kw}

    types = list(conv["types"])
    types[ids["<start_of_turn>"]] = 1  # NORMAL instead of CONTROL (unsloth #5070)
    control = list(conv["types"])
    control[ids.get("the", 100)] = 3  # an ordinary token typed CONTROL: never produced
    renamed = list(conv["tokens"])
    k = next(i for i, t in enumerate(renamed) if len(t) > 3 and t.isalpha())
    renamed[k] = renamed[k].upper() + "x"
    return {
        "pre-missing": ("gguf-pre-missing", changed(pre=None)),
        "start-of-turn-normal": ("gguf-token-type", changed(types=types)),
        "eos-end-of-text": ("gguf-special-id", changed(eos=ids["<|end_of_text|>"])),
        "added-token-lost": ("gguf-mismatch", changed(tokens=conv["tokens"][:-1], types=conv["types"][:-1])),
        "template-changed": ("gguf-chat-template", changed(template=conv["template"].replace("\n", " "))),
        "token-text-changed": ("gguf-mismatch", changed(tokens=renamed)),
        "normal-token-control": ("gguf-token-type", changed(types=control)),
    }


def spm_conversion(model: Path) -> dict:
    """What convert_hf_to_gguf.py's SentencePiece path writes for a tokenizer.model, read with
    sentencepiece itself: pieces, scores, types (its NORMAL=1 ... BYTE=6 numbering)."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(model))
    types = []
    for i in range(sp.get_piece_size()):
        types.append(
            3 if sp.is_control(i) else 2 if sp.is_unknown(i) else 6 if sp.is_byte(i) else 5 if sp.is_unused(i) else 1
        )
    return {
        "tokens": [sp.id_to_piece(i) for i in range(sp.get_piece_size())],
        "scores": [sp.get_score(i) for i in range(sp.get_piece_size())],
        "types": types,
        "bos": sp.bos_id(),
        "eos": sp.eos_id(),
        "unk": sp.unk_id(),
    }


def write_spm_gguf(path: Path, conv: dict) -> Path:
    import gguf

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(conv["tokens"])
    w.add_token_scores(conv["scores"])
    w.add_token_types(conv["types"])
    w.add_bos_token_id(conv["bos"])
    w.add_eos_token_id(conv["eos"])
    w.add_unk_token_id(conv["unk"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    return path
