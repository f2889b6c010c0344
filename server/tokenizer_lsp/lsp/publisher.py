"""Where every document's findings go: pushed to clients that do not pull, kept for the next
pull of those that do (push XOR pull, docs/architecture.md), and never a version older than one
already sent (a late job for a replaced version is dropped here whatever it thinks).
"""

from __future__ import annotations

from lsprotocol import types


class Publisher:
    def __init__(self, session, server) -> None:
        self.session = session
        self.server = server  # sends notifications and requests to the client
        self._sent: dict[str, int] = {}  # uri -> newest version pushed or made the pull's answer

    def _newer(self, uri: str, version: int | None) -> bool:
        if version is None:
            return True
        last = self._sent.get(uri)
        if last is not None and version < last:
            return False
        self._sent[uri] = version
        return True

    def findings(self, doc, diags: list[dict], version: int, caused_here: bool = True) -> bool:
        """A version's diagnostics: pushed, or kept for the client's pulls and the client told
        to pull again when another file's change moved them (`caused_here` False). False when
        a newer version's are already out (nothing sent)."""
        if not self._newer(doc.uri, version):
            return False
        caps = self.session.capabilities
        # kept for pulls only: a client that is pushed to never asks (1000 of them are 1 MB,
        # and a second version of them at each edit)
        doc.served.diagnostics = diags if caps.pull_diagnostics else []
        if not caps.pull_diagnostics:
            self.publish(doc.uri, diags, version)
        elif not caused_here and caps.diagnostic_refresh:
            self.server.workspace_diagnostic_refresh(None)
        return True

    def publish(self, uri: str, diagnostics: list[dict], version: int | None = None) -> None:
        """Pushed as they are (closed config files, a closed document's clearing)."""
        params: dict = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.server.protocol.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

    def closed(self, doc) -> None:
        """A document was closed: its findings are cleared (push), its versions forgotten
        (it may be opened again from version 1)."""
        self._sent.pop(doc.uri, None)
        if doc.served.was_tokenizer and not self.session.capabilities.pull_diagnostics:
            self.publish(doc.uri, [])

    def refresh_hints(self) -> None:
        if self.session.capabilities.inlay_hint_refresh:
            self.server.workspace_inlay_hint_refresh(None)
