"""chat-template-portability's analysis (core/chat/portability.py) against the engines themselves.

- huggingface.js: the real @huggingface/jinja (npm devDependency) runs under node
  (tests/hfjs_render.mjs): every construct the tables say it rejects is rejected by it, every
  "renders differently" is shown, and every portable spelling renders there as in jinja2.
- MiniJinja: the `minijinja` package, set up here independently as TGI sets it up.
- llama.cpp: we cannot run it here; its findings are held to the tables read from its source
  (portability_tables.py cites file and function), and to jinja2 for the portable spellings.
jinja2's side is always transformers' own renderer (tests/chat_fixtures.render_transformers).
"""

from __future__ import annotations

import pytest
from tokenizer_lsp.core.chat import portability_tables as T
from tokenizer_lsp.core.chat.portability import portability_issues

from tests.chat_fixtures import TEMPLATE_PATHS, chats, render_hfjs, render_transformers

CHAT = {
    "messages": [{"role": "user", "content": "hi"}],
    "add_generation_prompt": True,
    "bos_token": "<s>",
    "eos_token": "</s>",
}


def issues_for(source, engine, chat_list=None):
    chat_list = chat_list if chat_list is not None else [CHAT]
    return [
        i for i in portability_issues(source, chat_list, lambda c: render_transformers(source, c)) if i.engine == engine
    ]


# (template, the characters the finding must sit on, the portable replacement or None)
HFJS_REJECTED = [
    ("{{ messages|length|escape }}", "escape", None),
    ("{{ [1, 2]|sum }}", "sum", None),
    ("{{ [3, 1]|reject('odd')|list|length }}", "reject", None),
    ("{{ 'a'|default }}", "default", "default('')"),
    ("{{ ['a']|map('upper')|join }}", "map('upper')", None),
    ("{{ 4 is divisibleby 2 }}", "is divisibleby 2", None),
    ("{{ 4 is le(5) }}", "le", None),
    ("{{ 'x{}'.format(1) }}", "format(1)", None),
    ("{{ ', '.join(['a', 'b']) }}", "', '.join(['a', 'b'])", "['a', 'b']|join(', ')"),
    ("{{ dict(a=1, b='x')|tojson }}", "dict(a=1, b='x')", "{'a': 1, 'b': 'x'}"),
    (
        "{% for m in messages %}{{ loop.cycle('a', 'b') }}{% endfor %}",
        "loop.cycle('a', 'b')",
        "['a', 'b'][loop.index0 % 2]",
    ),
    ("{% raw %}{{ x }}{% endraw %}", "{% raw %}", None),
    ("{%+ if true %}a{% endif %}", "{%+", None),
    ("{% with a = 1 %}{{ a }}{% endwith %}", None, None),
]


@pytest.mark.parametrize("source,chars,portable", HFJS_REJECTED)
def test_hfjs_rejects_what_the_table_says_and_the_portable_spelling_renders(source, chars, portable):
    found = issues_for(source, T.HFJS)
    assert found, "no huggingface.js finding"
    if chars is not None:
        assert chars in [source[i.start : i.end] for i in found]
    node = render_hfjs([(source, [CHAT])])[0]
    assert "error" in node or "error" in node["renders"][0], f"huggingface.js accepts it: {node}"
    if portable is not None:
        issue = next(i for i in found if source[i.start : i.end] == chars)
        assert issue.portable == portable
        fixed = source[: issue.start] + portable + source[issue.end :]
        assert not [i for i in issues_for(fixed, T.HFJS) if i.construct == issue.construct]
        expected = render_transformers(source, CHAT)
        assert render_transformers(fixed, CHAT) == expected
        assert render_hfjs([(fixed, [CHAT])])[0]["renders"][0] == {"text": expected}


def test_hfjs_strip_with_characters_renders_differently():
    source = "{{ messages[0].content.lstrip('\\n') }}|"
    chat = {**CHAT, "messages": [{"role": "user", "content": "\n  indented"}]}
    found = issues_for(source, T.HFJS, [chat])
    assert [source[i.start : i.end] for i in found] == ["lstrip('\\n')"]
    assert render_hfjs([(source, [chat])])[0]["renders"][0]["text"] != render_transformers(source, chat)


# llama.cpp: (template, characters, portable): the tables only (it does not run here)
LLAMA_REJECTED = [
    ("{{ 2 ** 3 }}", "2 ** 3", None),
    ("{{ 7 // 2 }}", "7 // 2", None),
    ("{{ messages|length|escape }}", "escape", None),
    ("{{ [1, 2]|unique|list }}", "unique", None),
    ("{{ 4 is le(5) }}", "le", None),
    ("{{ 'a b'.find('b') }}", "find('b')", None),
    ("{{ '\\u2581x' }}", "'\\u2581x'", "'▁x'"),
    ("{{ ', '.join(['a', 'b']) }}", "', '.join(['a', 'b'])", "['a', 'b']|join(', ')"),
    (
        "{% for m in messages %}{{ loop.cycle('a', 'b') }}{% endfor %}",
        "loop.cycle('a', 'b')",
        "['a', 'b'][loop.index0 % 2]",
    ),
    ("{{ messages|selectattr('role', 'defined')|list|length }}", "selectattr('role', 'defined')", None),
    ("{{ 1 < 2 < 3 }}", "1 < 2 < 3", None),
]


@pytest.mark.parametrize("source,chars,portable", LLAMA_REJECTED)
def test_llama_finding_on_the_exact_characters_and_portable_renders_the_same(source, chars, portable):
    found = issues_for(source, T.LLAMA)
    assert chars in [source[i.start : i.end] for i in found]
    if portable is not None:
        issue = next(i for i in found if source[i.start : i.end] == chars)
        assert issue.portable == portable
        fixed = source[: issue.start] + portable + source[issue.end :]
        assert not [i for i in issues_for(fixed, T.LLAMA) if i.construct == issue.construct]
        assert render_transformers(fixed, CHAT) == render_transformers(source, CHAT)


def test_positions_survive_crlf_and_non_ascii():
    source = "{# é #}\r\n{{ 'ü' }}{{ messages|length|escape }}"
    found = issues_for(source, T.LLAMA)
    assert [source[i.start : i.end] for i in found] == ["escape"]


def test_minijinja_rejected_construct_at_its_characters():
    import minijinja

    source = "{{ messages|length|wordcount }}"
    with pytest.raises(minijinja.TemplateError):
        minijinja.Environment(pycompat=True).render_str(source, **CHAT)
    found = issues_for(source, T.MINIJINJA)
    assert [source[i.start : i.end] for i in found] == ["wordcount"]


def test_minijinja_trim_blocks_difference_is_named():
    source = "{% if true %}\nA{% endif %}"
    assert render_transformers(source, CHAT) == "A"
    found = issues_for(source, T.MINIJINJA)
    assert len(found) == 1 and (found[0].start, found[0].end) == (-1, -1)
    assert "trim_blocks" in found[0].message


def test_an_engine_that_renders_the_same_gets_no_finding():
    source = "{% for m in messages %}{{- m.role ~ ': ' ~ m.content|trim }}{% endfor %}"
    assert portability_issues(source, [CHAT], lambda c: render_transformers(source, c)) == []


def _tgi_minijinja(source: str, chat: dict) -> str:
    """MiniJinja as TGI's router/src/infer/chat_template.rs sets it up (written apart from the
    module under test, from the same reading)."""
    import minijinja

    source = source.replace("messages[0]['content'][0]['text']", "messages[0]['content']")
    source = source.replace("[::-1]", "|reverse").replace("{% generation %}", "").replace("{% endgeneration %}", "")
    env = minijinja.Environment(pycompat=True)

    def raise_exception(message):
        raise ValueError(message)

    env.add_function("raise_exception", raise_exception)
    env.add_function("strftime_now", lambda fmt: __import__("datetime").datetime.now().strftime(fmt))
    return env.render_str(source, **chat)


def test_real_templates_no_claim_an_engine_disproves():
    """Over the real templates: a template MiniJinja renders like jinja2 on every chat gets no
    MiniJinja finding, one it does not gets one; a template huggingface.js parses gets no finding
    that says it does not parse (statements, tag modifiers, escapes, test arguments); every
    huggingface.js rejection claimed on them is of a construct the minimal templates above show
    it rejecting."""
    sources = [p.read_text(encoding="utf-8") for p in TEMPLATE_PATHS]
    node = render_hfjs([(s, chats()) for s in sources])
    verified = {i.construct for s, _, _ in HFJS_REJECTED for i in issues_for(s, T.HFJS)}
    for path, source, hf in zip(TEMPLATE_PATHS, sources, node):
        chat_list = chats()
        expected = []
        for chat in chat_list:
            try:
                expected.append(render_transformers(source, chat))
            except Exception:
                expected.append(None)
        found = portability_issues(source, chat_list, lambda c: render_transformers(source, c))  # noqa: B023 (used in this iteration)
        mini_same = True
        for chat, want in zip(chat_list, expected):
            if want is None:
                continue
            try:
                mini_same &= _tgi_minijinja(source, chat) == want
            except Exception:
                mini_same = False
        assert mini_same == (not [i for i in found if i.engine == T.MINIJINJA]), path.name
        hf_found = [i for i in found if i.engine == T.HFJS]
        if "error" not in hf:  # it parses: no finding may say it does not
            assert not [i for i in hf_found if _parse_level(i.construct)], path.name
        for issue in hf_found:
            if issue.message.startswith(f"{T.HFJS} {T.REJECTS} "):
                assert issue.construct in verified, issue.message


def _parse_level(construct: str) -> bool:
    # statements, `{%+`, string escapes and test arguments fail in huggingface.js's parser
    return (
        construct.startswith(("`{%", "the `\\"))
        or construct.endswith("whitespace modifier")
        or construct.endswith("with an argument")
    )
