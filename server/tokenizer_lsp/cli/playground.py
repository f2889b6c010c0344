"""`playground [PATH...] [--port N] [--no-browser]`: a page on 127.0.0.1 that shows the
tokens of a text for each PATH side by side, and each folder's chat template rendered
(docs/playground.md). The server and its safety rules: playground/server.py."""

from __future__ import annotations

import sys

from .common import err
from .progress import progress


def add_arguments(p) -> None:
    p.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        help="tokenizer files or model folders, one column each (default: the current folder)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=0,
        metavar="N",
        dest="playground_port",
        help="listen on this port (default: a free one)",
    )  # not `port`: serve's --port (2087) is merged in
    p.add_argument("--no-browser", action="store_true", help="print the URL, do not open a browser")


def run(args) -> int:
    from ..playground.api import Api
    from ..playground.engines import PlaygroundError, load_one
    from ..playground.server import serve

    if not 0 <= args.playground_port <= 65535:
        err(f"--port {args.playground_port}: not a port (0 to 65535)")
        return 2
    from ..core import seams

    paths = args.paths or ["."]
    served = []
    for k, path in enumerate(paths):
        try:
            with progress(f"loading {path}"):
                served.append(load_one(k, path))
        except PlaygroundError as e:
            err(str(e))
            return 2
        except KeyboardInterrupt:  # Ctrl-C while a large file loads
            return 0
    seams.release_memory()  # the files' text and the parsers' temporaries are freed, but in RSS until trimmed

    def ready(srv) -> None:
        lines = [f"tokenizer-lsp playground: {srv.url}"]
        lines += [f"  [{s.index}] {s.path} ({s.format})" for s in served]
        lines.append("Ctrl-C stops it.")
        print("\n".join(lines), flush=True)
        if not args.no_browser:
            import threading

            # in a thread: a console browser (lynx, w3m) runs until it quits, and the page
            # must be served meanwhile
            threading.Thread(target=_open_browser, args=(srv.url,), daemon=True).start()

    try:
        code = serve(Api(served), args.playground_port, ready)
    except OSError as e:  # the port is taken, or not ours to bind
        err(f"cannot listen on 127.0.0.1:{args.playground_port}: {e.strerror or e}")
        return 2
    print("tokenizer-lsp playground: stopped", file=sys.stderr, flush=True)
    return code


def _open_browser(url: str) -> None:
    import webbrowser

    try:
        opened = webbrowser.open(url)
    except Exception:  # noqa: BLE001 (a broken browser setting: the printed URL is enough)
        opened = False
    if not opened:
        print(
            "tokenizer-lsp playground: no browser to open here: open the URL above in one", file=sys.stderr, flush=True
        )
