"""The publisher (lsp/publisher.py): a document's findings pushed XOR kept for pulls, never
a version older than one already out, and a closed document starting again from scratch."""

from __future__ import annotations

from types import SimpleNamespace

from tokenizer_lsp.lsp.capabilities import ResolvedClientCapabilities
from tokenizer_lsp.lsp.documents import DocumentState
from tokenizer_lsp.lsp.publisher import Publisher
from tokenizer_lsp.lsp.session import Session

URI = "file:///work/tokenizer.json"


def publisher(pull: bool, refresh: bool = True):
    session = Session()
    session.capabilities = ResolvedClientCapabilities(pull_diagnostics=pull, diagnostic_refresh=refresh)
    sent, refreshes = [], []
    server = SimpleNamespace(
        protocol=SimpleNamespace(notify_json=lambda method, params: sent.append((method, params))),
        workspace_diagnostic_refresh=lambda _: refreshes.append(1),
        workspace_inlay_hint_refresh=lambda _: None,
    )
    doc = DocumentState(uri=URI, path=None, version=1, data=b"{}")
    doc.served.was_tokenizer = True
    return Publisher(session, server), doc, sent, refreshes


def test_a_push_client_never_gets_an_older_version_after_a_newer_one():
    pub, doc, sent, _ = publisher(pull=False)
    assert pub.findings(doc, [{"code": "a"}], 5)
    assert not pub.findings(doc, [{"code": "b"}], 4)  # a late job for a replaced version
    assert pub.findings(doc, [{"code": "c"}], 5)  # the same version again (with the unreachable set)
    assert [(p["version"], p["diagnostics"]) for _, p in sent] == [(5, [{"code": "a"}]), (5, [{"code": "c"}])]
    assert doc.served.diagnostics == []  # nothing kept for pulls that never come


def test_a_pull_client_gets_nothing_pushed_and_is_asked_to_pull_when_another_file_moved_them():
    pub, doc, sent, refreshes = publisher(pull=True)
    assert pub.findings(doc, [{"code": "a"}], 2, caused_here=True)
    assert sent == [] and refreshes == [] and doc.served.diagnostics == [{"code": "a"}]
    assert pub.findings(doc, [{"code": "b"}], 3, caused_here=False)
    assert sent == [] and refreshes == [1] and doc.served.diagnostics == [{"code": "b"}]
    assert not pub.findings(doc, [{"code": "old"}], 2, caused_here=False)
    assert doc.served.diagnostics == [{"code": "b"}] and refreshes == [1]


def test_a_closed_document_is_cleared_and_may_start_again_from_version_1():
    pub, doc, sent, _ = publisher(pull=False)
    pub.findings(doc, [{"code": "a"}], 9)
    pub.closed(doc)
    assert sent[-1][1] == {"uri": URI, "diagnostics": []}
    assert pub.findings(doc, [{"code": "b"}], 1)
    assert sent[-1][1]["version"] == 1
