"""editor_overrides: the template text the editor holds, by file path, for the engine's render.

"Preview chat template" run on a tokenizer_config.json just opened met an index whose
document was a plain JsonDocument (no `path`) and failed with an AttributeError, shown to the
user as an error notification (the VS Code e2e's every-command-runs).
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

from tokenizer_lsp.core.formats.json.doc import JsonDocument
from tokenizer_lsp.core.model_folder.config_doc import ConfigDocument
from tokenizer_lsp.lsp.chat_render import editor_overrides

TEMPLATE = "{% for m in messages %}{{ m['content'] }}{% endfor %}"


def test_a_plain_json_document_has_no_override():
    doc = object.__new__(JsonDocument)  # as served before the config's own stage: no path
    assert not hasattr(doc, "path")
    assert editor_overrides(SimpleNamespace(doc=doc)) == {}


def test_a_config_gives_its_template_by_path(tmp_path):
    path = tmp_path / "tokenizer_config.json"
    data = json.dumps({"chat_template": TEMPLATE}).encode()
    path.write_bytes(data)
    got = editor_overrides(SimpleNamespace(doc=ConfigDocument(data, str(path))))
    assert got == {os.path.abspath(path): TEMPLATE}


def test_no_index_no_override():
    assert editor_overrides(None) == {}
