"""The playground's HTTP server: the page, its assets and the API of docs/playground.md.

Python's own `http.server` (ThreadingHTTPServer), not a web framework: the server answers
one person's browser on 127.0.0.1, a handful of routes, and the standard library's request
parser (line and header limits, HTTP/1.1 keep-alive) is enough; a framework would be a new
runtime dependency of every install (and of the .vsix's bundled libraries) for a page most
users never open. Threads, not asyncio: the work of a request is an engine call
(tokenizers, tiktoken, sentencepiece) that holds the CPU anyway, and a thread per
connection keeps the page's next keystroke from waiting behind a slow chat render.

Safe by default, as Jupyter's server (docs/playground.md, "Safe by default"):
- it binds 127.0.0.1 only;
- every request carries the random token: the `token` query parameter, or the cookie the
  page sets (named by port: cookies do not tell ports apart), else 403;
- a `Host` that is not this server's own address, or an `Origin` that is not this page, is
  refused (403): a DNS-rebinding page that resolves its own name to 127.0.0.1 sends its name;
- the API names tokenizers by index: only the paths of the command line are ever read;
- assets come from a fixed table read from the package's static/ folder at start, looked up
  by exact name: no path from a request is ever joined to a folder, so `..`, `%2e%2e` and
  their kin find nothing;
- a bad request gets a 4xx and one line of text; a body over MAX_BODY gets 413; an engine
  that raises gets 500 and one line; the server keeps serving.
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import sys
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import orjson

from .api import Api, ApiError

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 1024 * 1024  # 1 MiB of JSON: 100 KB of any text fits, a 2 MB text does not
DRAIN_LIMIT = 16 * MAX_BODY  # a bigger refused body is not read: the connection closes
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def load_assets() -> dict[str, tuple[bytes, str]]:
    """name -> (bytes, content type) of every file directly in static/ (no sub-folders)."""
    out = {}
    for f in sorted(STATIC.iterdir()):
        if f.is_file() and not f.name.startswith("."):
            ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype in ("application/javascript", "text/javascript"):
                ctype += "; charset=utf-8"
            out[f.name] = (f.read_bytes(), ctype)
    return out


class PlaygroundServer(ThreadingHTTPServer):
    daemon_threads = True  # Ctrl-C does not wait for a browser's idle keep-alive connection
    allow_reuse_address = True

    def __init__(self, api: Api, port: int = 0, token: str | None = None) -> None:
        self.api = api
        self.token = token or secrets.token_urlsafe(24)
        self.assets = load_assets()
        super().__init__(("127.0.0.1", port), Handler)
        self.port = self.server_address[1]
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.cookie_name = f"tokenizer-lsp-playground-{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"


class Handler(BaseHTTPRequestHandler):
    server: PlaygroundServer
    protocol_version = "HTTP/1.1"
    server_version = "tokenizer-lsp-playground"
    timeout = 60  # an idle or trickling connection does not hold its thread for ever
    # TCP_NODELAY: the headers and the body go in two writes, and Nagle's algorithm held the
    # body until the client's delayed ACK came: 40 ms on every answer
    disable_nagle_algorithm = True

    # ---- answers -----------------------------------------------------------------------

    def version_string(self) -> str:
        return self.server_version  # not Python's version: nothing a page needs to know

    def log_message(self, format, *args) -> None:  # noqa: A002 (the base class's name)
        pass  # no access log on the terminal: the URL and the errors are what a user reads

    def send_error(self, code, message=None, explain=None) -> None:
        """One line of text, never the standard library's HTML page. The connection closes:
        a refused request's body may be unread, and must not be taken for the next request."""
        self.close_connection = True
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = ""
        self._reply(code, (message or phrase).replace("\n", " ") + "\n", "text/plain; charset=utf-8")

    def _reply(self, code: int, body: bytes | str, ctype: str, headers: dict | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _json(self, obj) -> None:
        try:
            data = orjson.dumps(obj)
        except TypeError:  # a lone surrogate in a stored form: orjson refuses, json escapes it
            data = json.dumps(obj).encode()
        self._reply(200, data, "application/json; charset=utf-8")

    # ---- the rules every request meets -------------------------------------------------

    def _allowed(self) -> bool:
        """Host, Origin and token; answers 403 itself when one fails."""
        srv = self.server
        host = self.headers.get("Host")
        if host not in srv.hosts:
            self.send_error(403, f"refused: Host {host!r} is not this playground's address (127.0.0.1:{srv.port})")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin not in srv.origins:
            self.send_error(403, f"refused: Origin {origin!r} is not this playground's page")
            return False
        given = self._query().get("token", [None])[0] or self._cookie_token()
        if not given or not secrets.compare_digest(given.encode(), srv.token.encode()):
            self.send_error(403, "refused: open the URL the playground printed (its token is missing or wrong)")
            return False
        return True

    def _query(self) -> dict:
        return parse_qs(urlsplit(self.path).query)

    def _cookie_token(self) -> str | None:
        raw = self.headers.get("Cookie")
        if not raw:
            return None
        try:
            jar = SimpleCookie(raw)
        except CookieError:
            return None
        morsel = jar.get(self.server.cookie_name)
        return morsel.value if morsel is not None else None

    # ---- routes ------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 (http.server's names)
        if not self._allowed():
            return
        path = urlsplit(self.path).path
        if path in ("/", "/index.html"):
            self._page()
        elif path.startswith("/static/"):
            self._asset(path[len("/static/") :])
        elif path == "/api/tokenizers":
            self._json(self.server.api.tokenizers())
        elif path == "/api/specials":
            self._api(lambda: self.server.api.specials(self._query().get("tokenizer", [None])[0]))
        elif path.startswith("/api/"):
            self.send_error(
                404 if path not in ("/api/encode", "/api/render") else 405,
                f"{path}: not an API of the playground"
                if path not in ("/api/encode", "/api/render")
                else f"{path} takes POST",
            )
        else:
            self.send_error(404, "not found")

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def do_POST(self) -> None:  # noqa: N802
        if not self._allowed():
            return
        path = urlsplit(self.path).path
        routes = {"/api/encode": self.server.api.encode, "/api/render": self.server.api.render}
        if path not in routes:
            self.send_error(404 if path != "/api/tokenizers" else 405, f"{path}: no such API (POST)")
            return
        body = self._body()
        if body is not None:
            self._api(lambda: routes[path](body))
            if len(body) >= 64 * 1024:  # a large text's temporaries: back to the system
                from ..core import seams

                seams.release_memory()

    def _api(self, call) -> None:
        try:
            result = call()
        except ApiError as e:
            self.send_error(e.status, str(e))
            return
        except Exception as e:  # noqa: BLE001 (an engine's own failure: one line, and serve on)
            print(f"tokenizer-lsp playground: {type(e).__name__}: {e}", file=sys.stderr)
            self.send_error(500, f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            return
        self._json(result)

    def _body(self) -> bytes | None:
        """The request body, or None after answering 411/413/400."""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            self.send_error(411, "send the body with a Content-Length (no chunked encoding)")
            return None
        raw = self.headers.get("Content-Length")
        try:
            length = int(raw) if raw is not None else -1
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            self.send_error(411, "a POST needs a Content-Length")
            return None
        if length > MAX_BODY:
            if length <= DRAIN_LIMIT:  # read it, so the client sees the answer, not a reset
                left = length
                while left > 0 and (chunk := self.rfile.read(min(left, 65536))):
                    left -= len(chunk)
            self.close_connection = True
            self.send_error(413, f"request body of {length} bytes is over the playground's limit of {MAX_BODY} bytes")
            return None
        return self.rfile.read(length)

    def _page(self) -> None:
        page, ctype = self.server.assets["index.html"]
        headers = {"Content-Security-Policy": PAGE_CSP}
        if "token" in self._query():  # the assets and API calls that follow carry the cookie
            headers["Set-Cookie"] = f"{self.server.cookie_name}={self.server.token}; Path=/; HttpOnly; SameSite=Strict"
        self._reply(200, page, ctype, headers)

    def _asset(self, name: str) -> None:
        got = self.server.assets.get(name)  # an exact name of the table: never a path
        if got is None or name == "index.html":
            self.send_error(404, "not found")
            return
        self._reply(200, got[0], got[1])


def serve(api: Api, port: int = 0, on_ready=None) -> int:
    """Serve until Ctrl-C; 0 then. on_ready(server) runs once the socket listens."""
    srv = PlaygroundServer(api, port)
    try:
        if on_ready is not None:
            on_ready(srv)
        srv.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0
