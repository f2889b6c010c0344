"""A real `tokenizer-lsp playground` process for the tests, and raw HTTP to it (http.client:
the tests set Host, Origin and Cookie themselves)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Playground:
    proc: subprocess.Popen
    url: str
    port: int
    token: str
    banner: str

    def request(
        self, method: str, path: str, body: bytes | str | None = None, headers: dict | None = None, token: bool = True
    ) -> tuple[int, dict, bytes]:
        """(status, headers with lower-case names, body). `token`: add ?token= to the path."""
        if token:
            path += ("&" if "?" in path else "?") + f"token={self.token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            hdrs = {"Host": f"127.0.0.1:{self.port}"}
            hdrs.update(headers or {})
            if isinstance(body, str):
                body = body.encode("utf-8")
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for k, v in hdrs.items():
                if v is not None:
                    conn.putheader(k, v)
            if body is not None and "Transfer-Encoding" not in hdrs:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            res = conn.getresponse()
            return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
        finally:
            conn.close()

    def api(self, path: str, obj=None):
        """An API call that must succeed: its JSON."""
        status, _, body = self.request("GET" if obj is None else "POST", path, None if obj is None else json.dumps(obj))
        assert status == 200, (status, body[:300])
        return json.loads(body)

    def alive(self) -> bool:
        """The process runs and still answers."""
        if self.proc.poll() is not None:
            return False
        status, _, body = self.request("GET", "/api/tokenizers")
        return status == 200 and isinstance(json.loads(body), list)


def _terminal_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(paths: list[str], *extra: str) -> Playground:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokenizer_lsp", "playground", *paths, "--no-browser", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        # as started from a terminal, where Ctrl-C is SIGINT's default: a pytest started in the
        # background by a script (`pytest &`) ignores SIGINT, and a child inherits that
        preexec_fn=_terminal_signals,
    )
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"playground exited {proc.wait()}: {proc.stderr.read()}")
        lines.append(line)
        if line.startswith("Ctrl-C"):
            break
    banner = "".join(lines)
    m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)", banner)
    assert m, banner
    return Playground(proc, m.group(0), int(m.group(1)), m.group(2), banner)


def stop(pg: Playground) -> tuple[int, str]:
    """Ctrl-C, as a person at the terminal: (exit status, stderr)."""
    if pg.proc.poll() is None:
        pg.proc.send_signal(signal.SIGINT)
    try:
        code = pg.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pg.proc.kill()
        raise
    return code, pg.proc.stderr.read()
