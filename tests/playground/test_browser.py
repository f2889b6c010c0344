"""The page in a real browser: Debian's Chromium, headless, driven by playwright's Python
package with the system browser (no browser download). Text typed into the textarea; the
coloured tokens read back from their data-token-id, in text order, and held to the format's
own library; two tokenizers side by side.

Screenshots of both modes go to artifacts/playground/ (and to docs/images/ with
UPDATE_DOCS_IMAGES=1)."""

import os
import shutil

import pytest

from tests.conftest import corpus_file

from . import oracles
from .harness import ROOT, start, stop

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "artifacts" / "playground"
NAMES = ["qwen3", "llama3"]


@pytest.fixture(scope="module")
def side_by_side():
    pg = start([str(corpus_file("qwen3/tokenizer.json").parent), str(corpus_file("llama3/tokenizer.json").parent)])
    yield pg
    stop(pg)


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


@pytest.fixture
def page(browser, side_by_side):
    context = browser.new_context(viewport={"width": 1280, "height": 760}, color_scheme="light")
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(side_by_side.url)
    settle(pg)  # every column, not only the first to answer: a test reads them all at once
    yield pg
    context.close()
    assert errors == []


def settle(page, text: str | None = None) -> None:
    """Until every column shows the textarea's text (and that text is `text`)."""
    page.wait_for_function(
        """([t, n]) => {
             const cols = [...document.querySelectorAll('#text-view .column')];
             return cols.length === n && (t === null || document.querySelector('#text-input').value === t) &&
                    cols.every(c => c.dataset.current === 'true'); }""",
        arg=[text, len(NAMES)],
        timeout=120_000,
    )


def page_ids(page, index: int, view: str = "#text-view") -> list[int]:
    return page.eval_on_selector_all(
        f'{view} .tokens [data-tokenizer="{index}"][data-token-id]', "els => els.map(e => Number(e.dataset.tokenId))"
    )


def shown_text(page, index: int) -> str:
    return page.eval_on_selector(f'#text-view .column[data-tokenizer="{index}"] .tokens', "e => e.textContent")


def screenshot(page, name: str, element: str | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    target = page.locator(element) if element else page
    target.screenshot(path=str(SHOTS / name))
    if os.environ.get("UPDATE_DOCS_IMAGES") == "1":
        shutil.copy(SHOTS / name, ROOT / "docs" / "images" / name)


# ---- text mode ------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", oracles.TEXTS)
def test_the_tokens_on_the_page_are_the_librarys(page, sample):
    text = oracles.TEXTS[sample]
    page.fill("textarea", text)
    settle(page, text)
    for i, name in enumerate(NAMES):
        assert page_ids(page, i) == oracles.ids(name, text), name
        assert shown_text(page, i) == text  # every character drawn, once, in order


def test_typed_key_by_key(page):
    page.fill("textarea", "")
    page.click("textarea")
    typed = "Typed key by key:\tcafé  ,  naïve 你好 👋!"
    page.keyboard.type(typed)
    settle(page, typed)
    for i, name in enumerate(NAMES):
        assert page_ids(page, i) == oracles.ids(name, typed)


def test_the_sample_text_and_the_counts(page):
    text = page.input_value("textarea")
    assert text  # the page starts with a sample
    for i, name in enumerate(NAMES):
        ids = oracles.ids(name, text)
        assert page_ids(page, i) == ids
        counts = page.eval_on_selector_all(
            f'#text-view .column[data-tokenizer="{i}"] [data-count]',
            "els => Object.fromEntries(els.map(e => [e.dataset.count, Number(e.textContent)]))",
        )
        assert counts["tokens"] == len(ids)
        assert counts["characters"] == len(text)  # code points, as Python counts them
    page.check("#toggle-whitespace")
    page.check("#toggle-ids")
    page.hover('#text-view .column[data-tokenizer="1"] .seg.multi .tok >> nth=0')
    page.locator(".tooltip").wait_for(state="visible")
    screenshot(page, "playground-text.png")


def test_dark_theme(browser, side_by_side):
    context = browser.new_context(viewport={"width": 1280, "height": 520}, color_scheme="dark")
    page = context.new_page()
    page.goto(side_by_side.url)
    settle(page)
    text = page.input_value("textarea")
    assert page_ids(page, 0) == oracles.ids("qwen3", text)
    screenshot(page, "playground-text-dark.png")
    context.close()


@pytest.mark.parametrize("grapheme", ["👨‍👩‍👧‍👦", "🏳️‍🌈", "👋🏽", "🇫🇷", "你"])
def test_a_character_split_across_tokens_is_one_segment(page, grapheme):
    text = f"a {grapheme} b"
    page.fill("textarea", text)
    settle(page, text)
    for i, name in enumerate(NAMES):
        segs = page.eval_on_selector_all(
            f'#text-view .column[data-tokenizer="{i}"] .seg',
            "els => els.map(e => [e.textContent, e.matches('[data-token-id]') ? 1 : e.querySelectorAll('[data-token-id]').length])",
        )
        # expected from the library's offsets: the tokens that touch the grapheme, as one run
        enc = (oracles.qwen3() if name == "qwen3" else oracles.llama3()).encode(text, add_special_tokens=False)
        g0, g1 = text.index(grapheme), text.index(grapheme) + len(grapheme)
        touching = [(a, b) for a, b in enc.offsets if a < g1 and b > g0]
        want = [text[min(a for a, _ in touching) : max(b for _, b in touching)], len(touching)]
        assert [s for s in segs if grapheme in s[0]] == [want], name


def test_whitespace_and_ids_toggles(page):
    text = "a\tb  c\nd"
    page.fill("textarea", text)
    settle(page, text)
    assert "·" not in shown_text(page, 0)
    page.check("#toggle-whitespace")
    shown = shown_text(page, 0)
    assert "→" in shown and "··" in shown and "↵" in shown
    assert page_ids(page, 0) == oracles.ids("qwen3", text)  # drawing whitespace changes no token
    page.check("#toggle-ids")
    for i, name in enumerate(NAMES):
        ids = page.eval_on_selector_all(
            f'#text-view .column[data-tokenizer="{i}"] .ids .id', "els => els.map(e => Number(e.textContent))"
        )
        assert ids == oracles.ids(name, text)


def test_where_the_columns_split_differently_is_marked(page):
    text = "internationalization of tokenizers, unbelievably"
    page.fill("textarea", text)
    settle(page, text)
    spans = {}
    for name in NAMES:  # ASCII: every token is its own segment; spans from the library's offsets
        enc = (oracles.qwen3() if name == "qwen3" else oracles.llama3()).encode(text, add_special_tokens=False)
        spans[name] = [tuple(o) for o in enc.offsets]
    for i, name in enumerate(NAMES):
        other = set(spans[NAMES[1 - i]])
        want = [text[a:b] for a, b in spans[name] if (a, b) not in other]
        got = page.eval_on_selector_all(
            f'#text-view .column[data-tokenizer="{i}"] .seg.diff', "els => els.map(e => e.textContent)"
        )
        assert got == want
        n = page.eval_on_selector(
            f'#text-view .column[data-tokenizer="{i}"] [data-count="differ"]', "e => Number(e.textContent)"
        )
        assert n == len(want)


def test_hover_shows_id_stored_form_and_bytes(page):
    text = "héllo 👋"
    page.fill("textarea", text)
    settle(page, text)
    enc = oracles.qwen3().encode(text, add_special_tokens=False)
    page.hover('#text-view .column[data-tokenizer="0"] .tok >> nth=1')
    tip = page.locator(".tooltip")
    tip.wait_for(state="visible")
    shown = tip.inner_text()
    tid = enc.ids[1]
    assert str(tid) in shown and enc.tokens[1] in shown
    raw = text[enc.offsets[1][0] : enc.offsets[1][1]].encode()
    assert " ".join(f"{b:02x}" for b in raw) in shown


def test_100_kb_of_text_works(page):
    text = ("".join(oracles.TEXTS.values()) * 200)[:100_000]
    page.fill("textarea", text)
    settle(page, text)
    for i, name in enumerate(NAMES):
        assert page_ids(page, i) == oracles.ids(name, text)


# ---- chat mode ------------------------------------------------------------------------------


def open_chat(page):
    page.click('[role="tab"][data-mode="chat"]')
    page.wait_for_selector("#chat-view .message")


def editor_messages(page) -> list[dict]:
    return page.eval_on_selector_all(
        "#chat-view .message",
        """rows => rows.map(r => ({
        role: r.querySelector('select').value, content: r.querySelector('textarea').value}))""",
    )


def test_chat_mode_starts_from_the_sample_chat_and_asks_render(page):
    with page.expect_request(lambda r: r.url.endswith("/api/render")) as first:
        open_chat(page)
    assert [m["role"] for m in editor_messages(page)] == ["system", "user", "assistant", "user"]
    body = first.value.post_data_json
    assert body["tokenizer"] in (0, 1)
    assert body["messages"] == {"messages": editor_messages(page), "add_generation_prompt": True}
    # an edit asks again, with the edit in it
    with page.expect_request(lambda r: r.url.endswith("/api/render")) as again:
        page.fill("#chat-view .message >> nth=1 >> textarea", "Count my tokens: 你好 👋")
    assert again.value.post_data_json["messages"]["messages"][1]["content"] == "Count my tokens: 你好 👋"
    page.fill("#chat-view .tools", '[{"type": "function", "function": {"name": "f", "parameters": {}}}]')
    page.wait_for_timeout(400)
    screenshot(page, "playground-chat-editor.png", "#chat-view .chat-editor")


def test_chat_mode_ids_are_transformers(page):
    from transformers import AutoTokenizer

    open_chat(page)
    page.wait_for_function(
        """() => { const cols = [...document.querySelectorAll('#chat-view .column')];
        return cols.length === 2 && cols.every(c => c.dataset.current === 'true'); }""",
        timeout=120_000,
    )
    messages = editor_messages(page)
    for i, folder in enumerate(["qwen3", "llama3"]):
        assert page.is_hidden(f'#chat-view .column[data-tokenizer="{i}"] .note')
        tok = AutoTokenizer.from_pretrained(str(corpus_file(f"{folder}/tokenizer.json").parent))
        want = tok.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
        want = list(want["input_ids"] if hasattr(want, "keys") else want)
        assert page_ids(page, i, "#chat-view") == want
        text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        shown = page.eval_on_selector(f'#chat-view .column[data-tokenizer="{i}"] .tokens', "e => e.textContent")
        assert shown == text
    screenshot(page, "playground-chat.png")
