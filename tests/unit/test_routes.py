"""The routing table (lsp/routes.py) is the one place that says which methods the server
handles and how each runs: every method the server answers is a row of it, each row is
wired the way its mode says (a protocol override made from it, or a pygls feature), and
every handler module is routed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from tokenizer_lsp.lsp import handlers, server
from tokenizer_lsp.lsp.routes import ROUTES, Route, is_notification
from tokenizer_lsp.lsp.work import Mode

# what the protocol handles itself, not a route: the process's own end
HAND_WRITTEN = {types.EXIT, types.INITIALIZE}
# pygls' own, kept: the handshake's end, tracing, notebooks and folders (no feature of ours)
PYGLS_KEPT = {
    types.SHUTDOWN,
    types.SET_TRACE,
    types.NOTEBOOK_DOCUMENT_DID_OPEN,
    types.NOTEBOOK_DOCUMENT_DID_CHANGE,
    types.NOTEBOOK_DOCUMENT_DID_CLOSE,
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
    types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
}


@pytest.fixture(scope="module")
def made():
    return server.TokenizerServer()


def _own_overrides() -> dict[str, object]:
    """method -> the protocol method TokenizerProtocol itself defines for it."""
    return {f.method_name: f for f in vars(server.TokenizerProtocol).values() if hasattr(f, "method_name")}


def test_every_method_handled_is_a_route(made):
    fm = made.protocol.fm
    handled = set(fm.features) | set(fm.builtin_features)
    # pygls' own methods are kept only for what we do not route
    pygls_own = {f.method_name for f in vars(LanguageServerProtocol).values() if hasattr(f, "method_name")}
    assert handled == set(ROUTES) | HAND_WRITTEN | PYGLS_KEPT
    assert pygls_own >= PYGLS_KEPT and not PYGLS_KEPT & set(ROUTES)


def test_each_route_is_an_override_or_a_feature_as_its_kind_says(made):
    fm, own = made.protocol.fm, _own_overrides()
    for method, route in ROUTES.items():
        if method == types.INITIALIZE:  # pygls' handshake calls ours as a feature
            assert fm.features[method] is not None and own[method].__name__ == "lsp_initialize"
            continue
        if is_notification(method) or method == types.WORKSPACE_EXECUTE_COMMAND:
            # a notification is never a pygls feature: pygls keeps a future per message of those
            assert method not in fm.features, method
            assert own[method].route is route, method
            assert fm.builtin_features[method].__func__ is own[method], method
        else:
            assert method in fm.features, method
            assert method not in own, method


def test_background_requests_carry_a_cancel_token(made):
    fm = made.protocol.fm
    for method, route in ROUTES.items():
        if is_notification(method) or method in _own_overrides():
            continue
        feature = fm.features[method]
        inner = getattr(feature, "func", feature)  # pygls' wrapper that passes the server
        inner = getattr(inner, "func", inner)
        if route.mode is Mode.BACKGROUND:
            assert getattr(inner, "__wrapped__", None) is route.handler, method
        else:
            assert inner is route.handler, method


def test_every_handler_module_is_routed():
    folder = Path(handlers.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    routed = {r.handler.__module__.rpartition(".")[2] for r in ROUTES.values()}
    assert modules == routed


def test_options_are_the_handlers_own():
    assert ROUTES[types.WORKSPACE_EXECUTE_COMMAND].options.commands  # what VS Code forwards
    assert ROUTES[types.TEXT_DOCUMENT_HOVER].options is None


class _Server:
    pass


def test_a_sync_notification_runs_before_the_next_message():
    calls = []
    made = server._override(types.TEXT_DOCUMENT_DID_OPEN, Route(lambda ls, p: calls.append((ls, p)), Mode.SYNC))
    proto = type("P", (), {"_server": _Server()})()
    assert made(proto, "params") is None
    assert calls == [(proto._server, "params")]  # done when the call returns


def test_a_background_notification_runs_as_a_task():
    calls = []

    async def handler(ls, params):
        calls.append(params)

    async def main():
        made = server._override(types.WORKSPACE_DID_CHANGE_CONFIGURATION, Route(handler, Mode.BACKGROUND))
        proto = type("P", (), {"_server": _Server()})()
        made(proto, "params")
        assert calls == []  # started, not run yet
        await asyncio.sleep(0)
        assert calls == ["params"]

    asyncio.run(main())
