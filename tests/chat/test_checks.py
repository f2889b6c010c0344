"""The chat-template checks on real folders and injected defects, each expected value computed
by transformers (tests/chat/oracle.py): what it renders, what it raises, the ids its
tokenizer adds, the stop ids of generation_config.json."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tokenizer_lsp.core.chat.chats import standard_chats, with_next_turn

from tests.chat import oracle
from tests.conftest import corpus_file

FOLDERS = ["qwen3", "llama3", "gemma3"]


def check_json(path) -> list[dict]:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "tokenizer_lsp",
            "check",
            "--format",
            "json",
            "--severity",
            "unreachable-token=off",
            str(path),
        ],
        capture_output=True,
        timeout=300,
    )
    assert p.returncode in (0, 1), p.stderr
    return [r for r in json.loads(p.stdout) if r["code"].startswith("chat-template-")]


def codes(rows) -> set[str]:
    return {r["code"] for r in rows}


def expected(folder: str) -> set[str]:
    """The codes transformers' own behaviour implies for a folder (portability and clock
    aside: they are about other engines and the template's text)."""
    tok = oracle.auto_tokenizer(folder)
    out = set()
    chats = standard_chats()
    plain = chats["plain"][1]
    try:
        text = oracle.apply(folder, plain, tokenize=False)
    except Exception:  # noqa: BLE001
        return {"chat-template-render"}
    for _name, (_, chat) in chats.items():
        try:
            oracle.apply(folder, chat, tokenize=False)
        except Exception:  # noqa: BLE001
            out.add("chat-template-rejects")
    if (
        tok.bos_token
        and text.startswith(tok.bos_token)
        and tok("x", add_special_tokens=True)["input_ids"][:1] == [tok.bos_token_id]
    ):
        out.add("chat-template-double-bos")
    # the token after the first assistant reply, and whether generation stops on it
    reply = plain["messages"][1]["content"]
    rest = text[text.index(reply) + len(reply) :].lstrip()
    ends = [t for t in tok.added_tokens_encoder if rest.startswith(t) and t.strip()]
    if ends:
        end_id = tok.convert_tokens_to_ids(max(ends, key=len))
        stops = {tok.eos_token_id}
        try:
            from transformers import GenerationConfig

            eos = GenerationConfig.from_pretrained(folder).eos_token_id
            stops |= set(eos if isinstance(eos, list) else [eos])
        except OSError:
            pass
        if end_id not in stops:
            out.add("chat-template-stop-token")
    prompted = oracle.apply(folder, {**plain, "add_generation_prompt": True}, tokenize=False)
    bad = not (prompted.startswith(text) and len(prompted) > len(text))
    for _name, (_, chat) in chats.items():
        try:
            if not oracle.apply(folder, with_next_turn(chat), tokenize=False).startswith(
                oracle.apply(folder, chat, tokenize=False)
            ):
                bad = True
        except Exception:  # noqa: BLE001
            pass
    if bad:
        out.add("chat-template-generation-prompt")
    return out


@pytest.mark.parametrize("name", FOLDERS)
def test_corpus_folders(name):
    folder = str(corpus_file(f"{name}/tokenizer_config.json").parent)
    got = codes(check_json(folder)) - {"chat-template-portability", "chat-template-clock"}
    assert got == expected(folder)


def _folder(tmp_path, template: str | None, extra_files: dict | None = None) -> str:
    base = corpus_file("llama3/tokenizer.json").parent
    config = json.loads((base / "tokenizer_config.json").read_text())
    if template is None:
        config.pop("chat_template")
    else:
        config["chat_template"] = template
    files = {"tokenizer_config.json": json.dumps(config, indent=2)}
    files.update(extra_files or {})
    return oracle.folder_with(tmp_path, base, files)


LLAMA = (
    "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n"
    "{{ m.content }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant"
    "<|end_header_id|>\n\n{% endif %}"
)


def test_generation_config_makes_the_turn_end_a_stop_token(tmp_path):
    folder = _folder(tmp_path, LLAMA)
    assert "chat-template-stop-token" in expected(folder)
    assert "chat-template-stop-token" in codes(check_json(folder))
    (tmp_path / "model" / "generation_config.json").write_text(json.dumps({"eos_token_id": [128001, 128009]}))
    assert "chat-template-stop-token" not in expected(folder)
    assert "chat-template-stop-token" not in codes(check_json(folder))


@pytest.mark.parametrize(
    "template",
    [
        LLAMA.replace("{% endfor %}", ""),  # an unclosed for
        LLAMA.replace("{{ m.content }}", "{{ m.content | nofilter }}"),  # a filter jinja2 does not know
        LLAMA.replace("{% if add_generation_prompt %}", "{% if add_generation_prompt %"),
    ],
)
def test_syntax_error_at_its_line(tmp_path, template):
    import jinja2
    from transformers.utils.chat_template_utils import _compile_jinja_template

    with pytest.raises(jinja2.TemplateSyntaxError) as e:
        _compile_jinja_template(template)
    folder = _folder(tmp_path, template)
    rows = check_json(folder)
    assert [r["code"] for r in rows] == ["chat-template-syntax"]
    # the template is one JSON string on one line: the finding sits inside it, on the line jinja2 names
    config = (tmp_path / "model" / "tokenizer_config.json").read_text()
    line_text = config.splitlines()[rows[0]["range"]["start"]["line"]]
    assert line_text.lstrip().startswith('"chat_template"')
    start = rows[0]["range"]["start"]["character"]
    decoded = json.loads(line_text[line_text.index(":") + 1 :].strip().rstrip(","))
    assert decoded.count("\n") + 1 >= e.value.lineno and start > line_text.index(":")


@pytest.mark.parametrize(
    "edit, code",
    [
        (
            lambda t: "{% if messages[0]['role'] == 'system' %}{{ raise_exception('no system') }}{% endif %}" + t,
            "chat-template-rejects",
        ),
        (lambda t: "{{ raise_exception('never') }}" + t, "chat-template-render"),
        (
            lambda t: t.replace("{% if add_generation_prompt %}", "{% if not add_generation_prompt %}"),
            "chat-template-generation-prompt",
        ),
    ],
)
def test_injected_defects(tmp_path, edit, code):
    folder = _folder(tmp_path, edit(LLAMA))
    assert code in expected(folder)
    assert code in codes(check_json(folder))


def test_clock(tmp_path):
    folder = _folder(tmp_path, "Today: {{ strftime_now('%Y-%m-%d') }}\n" + LLAMA)
    import datetime

    assert datetime.date.today().isoformat() in oracle.apply(folder, standard_chats()["plain"][1], tokenize=False)
    assert "chat-template-clock" in codes(check_json(folder))


def test_copies_and_the_one_that_takes_effect(tmp_path):
    folder = _folder(tmp_path, LLAMA, {"chat_template.jinja": LLAMA.replace("<|eot_id|>", "<|eom_id|>")})
    rows = check_json(folder)
    copies = [r for r in rows if r["code"] == "chat-template-copies"]
    assert len(copies) == 1 and copies[0]["path"].endswith("tokenizer_config.json")
    # transformers takes the .jinja file: the finding says so
    assert "<|eom_id|>" in oracle.apply(folder, standard_chats()["plain"][1], tokenize=False)
    assert "takes effect" not in copies[0]["message"] or "chat_template.jinja" in copies[0]["message"]
    assert "transformers uses chat_template.jinja" in copies[0]["message"]


def test_missing(tmp_path):
    folder = _folder(tmp_path, None)
    with pytest.raises(ValueError):
        oracle.apply(folder, standard_chats()["plain"][1], tokenize=False)
    assert codes(check_json(folder)) == {"chat-template-missing"}


def test_check_a_jinja_file_and_an_unclosed_for(tmp_path):
    folder = _folder(tmp_path, None, {"chat_template.jinja": LLAMA.replace("{% endfor %}", "{% endfor")})
    p = subprocess.run(
        [sys.executable, "-m", "tokenizer_lsp", "check", str(tmp_path / "model" / "chat_template.jinja")],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 1 and b"chat-template-syntax" in p.stdout, p
    assert folder
