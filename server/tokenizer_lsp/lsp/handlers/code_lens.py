"""textDocument/codeLens: on a chat template (tokenizer_config.json's chat_template key, the
top of a chat_template.jinja): whether it renders, which standard chats it rejects, the tokens
of the sample chat, and "Preview" (the client's `tokenizerLsp.previewChatTemplate`: VS Code
opens the rendered prompt). What renders and what it rejects are the document's own findings;
the token count is one render in the engine helper process (lsp/chat_render.py)."""

from __future__ import annotations

import os

from lsprotocol import types

from ...core.chat.places import JINJA_DIR, JINJA_FILE
from ...core.model_folder.chat_template_file import FORMAT as TEMPLATE_FORMAT
from ...core.model_folder.chat_template_moves import chat_template_entry
from ...core.model_folder.config_doc import ConfigDocument
from ..chat_render import render_document
from ..lsp_types import JsonResult

OPTIONS = types.CodeLensOptions(resolve_provider=False)
PREVIEW = (
    "tokenizerLsp.openPlayground"  # docs/guides/check-a-chat-template.md: "Preview" opens the playground in chat mode
)
_SHORT = 80


def _short(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def _status(findings) -> list[str]:
    """The lens titles the findings of one template give: renders or not, what it rejects."""
    codes = {f.code: f for f in findings}
    for code in ("chat-template-syntax", "chat-template-render"):
        if code in codes:
            message = codes[code].message.removeprefix("the chat template ")
            return [_short(f"fails: {message}")]
    rejects = [
        f.message.removeprefix("the chat template rejects ").split(":", 1)[0]
        for f in findings
        if f.code == "chat-template-rejects"
    ]
    return ["renders", _short("rejects " + ", ".join(rejects)) if rejects else "accepts every standard chat"]


async def handle(ls, params: types.CodeLensParams):
    uri = params.text_document.uri
    snap = await ls.session.first_snapshot(uri)
    if snap is None or snap.path is None:
        return None
    idx = snap.index
    if idx.format == TEMPLATE_FORMAT:
        span, findings, effective = (0, 0), idx.findings, True
    elif isinstance(idx.doc, ConfigDocument) and idx.doc.name == "tokenizer_config.json":
        entry = chat_template_entry(idx.doc)
        if entry is None:
            return None
        span = (entry[0], entry[0])
        findings = [f for f in idx.findings if entry[0] <= f.start and f.end <= entry[1]]
        folder = os.path.dirname(os.path.abspath(snap.path))
        # the files replace the config's templates entirely (core/chat/places.py)
        effective = not (
            os.path.exists(os.path.join(folder, JINJA_FILE)) or os.path.isdir(os.path.join(folder, JINJA_DIR))
        )
    else:
        return None
    rng = snap.range_of(*span)
    if rng is None:
        return None
    (a, b), (c, d) = rng
    where = {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}
    titles = _status(findings) if effective else [f"not used: {JINJA_FILE} or {JINJA_DIR}/ takes effect instead"]
    if effective and not titles[0].startswith("fails"):
        found = await render_document(ls, uri, snap.path, idx, _sample(), snap.version)
        if "ids" in found:
            titles.append(f"{len(found['ids'])} tokens for the sample chat")
        elif "failure" in found:
            titles.append(_short(f"sample chat: {found['failure']}"))
    lenses = [{"range": where, "command": {"title": t, "command": ""}} for t in titles]
    # [uri, {"mode": "chat"}]: what the playground's command takes too (its chat mode)
    lenses.append(
        {"range": where, "command": {"title": "Preview", "command": PREVIEW, "arguments": [uri, {"mode": "chat"}]}}
    )
    return JsonResult(lenses)


def _sample() -> dict:
    from ...core.chat.chats import sample

    return sample()
