"""The playground's API (docs/playground.md), apart from HTTP: requests in as JSON bytes,
answers out as the objects the command line prints, a bad request as ApiError (its HTTP
status and one line)."""

from __future__ import annotations

import json

from .engines import Served


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Api:
    def __init__(self, served: list[Served]) -> None:
        self.served = served

    def tokenizers(self) -> list[dict]:
        """`GET /api/tokenizers`: [{"index", "path", "format"}]."""
        return [s.describe() for s in self.served]

    def specials(self, index) -> dict:
        """`GET /api/specials?tokenizer=INDEX`: {"ids"} of its special tokens (the page marks them)."""
        try:
            index = int(index)
        except (TypeError, ValueError):
            raise ApiError(400, "give ?tokenizer=INDEX") from None
        return {"ids": self._one(index).special_ids()}

    def encode(self, body: bytes) -> dict:
        """`POST /api/encode {"tokenizer": INDEX, "text"}`: the `encode --format json` object."""
        req = _object(body, {"tokenizer", "text"})
        text = req.get("text")
        if not isinstance(text, str):
            raise ApiError(400, '"text" must be a string')
        return self._one(req.get("tokenizer")).encode(text)

    def render(self, body: bytes) -> dict:
        """`POST /api/render {"tokenizer": INDEX, "messages": {...}}`: the `render --ids
        --format json` object of the chat through that folder's template."""
        req = _object(body, {"tokenizer", "messages"})
        served = self._one(req.get("tokenizer"))
        messages = req.get("messages")
        if isinstance(messages, list):  # as `render --messages`: a list is the messages alone
            messages = {"messages": messages}
        if not isinstance(messages, dict):
            raise ApiError(400, '"messages" must be an object {"messages": [...], "tools": ...} or a list of messages')
        try:
            from ..cli.render import RenderFailure, render_object
        except ImportError:
            raise ApiError(501, "chat rendering is not in this build of tokenizer-lsp yet") from None
        try:
            with served.lock:
                out = render_object(served.path, messages, ids=True)
        except RenderFailure as e:
            # 1: the template fails on this chat (the chat is fine as a request); 2: usage
            raise ApiError(
                422 if getattr(e, "status", 2) == 1 else 400, str(e).splitlines()[0] if str(e) else "render failed"
            ) from None
        out["findings"] = self._findings(served.path)  # beside the object of `render`: the page shows them
        return out

    def _findings(self, path: str) -> list:
        """The template checks' findings, computed once per served tokenizer (its files are
        read once: the playground serves what was on disk when it started)."""
        cache = self.__dict__.setdefault("_findings_cache", {})
        if path not in cache:
            from ..core.chat.template_index import findings_of_path

            try:
                cache[path] = findings_of_path(path)
            except Exception as e:  # noqa: BLE001 - the render answered; the checks are extra
                cache[path] = [
                    {
                        "code": "chat-template-render",
                        "severity": "error",
                        "line": None,
                        "message": f"the checks could not run: {e}",
                    }
                ]
        return cache[path]

    def _one(self, index) -> Served:
        if not isinstance(index, int) or isinstance(index, bool):
            raise ApiError(400, '"tokenizer" must be the index of a tokenizer (GET /api/tokenizers lists them)')
        if not 0 <= index < len(self.served):
            raise ApiError(
                404, f"no tokenizer {index}: this playground serves {len(self.served)} (0 to {len(self.served) - 1})"
            )
        return self.served[index]


def _object(body: bytes, fields: set[str]) -> dict:
    try:
        req = json.loads(body.decode("utf-8"))  # json, not orjson: it keeps a lone surrogate `\ud800`
    except UnicodeDecodeError:
        raise ApiError(400, "the body is not UTF-8") from None
    except json.JSONDecodeError as e:
        raise ApiError(400, f"the body is not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(req, dict):
        raise ApiError(400, f"the body must be a JSON object with {', '.join(sorted(fields))}")
    unknown = sorted(set(req) - fields)
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r} (the request takes {', '.join(sorted(fields))})")
    return req
