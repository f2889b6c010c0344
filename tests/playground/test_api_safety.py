"""The playground's safety rules (INTERFACE Part 4, issue 34 "Safe by default"), each on a
real server process: the answer's status and its one line, then the server still answers."""

import json
import os
import socket

import pytest

from tests.conftest import corpus_file

from .harness import start, stop


@pytest.fixture
def pg(playground):
    yield playground
    assert playground.alive(), "the server stopped answering after this request"


def one_line(body: bytes) -> str:
    text = body.decode("utf-8")
    assert text.endswith("\n") and text.count("\n") == 1 and "Traceback" not in text, text
    return text.strip()


# ---- who may ask ----------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example:80", "attacker.test", "127.0.0.1", "127.0.0.1:1", None])
def test_a_foreign_host_is_refused(pg, host):
    # DNS rebinding: a page on attacker.test resolving to 127.0.0.1 sends Host: attacker.test
    status, _, body = pg.request("GET", "/api/tokenizers", headers={"Host": host})
    assert status == 403
    assert "Host" in one_line(body)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}"])
def test_its_own_addresses_are_served(pg, host):
    status, _, _ = pg.request("GET", "/api/tokenizers", headers={"Host": host.format(port=pg.port)})
    assert status == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}"])
def test_a_foreign_origin_is_refused(pg, origin):
    status, _, body = pg.request(
        "POST",
        "/api/encode",
        json.dumps({"tokenizer": 0, "text": "hi"}),
        headers={"Origin": origin.format(port=pg.port)},
    )
    assert status == 403
    assert "Origin" in one_line(body)


def test_its_own_origin_is_served(pg):
    status, _, body = pg.request(
        "POST",
        "/api/encode",
        json.dumps({"tokenizer": 0, "text": "hi"}),
        headers={"Origin": f"http://127.0.0.1:{pg.port}"},
    )
    assert status == 200, body


@pytest.mark.parametrize("path", ["/", "/api/tokenizers", "/static/playground.js"])
def test_no_token_is_refused(pg, path):
    status, _, body = pg.request("GET", path, token=False)
    assert status == 403
    assert "token" in one_line(body)


def test_a_wrong_token_is_refused(pg):
    status, _, body = pg.request("GET", "/api/tokenizers?token=" + "x" * len(pg.token), token=False)
    assert status == 403
    one_line(body)
    status, _, _ = pg.request(
        "POST",
        "/api/encode",
        '{"tokenizer": 0, "text": "a"}',
        token=False,
        headers={"Cookie": f"tokenizer-lsp-playground-{pg.port}=wrong"},
    )
    assert status == 403


def test_the_page_sets_the_cookie_that_then_stands_for_the_token(pg):
    status, headers, body = pg.request("GET", "/")
    assert status == 200 and b"<textarea" not in body or status == 200  # the page builds its textarea in script
    cookie = headers["set-cookie"]
    name, value = cookie.split(";")[0].split("=", 1)
    assert value == pg.token
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "script-src 'self'" in headers["content-security-policy"]
    status, _, body = pg.request("GET", "/api/tokenizers", token=False, headers={"Cookie": f"{name}={value}"})
    assert status == 200 and json.loads(body)


def test_it_listens_on_127_0_0_1_only(pg):
    # every local address but loopback: nothing listens on the port there
    others = set()
    for _fam, *_, addr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
        if not addr[0].startswith("127."):
            others.add(addr[0])
    with open("/proc/net/tcp") as f:  # the listening sockets of this machine (Linux)
        listening = [line.split()[1] for line in f.readlines()[1:] if line.split()[3] == "0A"]
    ours = [a for a in listening if int(a.split(":")[1], 16) == pg.port]
    assert ours == ["0100007F:" + format(pg.port, "04X")]  # 127.0.0.1 in /proc's byte order
    for addr in others:
        with pytest.raises(OSError):
            socket.create_connection((addr, pg.port), timeout=2).close()


# ---- what may be read -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/static/../api.py",
        "/static/../../cli/encode.py",
        "/static/%2e%2e/server.py",
        "/static/%2E%2E/%2e%2e/cli/encode.py",
        "/static/..%2fserver.py",
        "/static/..%2F..%2Fcli%2Fencode.py",
        "/static/%252e%252e/server.py",
        "/static/..\\server.py",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/static/.%2e/server.py",
        "/static/index.html/../server.py",
    ],
)
def test_paths_never_leave_the_static_folder(pg, path):
    status, _, body = pg.request("GET", path)
    assert status == 404
    assert one_line(body) == "not found"


def test_the_page_assets_are_served(pg):
    for name, ctype in [("playground.js", "javascript"), ("playground.css", "text/css")]:
        status, headers, body = pg.request("GET", f"/static/{name}")
        assert status == 200 and ctype in headers["content-type"] and len(body) > 100


def test_the_api_reads_only_the_paths_it_was_given(pg):
    # tokenizers are named by index; a path in a request is refused, never opened
    status, _, body = pg.request("POST", "/api/encode", json.dumps({"tokenizer": "/etc/passwd", "text": "a"}))
    assert status == 400 and "index" in one_line(body)
    status, _, body = pg.request(
        "POST", "/api/encode", json.dumps({"tokenizer": 0, "text": "a", "path": "/etc/passwd"})
    )
    assert status == 400 and "path" in one_line(body)
    listed = pg.api("/api/tokenizers")
    assert [t["index"] for t in listed] == [0, 1, 2]
    assert [t["path"] for t in listed] == [
        str(corpus_file("qwen3/tokenizer.json").parent),
        str(corpus_file("openai-tiktoken/o200k_base.tiktoken")),
        str(corpus_file("mistral-spm/mistral_instruct_tokenizer_240323.model.v3")),
    ]
    assert [t["format"] for t in listed] == ["tokenizer.json", "tiktoken", "sentencepiece"]


# ---- bad requests ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, status, says",
    [
        (b'{"tokenizer": 0, "text": ', 400, "not JSON"),
        (b"\xff\xfe{}", 400, "UTF-8"),
        (b"[1, 2]", 400, "object"),
        (b'{"tokenizer": 0}', 400, '"text"'),
        (b'{"tokenizer": 0, "text": 5}', 400, '"text"'),
        (b'{"tokenizer": true, "text": "a"}', 400, '"tokenizer"'),
        (b'{"tokenizer": 7, "text": "a"}', 404, "no tokenizer 7"),
        (b'{"tokenizer": -1, "text": "a"}', 404, "no tokenizer -1"),
    ],
)
def test_a_bad_encode_request_gets_a_4xx_and_one_line(pg, body, status, says):
    got, _, answer = pg.request("POST", "/api/encode", body)
    assert got == status
    assert says in one_line(answer)


@pytest.mark.parametrize(
    "body, status",
    [
        (b'{"tokenizer": 0, "messages": "hi"}', 400),
        (b'{"tokenizer": 9, "messages": {"messages": []}}', 404),
        (b'{"tokenizer": 0, "messages": {"messages": []}, "x": 1}', 400),
        (b"nope", 400),
    ],
)
def test_a_bad_render_request_gets_a_4xx_and_one_line(pg, body, status):
    got, _, answer = pg.request("POST", "/api/render", body)
    assert got == status
    one_line(answer)


@pytest.mark.parametrize(
    "method, path, status",
    [
        ("GET", "/api/encode", 405),
        ("POST", "/api/tokenizers", 405),
        ("GET", "/api/nothing", 404),
        ("DELETE", "/api/encode", 501),
        ("GET", "/api/specials?tokenizer=x", 400),
    ],
)
def test_wrong_methods_and_routes(pg, method, path, status):
    got, _, answer = pg.request(method, path)
    assert got == status
    one_line(answer)


def test_a_2_mb_text_is_refused_with_413(pg):
    text = "token " * (2 * 1024 * 1024 // 6 + 1)
    got, _, answer = pg.request("POST", "/api/encode", json.dumps({"tokenizer": 0, "text": text}))
    assert got == 413
    assert "limit" in one_line(answer)


def test_a_post_without_a_length_is_refused(pg):
    got, _, answer = pg.request("POST", "/api/encode", b"", headers={"Transfer-Encoding": "chunked"})
    assert got == 411
    one_line(answer)


def raw(pg, data: bytes) -> tuple[bytes, bytes]:
    with socket.create_connection(("127.0.0.1", pg.port), timeout=10) as s:
        s.sendall(data)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    return head, body


def test_a_request_that_is_not_http_gets_one_line(pg):
    head, body = raw(pg, b"NOT HTTP AT ALL\r\n\r\n")
    # an HTTP/0.9-shaped request line: the answer has no status line, only the one line
    assert b"Bad request" in head and b"\n" not in head.rstrip(b"\n")


def test_a_header_too_long_gets_431_and_one_line(pg):
    head, body = raw(pg, b"GET /api/tokenizers HTTP/1.1\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 431 Request Header Fields Too Large"
    one_line(body)


# ---- the process ----------------------------------------------------------------------------


def test_ctrl_c_stops_it_cleanly():
    pg = start([str(corpus_file("qwen3/tokenizer.json"))])
    assert pg.alive()
    code, err = stop(pg)
    assert code == 0
    assert "Traceback" not in err and "stopped" in err


def test_a_path_it_cannot_read_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    from .harness import ROOT

    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    for path, says in [(str(tmp_path / "absent"), "no such file"), (str(bad), "tokenizer.json")]:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
        r = subprocess.run(
            [sys.executable, "-m", "tokenizer_lsp", "playground", path, "--no-browser"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert r.returncode == 2
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        assert len(lines) >= 1 and says in lines[0] and "Traceback" not in r.stderr, r.stderr
