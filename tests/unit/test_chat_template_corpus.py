"""The real chat templates of tests/data/chat_templates are usable test data: each compiles as
transformers compiles it and renders at least the plain chat or another standard chat with
transformers' own renderer (the oracle), and each is the file SOURCES.md names."""

import hashlib

import pytest

from tests.chat_fixtures import CHATS, TEMPLATE_PATHS, TEMPLATES_DIR, render_transformers


def test_corpus_size_and_sources():
    assert 25 <= len(TEMPLATE_PATHS) <= 40
    assert sum(p.stat().st_size for p in TEMPLATE_PATHS) < 1_000_000
    sources = (TEMPLATES_DIR / "SOURCES.md").read_text(encoding="utf-8")
    for path in TEMPLATE_PATHS:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        assert f"| `{path.name}` | {path.stat().st_size} | `{digest}` |" in sources


@pytest.mark.parametrize("path", TEMPLATE_PATHS, ids=lambda p: p.stem)
def test_compiles_and_renders_with_transformers(path):
    from transformers.utils.chat_template_utils import _compile_jinja_template

    source = path.read_text(encoding="utf-8")
    _compile_jinja_template(source)  # raises TemplateSyntaxError when it does not compile
    rendered = {}
    for name, chat in CHATS.items():
        try:
            rendered[name] = render_transformers(source, chat)
        except Exception:  # a template may reject a kind of chat (e.g. a system message)
            pass
    assert rendered, "renders none of the standard chats"
    # the user's words reach the prompt
    assert any("Hello!" in text or "Weather" in text or "2+2" in text for text in rendered.values())
