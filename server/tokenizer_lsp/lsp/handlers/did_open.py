"""didOpen: keep the text as UTF-8 bytes and index it at once."""

from __future__ import annotations

import logging

from lsprotocol import types

from ...core import detect
from ...core.formats.decoded_view import binary_opened_as_text

log = logging.getLogger("tokenizer_lsp")


def handle(ls, params: types.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    log.info("open %s v%s", td.uri.rsplit("/", 1)[-1], td.version)
    doc = ls.session.open(td.uri, td.version, td.text)
    td.text = ""  # pygls keeps the message alive until the next one: drop the str now
    data = doc.text.data
    if (told := binary_opened_as_text(doc.path, data)) is not None:
        # its text is the bytes mangled by a UTF-8 decoder: nothing to index; the user is
        # told where its tokens are (a log line alone reached nobody)
        log.info("%s", told)
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, told))
        return
    if not detect.language_may_hold_tokenizer(td.language_id) and not (
        detect.name_kind(doc.path)
        or detect.is_table_name(doc.path)
        or detect.is_chat_template_name(doc.path)
        or detect.content_kind(data, doc.path)
    ):
        return  # another language's file: never indexed, never reported on
    ls.scheduler.opened(doc)
