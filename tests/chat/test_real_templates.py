"""Every real template of tests/data/chat_templates (38, from the llama-cpp-python sdist;
SOURCES.md) rendered by core/chat exactly as transformers renders it, on the sample chat and
every standard chat with and without one more turn and the generation prompt; a template
transformers refuses on a chat is refused by ours too. And the checks never crash on them."""

from __future__ import annotations

from datetime import datetime

import pytest
from tokenizer_lsp.core.chat.apply import apply
from tokenizer_lsp.core.chat.chats import sample, standard_chats, with_next_turn
from tokenizer_lsp.core.chat.checks import template_findings
from tokenizer_lsp.core.chat.context import ChatContext

from tests.chat import oracle
from tests.chat_fixtures import TEMPLATE_PATHS

# a corpus file's unreachable-token set, which nothing here looks at: computed once a run
# (tests/conftest.py unreachable_sets_of_the_run)
pytestmark = pytest.mark.usefixtures("unreachable_sets_of_the_run")

SPECIAL = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
CHATS = (
    [sample()]
    + [c for _, c in standard_chats().values()]
    + [with_next_turn(c) for _, c in standard_chats().values()]
    + [{**c, "add_generation_prompt": True} for _, c in standard_chats().values()]
)


def test_there_are_real_templates():
    assert len(TEMPLATE_PATHS) >= 30


@pytest.mark.parametrize("path", TEMPLATE_PATHS, ids=lambda p: p.stem)
def test_real_template_renders_as_transformers(path, monkeypatch):
    import transformers.utils.chat_template_utils as ctu

    template = path.read_text(encoding="utf-8")
    fixed = datetime(2026, 1, 31, 12, 0, 0)

    class FixedNow(datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    monkeypatch.setattr(ctu, "datetime", FixedNow)  # transformers' strftime_now reads ctu.datetime.now()
    rendered = 0
    for chat in CHATS:
        try:
            theirs = oracle.render_text(template, chat, SPECIAL)
        except Exception as e:  # noqa: BLE001
            theirs = ("raises", type(e).__name__)
        try:
            ours = apply(template, chat, SPECIAL, now=fixed).text
        except Exception as e:  # noqa: BLE001
            ours = ("raises", type(e).__name__)
        if isinstance(theirs, tuple):  # the oracle's refusal: ours refuses too (the kind may differ)
            assert isinstance(ours, tuple), (chat, ours)
        else:
            assert ours == theirs, chat
            rendered += 1
    assert rendered > 0


@pytest.mark.parametrize("path", TEMPLATE_PATHS, ids=lambda p: p.stem)
def test_checks_run_on_real_templates(path):
    """Every finding lies inside the template and names a chat-template code."""
    template = path.read_text(encoding="utf-8")
    ctx = ChatContext(SPECIAL, {"<s>": 1, "</s>": 2}, {2: "eos_token"}, None)
    for f in template_findings(template, ctx):
        assert f.code.startswith("chat-template-") and 0 <= f.start <= f.end <= len(template), f


@pytest.fixture(scope="module")
def qwen3_tokenizer():
    from tests.conftest import corpus_file

    folder = corpus_file("qwen3/tokenizer.json").parent
    return str(folder), oracle.auto_tokenizer(str(folder))


@pytest.mark.parametrize("path", TEMPLATE_PATHS, ids=lambda p: p.stem)
def test_real_template_ids_are_apply_chat_template(path, qwen3_tokenizer):
    """The ids of each real template's prompt (sample chat, and the tools chat), encoded with
    qwen3's tokenizer as `render --ids` encodes (the prompt's reduced BPE), equal to
    transformers' apply_chat_template(tokenize=True, chat_template=...)."""
    from tokenizer_lsp.cli.chat_ids import encode_prompt
    from tokenizer_lsp.core.chat.source import open_source

    folder, tok = qwen3_tokenizer
    special = open_source(folder).special_tokens
    template = path.read_text(encoding="utf-8")
    compared = 0
    for chat in (
        sample(),
        standard_chats()["tools"][1],
        {**standard_chats()["plain"][1], "add_generation_prompt": True},
    ):
        chat = {**chat, "bos_token": "<|endoftext|>"}  # qwen3 has none; some templates need one (a variable)
        kw = {k: v for k, v in chat.items() if k != "messages"}
        try:
            want = tok.apply_chat_template(
                chat["messages"], chat_template=template, tokenize=True, return_dict=False, **kw
            )
        except Exception:  # noqa: BLE001 - the template refuses this chat (held above)
            continue
        text = apply(template, chat, special).text
        assert encode_prompt(f"{folder}/tokenizer.json", text)["ids"] == list(want)
        compared += 1
    assert compared > 0
