"""A GGUF's tokenizer against the HF folder it was converted from: the `gguf-*` codes.

The comparisons follow what llama.cpp's convert_hf_to_gguf.py writes, so that a faithful
conversion gives no finding:
- token text at each id (`gguf-mismatch`): the GGUF token against the HF token at that id
  (vocabulary and added tokens), compared by meaning: a WordPiece token is written `▁x` at
  a word start and `x` for `##x`; ids past the HF vocabulary the converter pads with
  `[PAD{id}]`; a byte-level token the converter stored as text (an added token) is equal
  when its bytes are;
- the merges, in order (`gguf-mismatch`, key tokenizer.ggml.merges);
- the split (`gguf-mismatch`, key tokenizer.ggml.pre): probe texts that tell the known
  pre-tokenizers apart, encoded by HF `tokenizers` from tokenizer.json and by llama.cpp's
  tokenization of the GGUF (formats/gguf/engine.py); compared only when the vocabularies
  agree, so that a difference is the split's;
- token types (`gguf-token-type`): an HF added token with `special: true` must be CONTROL
  (UNKNOWN for the unk token); a CONTROL token must be an HF added token;
- special ids (`gguf-special-id`): bos/eos/pad/unk against tokenizer_config.json's tokens,
  and eos against generation_config.json's eos_token_id;
- the chat template (`gguf-chat-template`): tokenizer_config.json's `chat_template` (or
  chat_template.jinja) against tokenizer.chat_template.
"""

from __future__ import annotations

import os

import orjson

from ...decoding.bytemap import byte_level_decode
from ...decoding.display import quoted as _q
from ..table import FormatError, TableFinding, TokenTable
from .rows import K

MAX_LISTED = 50
# texts on which the known pre-tokenizers split differently (digits in groups of 1, 3 or
# any; contractions; runs of spaces and newlines; CJK; punctuation runs; letters + marks)
PROBES = (
    "1234567890 12 345",
    "I'll don't WE'RE you've",
    "Hello world\n\n\n   indented\tcode();  ",
    "这是一个测试。日本語のテキスト 한국어",
    "hello!!! ...(world) [x] {y} <z>",
    "HelloWorld camelCase CONSTANT_NAME",
    "Ürün café naïve résumé",
    "line1\r\nline2\n\nline3",
    "🦙 🚀 emoji  ",
    "$100 + 20% = €5,000.50",
)


def _json(path: str):
    try:
        with open(path, "rb") as f:
            return orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return None


def _content(v) -> str | None:
    if isinstance(v, dict):
        v = v.get("content")
    return v if isinstance(v, str) else None


def compare(table: TokenTable, folder: str) -> list[TableFinding]:
    cfg = _json(os.path.join(folder, "tokenizer_config.json"))
    cfg = cfg if isinstance(cfg, dict) else {}
    gen = _json(os.path.join(folder, "generation_config.json"))
    gen = gen if isinstance(gen, dict) else {}
    tj = _json(os.path.join(folder, "tokenizer.json"))
    if not isinstance(tj, dict) or not isinstance(tj.get("model"), dict):
        spm = os.path.join(folder, "tokenizer.model")
        return compare_model(table, spm, cfg, gen, folder) if os.path.isfile(spm) else []
    hf = _hf_tokens(tj)
    out = token_text(table, tj, hf)
    text_ok = not out
    out += merges(table, tj)
    out += token_types(table, tj, hf)
    out += special_ids(table, cfg, gen, hf)
    out += chat_template(table, cfg, folder)
    if text_ok and not any(f.key == K + "merges" for f in out):
        out += split(table, os.path.join(folder, "tokenizer.json"))
    return out


def compare_model(table: TokenTable, path: str, cfg: dict, gen: dict, folder: str) -> list[TableFinding]:
    """The same against a SentencePiece tokenizer.model (a folder without tokenizer.json):
    its pieces are what the converter writes for a `llama` GGUF, its CONTROL pieces must stay
    CONTROL, and the split is sentencepiece's own."""
    from .. import registry

    try:
        spm = registry.plugin("sentencepiece").read(path)
    except (OSError, FormatError):
        return []  # the .model's own check reports it
    hf = {r.id: (r.token, r.type in ("CONTROL", "UNKNOWN", "USER_DEFINED")) for r in spm.rows}
    tj = {
        "model": {"type": "BPE"},
        "added_tokens": [{"id": r.id, "content": r.token, "special": True} for r in spm.rows if r.type == "CONTROL"],
    }
    out = token_text(table, tj, hf)
    text_ok = not out
    out += token_types(table, tj, hf)
    out += special_ids(table, cfg, gen, hf)
    out += chat_template(table, cfg, folder)
    # llama.cpp applies no SentencePiece normalizer (nmt_nfkc, ...): with one, the probes
    # would only show that, which no conversion can change
    if text_ok and spm.meta.get("normalizer_name") in ("identity", None):
        out += split(table, path, lambda text: registry.plugin("sentencepiece").encode(spm, text, False, folder))
    return out


def _hf_tokens(tj: dict) -> dict[int, tuple[str, bool]]:
    """id -> (token, is an added token) of a tokenizer.json."""
    vocab = tj["model"].get("vocab")
    out: dict[int, tuple[str, bool]] = {}
    if isinstance(vocab, dict):
        out.update((i, (t, False)) for t, i in vocab.items() if isinstance(i, int))
    elif isinstance(vocab, list):  # Unigram: [[piece, score], ...]
        out.update((i, (p[0], False)) for i, p in enumerate(vocab) if isinstance(p, list) and p)
    for a in tj.get("added_tokens") or ():
        if isinstance(a, dict) and isinstance(a.get("id"), int) and isinstance(a.get("content"), str):
            out[a["id"]] = (a["content"], True)
    return out


def _spelled(model_type: str | None, hf_model: str | None, token: str, added: bool) -> str:
    """How convert_hf_to_gguf.py writes an HF token."""
    if model_type == "bert" and not added and not (token.startswith("[") and token.endswith("]")):
        return token[2:] if token.startswith("##") else "\u2581" + token
    return token


def _same_meaning(gguf_row, hf_token: str, added: bool, model_type: str | None) -> bool:
    if model_type == "gpt2" and added:  # added tokens: stored as text or through the byte map
        return gguf_row.data in (hf_token.encode("utf-8", "surrogateescape"), byte_level_decode(hf_token))
    return False


def token_text(table: TokenTable, tj: dict, hf: dict[int, tuple[str, bool]]) -> list[TableFinding]:
    model_type = table.meta.get("model_type")
    rows = table.rows
    out, more = [], 0
    for i in sorted(set(hf) | set(range(len(rows)))):
        if i in hf:
            token, added = hf[i]
            want = _spelled(model_type, tj["model"].get("type"), token, added)
            if i >= len(rows):
                msg = f"HF has {_q(token)} at id {i}; the GGUF has {len(rows)} tokens (lost in conversion)"
            elif rows[i].token == want or _same_meaning(rows[i], token, added, model_type):
                continue
            else:
                msg = f"id {i}: the GGUF has {_q(rows[i].token)}, HF has {_q(token)}"
        else:
            if rows[i].token == f"[PAD{i}]":  # the converter's padding up to the model's vocab size
                continue
            msg = f"id {i}: the GGUF has {_q(rows[i].token)}, HF has no token at this id"
        if len(out) < MAX_LISTED:
            out.append(TableFinding("gguf-mismatch", msg, id=i))
        else:
            more += 1
    if out:
        out.insert(0, _verdict(len(rows), len(hf), len(out) + more, more))
    return out


def _verdict(n_gguf: int, n_hf: int, differ: int, more: int) -> TableFinding:
    """What the mismatched ids amount to, said before them: a GGUF checked against another
    model's folder differs at nearly every id, which 50 listed ids never said."""
    sizes = f"the GGUF has {n_gguf:,} tokens, HF has {n_hf:,}"
    listed = f" (the first {differ - more} listed by id)" if more else ""
    if differ > max(n_gguf, n_hf) / 2:
        msg = f"different tokenizers: {sizes}; {differ:,} ids hold another token{listed}"
    else:
        ids = "1 id holds" if differ == 1 else f"{differ:,} ids hold"
        msg = f"{ids} another token than HF's{listed}" + ("" if n_gguf == n_hf else f"; {sizes}")
    return TableFinding("gguf-mismatch", msg, key=K + "tokens")


def merges(table: TokenTable, tj: dict) -> list[TableFinding]:
    hf = tj["model"].get("merges")
    ours = table.meta.get("_merges")
    if not isinstance(hf, list) or tj["model"].get("type") != "BPE":
        return []
    if not ours:
        if table.meta.get("model_type") == "llama":  # SentencePiece BPE: scores, not merges
            return []
        return [TableFinding("gguf-mismatch", f"the GGUF has no merges; HF has {len(hf)}", key=K + "merges")]
    hf_lines = [" ".join(m) if isinstance(m, list) else m for m in hf]
    key = K + "merges"
    if len(hf_lines) != len(ours):
        first = f"{len(ours)} merges in the GGUF, {len(hf_lines)} in HF"
    else:
        first = None
    for i, (a, b) in enumerate(zip(ours, hf_lines)):
        if a != b:
            return [
                TableFinding(
                    "gguf-mismatch",
                    (first + "; " if first else "") + f"merge #{i}: the GGUF has {_q(a)}, HF has {_q(b)}",
                    key=key,
                )
            ]
    return [TableFinding("gguf-mismatch", first, key=key)] if first else []


def token_types(table: TokenTable, tj: dict, hf: dict[int, tuple[str, bool]]) -> list[TableFinding]:
    special = {
        a["id"]: a["content"]
        for a in tj.get("added_tokens") or ()
        if isinstance(a, dict) and a.get("special") and isinstance(a.get("id"), int)
    }
    added = {i for i, (_, is_added) in hf.items() if is_added}
    out = []
    for i, content in sorted(special.items()):
        if i >= len(table.rows):
            continue  # said by token_text
        row = table.rows[i]
        if row.token != content:
            continue  # another token at this id: token_text says so
        if row.type not in ("CONTROL", "UNKNOWN"):
            out.append(
                TableFinding(
                    "gguf-token-type",
                    f"{_q(content)} (id {i}) is special in HF but {row.type} in "
                    "the GGUF: llama.cpp splits it like text and never emits it as one token",
                    id=i,
                )
            )
    for row in table.rows:
        if row.type == "CONTROL" and row.id in hf and row.id not in added and hf[row.id][0] == row.token:
            out.append(
                TableFinding(
                    "gguf-token-type",
                    f"{_q(row.token)} (id {row.id}) is CONTROL in the GGUF but an ordinary vocabulary token in HF",
                    id=row.id,
                )
            )
    return out[:MAX_LISTED]


def _hf_id(token, hf_ids: dict[str, int]) -> int | None:
    text = _content(token)
    return hf_ids.get(text) if text is not None else None


def special_ids(table: TokenTable, cfg: dict, gen: dict, hf: dict[int, tuple[str, bool]]) -> list[TableFinding]:
    hf_ids = {t: i for i, (t, _) in sorted(hf.items())}
    out = []
    for name, cfg_key, gen_key in (
        ("bos", "bos_token", "bos_token_id"),
        ("eos", "eos_token", "eos_token_id"),
        ("padding", "pad_token", "pad_token_id"),
        ("unknown", "unk_token", None),
    ):
        ours = table.meta.get(f"{name}_token_id")
        key = f"{K}{name}_token_id"
        want = _hf_id(cfg.get(cfg_key), hf_ids)
        where = f"tokenizer_config.json's {cfg_key} {_q(_content(cfg.get(cfg_key)) or '')}"
        if want is None and gen_key and isinstance(gen.get(gen_key), int):
            want, where = gen[gen_key], f"generation_config.json's {gen_key}"
        if want is None or ours == want:
            pass
        else:
            tok = table.rows[ours].token if isinstance(ours, int) and 0 <= ours < len(table.rows) else None
            out.append(
                TableFinding(
                    "gguf-special-id",
                    f"{key} is {ours}" + (f" ({_q(tok)})" if tok else " (not set)") + f"; {where} is id {want}",
                    key=key,
                )
            )
            continue
        gen_eos = gen.get("eos_token_id") if name == "eos" else None
        if isinstance(gen_eos, list) and ours is not None:
            ends = {ours, table.meta.get("eot_token_id"), table.meta.get("eom_token_id")}
            missed = [i for i in gen_eos if isinstance(i, int) and i not in ends]
            if missed and ours not in gen_eos:
                out.append(
                    TableFinding(
                        "gguf-special-id",
                        f"{key} is {ours}, not one of generation_config.json's eos_token_id {gen_eos}",
                        key=key,
                    )
                )
    return out


def chat_template(table: TokenTable, cfg: dict, folder: str) -> list[TableFinding]:
    """The GGUF's template against the one transformers takes from the folder, by rendering
    (core/chat/gguf_checks.py)."""
    from ...chat.gguf_checks import compare_rendered
    from ...chat.places import NoTemplate, effective, folder_places
    from ...chat.source import special_tokens

    try:
        hf = effective(folder_places(folder, cfg))
    except NoTemplate:
        return []
    special_map = None
    try:
        import orjson

        with open(os.path.join(folder, "special_tokens_map.json"), "rb") as f:
            special_map = orjson.loads(f.read())
    except (OSError, ValueError):
        pass
    return compare_rendered(table, hf.text, special_tokens(cfg, special_map), hf.label)


def split(table: TokenTable, source: str, source_encode=None) -> list[TableFinding]:
    """The probe texts encoded both ways; `source_encode` (text -> ids) for a source that is
    not a tokenizer.json."""
    from .engine import encode

    if source_encode is None:
        from tokenizers import Tokenizer

        try:
            hf = Tokenizer.from_file(source)
        except Exception:  # tokenizers' own exception: the tokenizer.json's own check reports it
            return []
        hf.no_padding()  # the split is compared, not what a batch would be padded to
        hf.no_truncation()

        def source_encode(text: str) -> list[int]:
            return hf.encode(text, add_special_tokens=False).ids

    key = K + "pre"
    name = "HF's " + os.path.basename(source)
    for text in PROBES:
        try:
            ours = encode(table, text, False)
        except FormatError:
            return []
        want = source_encode(text)
        if ours != want:
            pre = table.meta.get("pre")
            return [
                TableFinding(
                    "gguf-mismatch",
                    f"{_q(text)} encodes to {ours[:12]} with tokenizer.ggml.pre "
                    f"{_q(pre) if pre else '(missing)'}, to {want[:12]} with {name}",
                    key=key,
                )
            ]
    return []
