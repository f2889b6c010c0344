"""Benchmark: tokenizer-lsp on real vocabularies, side by side with HF tokenizers.

    python bench/bench.py                 # qwen3, llama3, gemma3, gpt2 encoder.json, + scaling
    python bench/bench.py --quick         # every row on the small examples, one round (CI keeps it working)
    python bench/bench.py --files qwen3/tokenizer.json --rounds 5
    python bench/bench.py --soak-only     # just the typing soak (RSS growth per 1000 edits)
    python bench/bench.py --navigation-only   # just definition/references/workspace symbols (qwen3, gemma3)
    python bench/bench.py --old ../old/server --files qwen3/tokenizer.json --rounds 5   # old beside new

Measures, interleaved per round (server open, then from_file, on the same file):
open-to-diagnostics (the first publication, warm caches; bench/open_bench.py, run with the
behaviour benchmarks, times complete diagnostics on a cold and a warm cache) through a real
LSP client over stdio vs tokenizers.Tokenizer.from_file;
hover p50/p99 over random token positions; inlay hints for 100-line ranges (and 2000-char
ranges of one-line files); a one-character edit inside a token to refreshed diagnostics, with
hover latency during that re-index, then a line break outside any token (a full re-parse);
peak RSS of the server / file size (before and after that re-parse); and 2x/4x files built
from real ones. Prints a table and writes JSON (bench/results/latest.json; --quick: quick.json, never committed).

Navigation (--nav-files, qwen3 and gemma3; --quick: the example file), a fresh server per
file: open to navigation ready (a definition polled until it answers); definition p50/p99
from random merge parts (-> vocab key) and random vocab keys (-> producing merge), each
answer checked; references with the declaration for rare tokens (parts of 1-3 merges), `Ġ`,
`▁` and the most used merge part, the locations counted against json.loads; then all the
files open in one server for workspace/symbol queries (an id, CJK, ASCII, stored forms).
Latency there is request written -> response body read; with the pygls client's own work
(parsing tens of thousands of locations, lsprotocol objects) in brackets.

--old PATH (bench/against_old.py): an older checkout's server/ (e.g. `git worktree add
../old 8768bca`) measured beside this one, its folder first on each spawned server's
PYTHONPATH: every round runs each part (a lightness file, the navigation rows, the soak) for
the old side, then the new, one open a round; one table, each figure's median and spread
(min-max) over the rounds per side and new/old; results/old_vs_new.json. The behaviour
benchmarks that follow get --old where they take it (open, encode, memory_tree).

--quick (the last step of .ci/run) checks that every script still runs, not its figures:
every row on the small files of examples/, a short soak, and the scripts (this one's own
rows among them) two at a time, each one's output printed whole once it ended.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol, default_converter

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("TOKENIZER_CORPUS", ROOT.parent / "shared" / "corpus"))
DEFAULT_FILES = ["qwen3/tokenizer.json", "llama3/tokenizer.json", "gemma3/tokenizer.json", "gpt2-openai/encoder.json"]
LOG = False  # --log: print the server's log as it comes
TYPING_EDITS = 5  # one-character edits inside tokens (typing fast path)
REPARSE_EDITS = 3  # line breaks between entries (full re-parse)
KEY = re.compile(r'"((?:[^"\\]|\\.)+)":\s*-?\d')
VOCAB_ENTRY = re.compile(r'"((?:[^"\\]|\\.)+)":\s*(-?\d+)')
SOAK_FILE = "whisper-gpt2/vocab.json"  # one 0.8 MB line of raw UTF-8
SOAK_EDITS, SOAK_WARMUP, SOAK_EVERY = 6000, 1000, 1000  # --quick: QUICK_SOAK
QUICK_SOAK = (750, 250, 250)  # a warm-up, three RSS samples: the rows work (CI)
SOAK_SYNC = 50  # a hover round trip every 50 edits: the server has taken them all
SOAK_SETTLE = 250  # every 250 edits: wait for that version's diagnostics (a re-index ran)
SOAK_TARGET_MB = 0.5  # issue target: RSS growth per 1000 edits


class Utf8ClientProtocol(LanguageServerProtocol):
    """Sends raw UTF-8 like VS Code's JSON.stringify (pygls' client escapes all non-ASCII)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.arrived: dict[tuple[str, int], float] = {}
        self.sent_at: dict[str, float] = {}  # request id -> when its bytes went out
        self.read_at: dict[str, float] = {}  # response id -> when its body had been read
        self.last_request_id: str | None = None
        self._first_hook: float | None = None

    def _send_data(self, data):
        if not data:
            return
        body = json.dumps(data, default=self._serialize_message, ensure_ascii=False).encode("utf-8")
        # the clock starts when the bytes go out: serializing is the client's own cost
        self.last_write = time.perf_counter()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        if getattr(data, "method", None) is not None and getattr(data, "id", None) is not None:
            self.sent_at[data.id] = self.last_write
            self.last_request_id = data.id

    def structure_message(self, data):
        # json.loads calls this for every object of a message, the message itself last.
        # The first call comes right after the body has been read: when a response was
        # there (parsing tens of thousands of locations through this hook, then turning
        # them into lsprotocol objects, is the client's own cost)
        if self._first_hook is None:
            self._first_hook = time.perf_counter()
        if "jsonrpc" not in data:
            return data  # as the base class does with a nested object
        first, self._first_hook = self._first_hook, None
        # the clock stops when diagnostics have arrived and parsed as JSON; turning them
        # into lsprotocol objects next (30+ ms for 1.4k diagnostics) is the client's own
        # cost, as serializing didOpen is
        if data.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            params = data.get("params") or {}
            self.arrived[(params.get("uri"), params.get("version"))] = time.perf_counter()
        elif "id" in data and "method" not in data:
            self.read_at[data["id"]] = first
        return super().structure_message(data)


class Session:
    """A client and a fresh server. server_path: that folder first on the server's PYTHONPATH
    (an older tree's server/ for --old; None: this interpreter's own); cache_dir: its
    TOKENIZER_LSP_CACHE_DIR ("off": none; None: the platform's)."""

    def __init__(self, server_path: str | None = None, cache_dir: str | None = None) -> None:
        self.env = None
        if server_path is not None or cache_dir is not None:
            self.env = dict(os.environ)
            if server_path is not None:
                self.env["PYTHONPATH"] = server_path
            if cache_dir is not None:
                self.env["TOKENIZER_LSP_CACHE_DIR"] = cache_dir
        self.client = LanguageClient("bench", "1", protocol_cls=Utf8ClientProtocol, converter_factory=default_converter)
        self.published: dict[tuple[str, int], float] = {}  # when each version's diagnostics arrived
        self.typed_at: dict[tuple[str, int], float] = {}  # ... and were lsprotocol objects
        self.counts: dict[tuple[str, int], int] = {}
        self.waiters: dict[tuple[str, int], asyncio.Future] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diags(params: types.PublishDiagnosticsParams):
            key = (params.uri, params.version)
            self.published[key] = self.client.protocol.arrived.pop(key, time.perf_counter())
            self.typed_at[key] = time.perf_counter()
            self.counts[key] = len(params.diagnostics)
            fut = self.waiters.pop(key, None)
            if fut and not fut.done():
                fut.set_result(self.published[key])

        @self.client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def on_refresh(params):
            return None

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "tokenizer_lsp", env=self.env)
        # drain the server's log (an unread pipe would fill and block it); kept for --log
        self.log: list[str] = []
        self._log_task = asyncio.create_task(self._read_log(self.client._server.stderr))
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
                inlay_hint=types.InlayHintClientCapabilities(),
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            ),
            workspace=types.WorkspaceClientCapabilities(
                inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True)
            ),
        )
        await self.client.initialize_async(types.InitializeParams(capabilities=caps, process_id=os.getpid()))
        self.client.initialized(types.InitializedParams())
        # the client's cattrs makes its code for a class when the first one passes, and drops
        # all of it when it first meets a kind of list: its first didChange (a list of
        # changes) made it compile the next hover's answer again, 3 ms of the client's own
        # in the first latency timed after the first edit. Met here, before anything is timed
        at = types.Position(0, 0)
        self.client.protocol._converter.unstructure(
            types.DidChangeTextDocumentNotification(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=0, uri="file:///warm"),
                    [types.TextDocumentContentChangePartial(types.Range(at, at), "")],
                )
            )
        )

    async def _read_log(self, stream) -> None:
        while line := await stream.readline():
            self.log.append(line.decode(errors="replace").rstrip())
            if LOG:
                print("  server:", self.log[-1], file=sys.stderr)

    @property
    def pid(self) -> int:
        return self.client._server.pid

    def wait_for(self, uri: str, version: int) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        if (uri, version) in self.published:
            fut.set_result(self.published[(uri, version)])
        else:
            self.waiters[(uri, version)] = fut
        return fut

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
        except Exception:
            pass
        try:
            await asyncio.wait_for(self.client.stop(), 10)
        except Exception:
            self.client._server.kill()


def current_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def peak_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def key_positions(text: str, n: int, rng: random.Random) -> list[tuple[int, int, str]]:
    """Random (line, utf16 column inside the key, key) positions of vocab keys."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    keys = [m for m in KEY.finditer(text)]
    out = []
    for m in rng.sample(keys, min(n, len(keys))):
        off = m.start() + 1
        line = bisect.bisect_right(line_starts, off) - 1
        col = len(text[line_starts[line] : off].encode("utf-16-le")) // 2
        out.append((line, col, m.group(1)))
    return out


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


async def measure_file(
    path: Path, rounds: int, hovers: int, rng: random.Random, scale_label: str = "1x", new_session=Session
) -> dict:
    text = path.read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    lines = text.split("\n")
    one_line = len(lines) <= 2
    opens, opens_with_client, loads, rss = [], [], [], []
    res: dict = {"file": str(path), "scale": scale_label, "bytes": size}
    # hover targets, found before the last round's open (seconds on a 33 MB text: that
    # must not count in the time to the first hover)
    positions = key_positions(text, hovers, rng)
    for r in range(rounds):
        s = new_session()
        await s.start()
        uri = path.as_uri()
        t_call = time.perf_counter()
        s.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
        )
        t0 = s.opened_at = s.client.protocol.last_write
        t1 = await s.wait_for(uri, 1)
        opens.append(t1 - t0)
        opens_with_client.append(s.typed_at[(uri, 1)] - t_call)
        res["diagnostics"] = s.counts[(uri, 1)]
        if r == rounds - 1:
            # the client's own long-lived data (the text, its lines, the hover targets) kept
            # out of its garbage collections, as in measure_navigation: their 100-150 ms
            # pauses landed in whichever latency the client was timing
            gc.collect()
            gc.freeze()
            try:
                res.update(await measure_lookups(s, uri, text, lines, one_line, positions, rng))
            finally:
                gc.unfreeze()
        rss.append(peak_rss(s.pid))
        await s.stop()
        import tokenizers  # noqa: F401 (imported before the clock: the first from_file paid for it)

        t0 = time.perf_counter()
        hf_load(path)
        loads.append(time.perf_counter() - t0)
    res["open_to_diagnostics_s"] = statistics.median(opens)
    res["from_file_s"] = statistics.median(loads)
    res["ratio"] = res["open_to_diagnostics_s"] / res["from_file_s"]
    res["open_runs_s"] = opens
    # the pygls client's own work too: serializing didOpen, typing the diagnostics
    res["open_incl_client_work_s"] = statistics.median(opens_with_client)
    res["from_file_runs_s"] = loads
    res["peak_rss_bytes"] = max(rss)
    res["rss_over_size"] = res.get("rss_before_reparse", max(rss)) / size
    res["rss_with_reparse_over_size"] = max(rss) / size
    return res


def hf_load(path: Path) -> None:
    """What HF tokenizers does to load the same file (vocab.json: with the merges beside it)."""
    import tokenizers

    if path.name.endswith("tokenizer.json"):
        tokenizers.Tokenizer.from_file(str(path))
        return
    merges = next((path.parent / n for n in ("merges.txt", "vocab.bpe") if (path.parent / n).is_file()), None)
    tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(path), str(merges) if merges else None))


async def timed(coro) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = await coro
    return time.perf_counter() - t0, out


async def measure_lookups(s: Session, uri: str, text: str, lines: list[str], one_line: bool, positions, rng) -> dict:
    c = s.client
    doc = types.TextDocumentIdentifier(uri)
    # wait until lookups are ready (first hover answered)
    line, col, _ = positions[0]
    for _ in range(600):
        if await c.text_document_hover_async(types.HoverParams(doc, types.Position(line, col + 1))):
            break
        await asyncio.sleep(0.02)
    # hovers answer once the lookup tables are built, after the diagnostics
    first_hover = time.perf_counter() - s.opened_at
    lat = []
    answered = 0
    for line, col, _ in positions:
        dt, h = await timed(c.text_document_hover_async(types.HoverParams(doc, types.Position(line, col + 1))))
        lat.append(dt)
        answered += h is not None
    out = {
        "open_to_first_hover_s": first_hover,
        "hover_p50_ms": pct(lat, 50) * 1e3,
        "hover_p99_ms": pct(lat, 99) * 1e3,
        "hover_answered": f"{answered}/{len(positions)}",
    }
    hint_lat = []
    hint_counts = []
    for _ in range(60):
        if one_line:
            line = 0
            start = rng.randrange(0, max(1, len(lines[0]) - 2000))
            rng_ = types.Range(types.Position(0, start), types.Position(0, start + 2000))
        else:
            first = rng.randrange(0, max(1, len(lines) - 100))
            rng_ = types.Range(types.Position(first, 0), types.Position(first + 100, 0))
        dt, hints = await timed(c.text_document_inlay_hint_async(types.InlayHintParams(doc, rng_)))
        hint_lat.append(dt)
        hint_counts.append(len(hints or []))
    out.update(
        {
            "hints_range": "2000 chars" if one_line else "100 lines",
            "hints_p50_ms": pct(hint_lat, 50) * 1e3,
            "hints_p99_ms": pct(hint_lat, 99) * 1e3,
            "hints_per_range_median": statistics.median(hint_counts),
        }
    )
    # one-character edits inside tokens in the middle of the vocab, each to a key whose
    # edited form is a new token (one that exists would be a duplicate key, which rightly
    # takes a full re-parse); several, so the latencies meanwhile are a sample worth a p99
    # (keys written with escapes are left out: the fast path leaves those to a re-parse)
    fresh = sorted((p for p in positions if f'"{p[2]}x":' not in text and "\\" not in p[2]), key=lambda p: (p[0], p[1]))
    middle = fresh[len(fresh) // 3 : 2 * len(fresh) // 3] or fresh
    targets = [middle[k * len(middle) // TYPING_EDITS] for k in range(TYPING_EDITS)]
    version, edits, during = 1, [], []
    applied: list[tuple[int, int]] = []  # (line, column) of each character typed, at its time

    def typed(p):  # where a key is after the characters typed so far (on its own line)
        line, col, key = p
        for al, ac in applied:
            col += al == line and ac <= col
        return line, col, key

    for target in targets:
        version += 1
        line, col, key = typed(target)
        # append a character to the token (before its closing quote): a new, unused token
        edit_pos = types.Position(line, col + utf16_len(key))
        elapsed, lat = await edit_with_hovers(s, uri, version, edit_pos, "x", positions, rng, typed)
        applied.append((edit_pos.line, edit_pos.character))
        edits.append(elapsed)
        during += lat
        await asyncio.sleep(0.3)
    out.update(
        {
            "edit_to_diagnostics_ms": statistics.median(edits) * 1e3,
            "edit_to_diagnostics_runs_ms": [e * 1e3 for e in edits],
            "hover_during_reindex_p50_ms": pct(during, 50) * 1e3,
            "hover_during_reindex_p99_ms": pct(during, 99) * 1e3,
            "hover_during_reindex_max_ms": max(during, default=float("nan")) * 1e3,
            "hovers_during_reindex": len(during),
        }
    )
    # peak memory so far: open, lookups, typing; a re-parse below holds two indexes a while
    out["rss_before_reparse"] = peak_rss(s.pid)
    # line breaks outside any token (the JSON stays valid): the whole file is re-parsed
    line = targets[0][0]
    at = types.Position(0, 1) if one_line else types.Position(min(len(lines) - 1, line + 7), 0)
    edits, during = [], []
    for k in range(1, REPARSE_EDITS + 1):
        version += 1
        if one_line:  # "{" stays on line 0; the keys move to line k, one column left
            moved = lambda p, k=k: (k, typed(p)[1] - 1, p[2])
        else:
            moved = lambda p, k=k: (lambda q: (q[0] + k, q[1], q[2]) if q[0] >= at.line else q)(typed(p))
        elapsed, lat = await edit_with_hovers(s, uri, version, at, "\n", positions, rng, moved)
        edits.append(elapsed)
        during += lat
        # the lookups for the new index are built after its diagnostics (about as long
        # again): the next edit would wait for them, and that is not this one's cost
        await asyncio.sleep(max(0.3, 1.5 * elapsed))
    out.update(
        {
            "reparse_edit_to_diagnostics_ms": statistics.median(edits) * 1e3,
            "hover_during_reparse_p50_ms": pct(during, 50) * 1e3,
            "hover_during_reparse_p99_ms": pct(during, 99) * 1e3,
            "hovers_during_reparse": len(during),
        }
    )
    return out


async def edit_with_hovers(
    s: Session, uri: str, version: int, at: types.Position, text: str, positions, rng, moved
) -> tuple[float, list[float]]:
    """Insert text at `at`; hover at random keys until that version's diagnostics arrive.
    Returns (edit to diagnostics, hover latencies meanwhile); `moved` maps a key's
    position before the edit to where it is after it."""
    c = s.client
    doc = types.TextDocumentIdentifier(uri)
    t0 = time.perf_counter()
    c.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(at, at), text=text)],
        )
    )
    fut = s.wait_for(uri, version)
    during = []
    while not fut.done():
        hl, hc, _ = moved(rng.choice(positions))
        dt, _ = await timed(c.text_document_hover_async(types.HoverParams(doc, types.Position(hl, hc + 1))))
        if not fut.done():
            during.append(dt)
        await asyncio.sleep(0.005)
    return await fut - t0, during


# ---- navigation: definition, references, workspace/symbol ------------------------------

NAV_FILES = ["qwen3/tokenizer.json", "gemma3/tokenizer.json"]
NAV_DEFINITIONS = 200  # per direction: merge part -> vocab key, vocab key -> producing merge
NAV_REFERENCES = 50  # per token (the rare ones: a different token each time)
NAV_SYMBOLS = 50  # per workspace/symbol query
QUICK_NAV = (50, 10, 10)
NAV_QUERIES = ["#35946", "我", "the", "Ġthe", "▁the"]  # id, CJK, ASCII, stored forms
NAV_COMMON = ["Ġ", "▁"]  # space markers (byte-level, SentencePiece); the most used part is measured too
RARE_USES = (1, 3)  # a rare token: a part of 1 to 3 merges
NAV_BUDGET_S = 30.0  # per references row, after 10 requests (▁ in gemma3: 40k locations,
# 0.6 s in the server and 1 s more in the pygls client each)
NAV_TARGET_MS = {"definition": 10.0, "references": 50.0, "workspace_symbol": 100.0}  # p99
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def unescape(raw: str) -> str:
    return json.loads(f'"{raw}"') if "\\" in raw else raw


class NavFile:
    """Where a tokenizer.json's vocab keys and merge parts are, and what the server should
    answer for them (from json.loads of the same text)."""

    def __init__(self, path: Path) -> None:
        from array import array
        from collections import Counter

        self.path, self.uri = path, path.as_uri()
        self.text = text = path.read_text(encoding="utf-8")
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        obj = json.loads(text)
        model = obj.get("model") if isinstance(obj, dict) else None
        vocab = model.get("vocab") if isinstance(model, dict) else None
        merges = model.get("merges") if isinstance(model, dict) else None
        if not isinstance(vocab, dict) or not isinstance(merges, list) or not merges:
            raise ValueError(f"{path}: navigation rows need a tokenizer.json with model.vocab and model.merges")
        pairs = isinstance(merges[0], list)
        self.merges = [tuple(m) if pairs else tuple(m.split(" ", 1)) for m in merges]
        model_at = re.search(r'"model":\s*\{', text).end()
        vocab_at = re.compile(r'"vocab":\s*\{').search(text, model_at).end()
        merges_at = re.compile(r'"merges":\s*\[').search(text, model_at).end()
        self.key_at: dict[str, int] = {}  # token -> offset of its vocab key's first character
        for m in VOCAB_ENTRY.finditer(text, vocab_at, merges_at if merges_at > vocab_at else len(text)):
            token = unescape(m.group(1))
            if vocab.get(token) == int(m.group(2)):
                self.key_at.setdefault(token, m.start(1))
        self.part_at = array("q")  # offsets of the first character of each part, 2 per rank
        literals = STRING.finditer(text, merges_at)
        for _ in self.merges:
            m = next(literals)
            if pairs:
                self.part_at.extend((m.start(1), next(literals).start(1)))
            else:  # "a b": the second part after the first space
                self.part_at.extend((m.start(1), m.start(1) + m.group(1).index(" ") + 1))
        self.uses: Counter = Counter()  # merges using the token as a part (as the server counts)
        self.occurrences: Counter = Counter()  # ... each part on its own
        self.producers: Counter = Counter()
        self.producer: dict[str, int] = {}  # the lowest-ranked merge making the token
        for rank, (a, b) in enumerate(self.merges):
            self.uses[a] += 1
            self.uses[b] += b != a
            self.occurrences[a] += 1
            self.occurrences[b] += 1
            self.producers[a + b] += 1
            self.producer.setdefault(a + b, rank)
        self.added = {t.get("content") for t in obj.get("added_tokens") or [] if isinstance(t, dict)}

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line, utf16_len(self.text[self.line_starts[line] : offset])

    def expected_references(self, token: str) -> int:
        """What references with the declaration should find: every merge part, every
        producing merge, the added_tokens entry, the vocab entry."""
        return self.occurrences[token] + self.producers[token] + (token in self.added) + (token in self.key_at)


async def rpc(s: Session, request) -> tuple[float, float, object]:
    """(request written -> response body read, the same with the pygls client's work:
    serializing, parsing, lsprotocol objects; the result) of one request coroutine."""
    t0 = time.perf_counter()
    result = await request
    total = time.perf_counter() - t0
    p = s.client.protocol
    rid = p.last_request_id
    return p.read_at.pop(rid, time.perf_counter()) - p.sent_at.pop(rid, t0), total, result


def lat_stats(read: list[float], total: list[float]) -> dict:
    return {
        "n": len(read),
        "p50_ms": pct(read, 50) * 1e3,
        "p99_ms": pct(read, 99) * 1e3,
        "max_ms": max(read, default=float("nan")) * 1e3,
        "first_ms": read[0] * 1e3 if read else float("nan"),
        "with_client_p50_ms": pct(total, 50) * 1e3,
        "with_client_p99_ms": pct(total, 99) * 1e3,
    }


def contains(loc, at: tuple[int, int]) -> bool:
    r = loc.range
    return (r.start.line, r.start.character) <= at <= (r.end.line, r.end.character)


async def open_document(s: Session, nf: NavFile) -> float:
    """Open the file; seconds to its diagnostics (s.opened_at: when didOpen went out)."""
    s.client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=nf.uri, language_id="json", version=1, text=nf.text))
    )
    s.opened_at = s.client.protocol.last_write
    return await asyncio.wait_for(s.wait_for(nf.uri, 1), 300) - s.opened_at


async def until_idle(client, wait: float) -> bool:
    """Whether the server answered tokenizer-lsp/idle (nothing due or running: the
    unreachable set computed or read from the disk cache, every lookup built) within `wait`
    s. A request still out then is left to be answered (an error, at shutdown), never
    cancelled: pygls logs a traceback for the answer to a cancelled one."""
    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while True:
        asked = asyncio.ensure_future(client.protocol.send_request_async("tokenizer-lsp/idle", None))
        asked.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "not retrieved"
        done, _ = await asyncio.wait({asked}, timeout=max(0.0, end - loop.time()))
        if not done or asked.exception() is not None:
            return False
        answer = asked.result()
        if getattr(answer, "idle", None) or (isinstance(answer, dict) and answer.get("idle")):
            return True


async def navigation_ready(s: Session, nf: NavFile, offset: int) -> float:
    """When a definition at `offset` (a merge part) first answers: the navigation lookups
    are built (a request before that waits for them in the server, up to 20 s)."""
    line, col = nf.position(offset)
    params = types.DefinitionParams(types.TextDocumentIdentifier(nf.uri), types.Position(line, col))
    for _ in range(3000):
        if await s.client.text_document_definition_async(params):
            return time.perf_counter()
        await asyncio.sleep(0.02)
    raise TimeoutError(f"{nf.path}: no definition answered")


async def measure_navigation_file(nf: NavFile, n_def: int, n_ref: int, rng: random.Random, new_session=Session) -> dict:
    """A fresh server: open -> navigation ready, definitions both ways, references."""
    doc = types.TextDocumentIdentifier(nf.uri)
    here = lambda offset: types.Position(*nf.position(offset))
    ranks = len(nf.merges)
    parts = [divmod(k, 2) for k in rng.sample(range(2 * ranks), min(n_def, 2 * ranks))]
    keys = rng.sample(sorted(nf.key_at), min(n_def, len(nf.key_at)))
    rare_pool = sorted(t for t in nf.key_at if RARE_USES[0] <= nf.uses[t] <= RARE_USES[1])
    rare = rng.sample(rare_pool, min(n_ref, len(rare_pool)))
    common = [t for t in NAV_COMMON if t in nf.key_at]
    most = max(nf.key_at, key=lambda t: nf.uses[t])
    if most not in common:
        common.append(most)
    res: dict = {
        "file": str(nf.path),
        "bytes": len(nf.text.encode("utf-8")),
        "merges": ranks,
        "vocab": len(nf.key_at),
        "most_used_token": most,
        "most_used_token_uses": nf.uses[most],
    }
    s = new_session()
    await s.start()
    try:
        res["open_to_diagnostics_s"] = await open_document(s, nf)
        # the hover lookups come next (a hover answers), then the navigation lookups
        at = types.HoverParams(doc, here(nf.key_at[keys[0]]))
        for _ in range(3000):
            if await s.client.text_document_hover_async(at):
                break
            await asyncio.sleep(0.02)
        res["open_to_hover_ready_s"] = time.perf_counter() - s.opened_at
        rank, part = parts[0]
        res["open_to_navigation_ready_s"] = await navigation_ready(s, nf, nf.part_at[2 * rank + part]) - s.opened_at
        # the unreachable-token computation keeps both cores busy for seconds after an open
        # (gemma3: 3 s, in the engine process): the requests below are timed after it. The
        # idle answer, not its log line: a set read from the disk cache logs another (the
        # wait for that line ran out its 120 s on every warm cache)
        await until_idle(s.client, 120)
        res["open_to_idle_s"] = time.perf_counter() - s.opened_at
        res["peak_rss_at_ready_bytes"] = peak_rss(s.pid)
        res["rss_at_ready_bytes"] = current_rss(s.pid)
        # definition: a merge part -> its vocab key
        read, total, answered, correct = [], [], 0, 0
        for rank, part in parts:
            token = nf.merges[rank][part]
            dr, dt, locs = await rpc(
                s,
                s.client.text_document_definition_async(types.DefinitionParams(doc, here(nf.part_at[2 * rank + part]))),
            )
            read.append(dr)
            total.append(dt)
            answered += bool(locs)
            want = nf.key_at.get(token)
            correct += bool(locs) and want is not None and contains(locs[0], nf.position(want))
        res["definition_merge_part"] = {**lat_stats(read, total), "answered": answered, "correct": correct}
        # definition: a vocab key -> the merge producing it (none for base tokens)
        read, total, answered, correct, expected = [], [], 0, 0, 0
        for token in keys:
            dr, dt, locs = await rpc(
                s, s.client.text_document_definition_async(types.DefinitionParams(doc, here(nf.key_at[token])))
            )
            read.append(dr)
            total.append(dt)
            answered += bool(locs)
            rank = nf.producer.get(token)
            expected += rank is not None
            correct += bool(locs) and rank is not None and contains(locs[0], nf.position(nf.part_at[2 * rank]))
        res["definition_vocab_key"] = {
            **lat_stats(read, total),
            "answered": answered,
            "correct": correct,
            "with_producing_merge": expected,
        }
        # references (with the declaration): rare tokens, then the most used ones
        refs: dict = {}

        async def references(tokens: list[str]) -> dict:
            read, total, found, want = [], [], [], []
            started = time.perf_counter()
            for token in tokens:
                if len(read) >= 10 and time.perf_counter() - started > NAV_BUDGET_S:
                    break
                dr, dt, locs = await rpc(
                    s,
                    s.client.text_document_references_async(
                        types.ReferenceParams(
                            text_document=doc,
                            position=here(nf.key_at[token]),
                            context=types.ReferenceContext(include_declaration=True),
                        )
                    ),
                )
                read.append(dr)
                total.append(dt)
                found.append(len(locs or []))
                want.append(nf.expected_references(token))
            return {
                **lat_stats(read, total),
                "locations_median": statistics.median(found),
                "locations_expected_median": statistics.median(want),
                "as_expected": sum(f == w for f, w in zip(found, want)),
            }

        if rare:
            refs["rare"] = {**await references(rare), "uses": list(RARE_USES), "tokens": len(rare)}
        for token in common:
            refs[token] = {**await references([token] * n_ref), "uses": nf.uses[token]}
        res["references"] = refs
        res["peak_rss_bytes"] = peak_rss(s.pid)
    finally:
        await s.stop()
    return res


async def measure_workspace_symbols(files: list[NavFile], n: int, new_session=Session) -> dict:
    """One server with every file open: workspace/symbol queries over all of them."""
    s = new_session()
    await s.start()
    res: dict = {"files": [str(nf.path) for nf in files], "queries": {}}
    try:
        t0 = None
        for nf in files:
            await open_document(s, nf)
            t0 = t0 or s.opened_at
        for nf in files:  # each file's navigation lookups (a query waits 5 s at most per file)
            await navigation_ready(s, nf, nf.part_at[0])
        res["first_open_to_all_ready_s"] = time.perf_counter() - t0
        for query in NAV_QUERIES:
            read, total, counts, per_file = [], [], [], {}
            for _ in range(n):
                dr, dt, found = await rpc(s, s.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query)))
                read.append(dr)
                total.append(dt)
                counts.append(len(found or []))
            for sym in found or []:
                name = Path(sym.location.uri).parent.name
                per_file[name] = per_file.get(name, 0) + 1
            res["queries"][query] = {
                **lat_stats(read, total),
                "results": statistics.median(counts),
                "results_per_file": per_file,
            }
        res["peak_rss_bytes"] = peak_rss(s.pid)
    finally:
        await s.stop()
    return res


def read_nav_files(paths: list[Path]) -> list[NavFile]:
    files = []
    for path in paths:
        t0 = time.perf_counter()
        files.append(NavFile(path))
        print(
            f"  navigation targets of {path.parent.name}/{path.name} read in {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    return files


async def measure_navigation(
    files: list[NavFile], n_def: int, n_ref: int, n_sym: int, rng: random.Random, new_session=Session
) -> dict:
    # millions of long-lived objects (gemma3's merges): out of the client's garbage
    # collections, whose pauses (100+ ms) would otherwise land in the latencies
    gc.collect()
    gc.freeze()
    try:
        out: dict = {"files": [], "target_p99_ms": NAV_TARGET_MS}
        for nf in files:
            out["files"].append(await measure_navigation_file(nf, n_def, n_ref, rng, new_session))
            print(navigation_report({"files": [out["files"][-1]]}), flush=True)
        out["workspace_symbol"] = await measure_workspace_symbols(files, n_sym, new_session)
    finally:
        gc.unfreeze()
    return out


NAV_LEGEND = (
    "navigation: p50/p99 from the request written to the response read (of n requests: with 50, p99 is "
    "the slowest); in brackets with the pygls client's own work (parsing, lsprotocol objects)"
)


def navigation_report(nav: dict) -> str:
    """The navigation rows: request written -> response read (p50/p99); in brackets the
    same with the pygls client's own work (parsing, lsprotocol objects)."""

    def met(kind: str, p99: float) -> str:
        return "met" if p99 < NAV_TARGET_MS[kind] else "NOT met"

    def lat(r: dict) -> str:
        return f"{r['p50_ms']:.1f}/{r['p99_ms']:.1f}"

    def client(r: dict) -> str:
        return f"({r['with_client_p50_ms']:.1f}/{r['with_client_p99_ms']:.1f})"

    cells = [["file", "request", "n", "p50/p99 ms", "(with client)", "answer", "target p99"]]
    for f in nav.get("files", []):
        name = f"{Path(f['file']).parent.name}/{Path(f['file']).name}"
        cells.append(
            [
                name,
                "open → navigation ready",
                "1",
                f"{f['open_to_navigation_ready_s'] * 1e3:.0f}",
                "",
                (
                    f"diagnostics after {f['open_to_diagnostics_s'] * 1e3:.0f} ms, hovers {f['open_to_hover_ready_s'] * 1e3:.0f} ms; "
                    f"peak RSS {f['peak_rss_at_ready_bytes'] / 2**20:.0f} MB, {f['peak_rss_bytes'] / 2**20:.0f} after the requests"
                ),
                "",
            ]
        )
        d = f["definition_merge_part"]
        cells.append(
            [
                name,
                "definition merge part → vocab",
                str(d["n"]),
                lat(d),
                client(d),
                f"{d['correct']}/{d['n']} right",
                f"< {NAV_TARGET_MS['definition']:.0f}: {met('definition', d['p99_ms'])}",
            ]
        )
        d = f["definition_vocab_key"]
        cells.append(
            [
                name,
                "definition vocab → merge",
                str(d["n"]),
                lat(d),
                client(d),
                f"{d['correct']}/{d['with_producing_merge']} right ({d['answered']} answered)",
                f"< {NAV_TARGET_MS['definition']:.0f}: {met('definition', d['p99_ms'])}",
            ]
        )
        for token, r in f["references"].items():
            what = (
                f"references rare ({r['uses'][0]}-{r['uses'][1]} merges)"
                if token == "rare"
                else f"references {token} ({r['uses']} merges)"
            )
            cells.append(
                [
                    name,
                    what,
                    str(r["n"]),
                    lat(r),
                    client(r),
                    f"{r['locations_median']:.0f} locations ({r['as_expected']}/{r['n']} as expected)",
                    f"< {NAV_TARGET_MS['references']:.0f}: {met('references', r['p99_ms'])}",
                ]
            )
    ws = nav.get("workspace_symbol")
    if ws:
        name = " + ".join(Path(f).parent.name for f in ws["files"])
        for query, r in ws["queries"].items():
            per = ", ".join(f"{k} {v}" for k, v in r["results_per_file"].items())
            cells.append(
                [
                    name,
                    f"workspace/symbol {query!r}",
                    str(r["n"]),
                    lat(r),
                    client(r),
                    f"{r['results']:.0f} results" + (f" ({per})" if per else "") + f"; first {r['first_ms']:.1f} ms",
                    f"< {NAV_TARGET_MS['workspace_symbol']:.0f}: {met('workspace_symbol', r['p99_ms'])}",
                ]
            )
        cells.append(
            [
                name,
                "all open → all navigation ready",
                "1",
                f"{ws['first_open_to_all_ready_s'] * 1e3:.0f}",
                "",
                f"peak RSS {ws['peak_rss_bytes'] / 2**20:.0f} MB",
                "",
            ]
        )
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    n = len(points)
    if n < 2:
        return float("nan")
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else float("nan")


def soak_keys(text: str, n: int, rng: random.Random) -> tuple[list[tuple[int, int, int, str]], dict]:
    """((line, utf16 column of the key's first character, of its closing quote, key) of
    `n` random vocabulary keys written without escapes (a typed letter keeps them on the
    fast path), in a tokenizer.json's model.vocab or a vocab.json; the vocabulary)."""
    obj = json.loads(text)
    vocab = obj.get("model", {}).get("vocab") if isinstance(obj.get("model"), dict) else obj
    keys = [
        m
        for m in VOCAB_ENTRY.finditer(text)
        if "\\" not in m.group(1) and isinstance(vocab, dict) and vocab.get(m.group(1)) == int(m.group(2))
    ]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for m in sorted(rng.sample(keys, min(n, len(keys))), key=lambda m: m.start()):
        off = m.start() + 1
        line = bisect.bisect_right(line_starts, off) - 1
        col = utf16_len(text[line_starts[line] : off])
        out.append((line, col, col + utf16_len(m.group(1)), m.group(1)))
    rng.shuffle(out)
    return out, vocab


def soak_typing(keys, vocab: dict, rng: random.Random):
    """Endless one-character edits (range start, range end, text, (line, column) of the
    key): a word of 3-8 letters typed at the end of a token (each prefix a new token, never
    a duplicate key), then deleted letter by letter: after each word the text is the original."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for k in range(1 << 62):
        line, col, end, key = keys[k % len(keys)]
        while True:
            word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 8)))
            if not any(key + word[: j + 1] in vocab for j in range(len(word))):
                break
        for j, ch in enumerate(word):
            at = types.Position(line, end + j)
            yield at, at, ch, (line, col)
        for j in reversed(range(len(word))):
            yield types.Position(line, end + j), types.Position(line, end + j + 1), "", (line, col)


async def typing_soak(path: Path, edits: int, warmup: int, every: int, rng: random.Random, new_session=Session) -> dict:
    """RSS of the server through `edits` one-character edits (see the module docstring)."""
    text = path.read_text(encoding="utf-8")
    keys, vocab = soak_keys(text, 200, rng)
    s = new_session()
    await s.start()
    uri = path.as_uri()
    c = s.client
    doc = types.TextDocumentIdentifier(uri)
    started = time.perf_counter()
    c.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text))
    )
    await asyncio.wait_for(s.wait_for(uri, 1), 120)
    line, col, _, _ = keys[0]
    for _ in range(600):  # lookups ready: the first hover answers
        if await c.text_document_hover_async(types.HoverParams(doc, types.Position(line, col + 1))):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)
    res: dict = {
        "file": str(path),
        "bytes": len(text.encode("utf-8")),
        "edits": edits,
        "warmup_edits": warmup,
        "sample_every_edits": every,
        "rss_after_open_mb": current_rss(s.pid) / 2**20,
        "diagnostics_at_open": s.counts[(uri, 1)],
    }
    samples: list[tuple[int, float]] = []
    hover_lat, settle_lat, counts = [], [], []
    version = 1
    typing = soak_typing(keys, vocab, rng)
    t0 = time.perf_counter()
    try:
        for n in range(1, edits + 1):
            start, end, ch, (line, col) = next(typing)
            version += 1
            c.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [types.TextDocumentContentChangePartial(range=types.Range(start, end), text=ch)],
                )
            )
            sample = n >= warmup and (n - warmup) % every == 0
            if n % SOAK_SYNC == 0:  # the hover answers after the server handled every edit before it
                dt, _ = await timed(c.text_document_hover_async(types.HoverParams(doc, types.Position(line, col + 1))))
                hover_lat.append(dt)
            else:
                await asyncio.sleep(0)  # let the transport write
            if n % SOAK_SETTLE == 0 or sample or n == edits:
                sent = c.protocol.last_write
                arrived = await asyncio.wait_for(s.wait_for(uri, version), 120)
                settle_lat.append(arrived - sent)
                counts.append(s.counts[(uri, version)])
            if sample:
                # the lookups for the new index come right after its diagnostics
                await asyncio.sleep(0.3)
                samples.append((n, current_rss(s.pid) / 2**20))
                print(f"  soak: {n} edits, {time.perf_counter() - t0:.1f} s, RSS {samples[-1][1]:.1f} MB", flush=True)
    finally:
        elapsed = time.perf_counter() - t0
        await s.stop()
    growth = slope(samples) * 1000
    res.update(
        {
            "rss_samples": [{"edits": n, "rss_mb": round(mb, 2)} for n, mb in samples],
            "growth_mb_per_1000_edits": growth,
            "target_mb_per_1000_edits": SOAK_TARGET_MB,
            "target_met": growth < SOAK_TARGET_MB,
            "seconds": elapsed,
            "seconds_incl_open": time.perf_counter() - started,
            "edits_per_s": edits / elapsed,
            "reindexes_waited_for": len(settle_lat),
            # from the last edit of a burst (up to SOAK_SETTLE edits queued) to its diagnostics
            "burst_to_diagnostics_p50_ms": pct(settle_lat, 50) * 1e3,
            "burst_to_diagnostics_max_ms": max(settle_lat, default=float("nan")) * 1e3,
            "hover_while_typing_p50_ms": pct(hover_lat, 50) * 1e3,
            "hover_while_typing_p99_ms": pct(hover_lat, 99) * 1e3,
            "diagnostics_while_typing_min_max": [min(counts, default=0), max(counts, default=0)],
        }
    )
    return res


def soak_report(r: dict) -> str:
    name = f"{Path(r['file']).parent.name}/{Path(r['file']).name}"
    met = "met" if r["target_met"] else "NOT met"
    size = f"{r['bytes'] / 1e6:.1f} MB" if r["bytes"] >= 1e5 else f"{r['bytes'] / 1e3:.0f} KB"
    return "\n".join(
        [
            f"typing soak: {name} ({size}), {r['edits']} one-character edits in {r['seconds']:.1f} s "
            f"({r['edits_per_s']:.0f}/s; {r['reindexes_waited_for']} re-indexes waited for, last edit→diagnostics "
            f"p50 {r['burst_to_diagnostics_p50_ms']:.0f} ms with up to {SOAK_SETTLE} edits queued; hover while typing p50/p99 "
            f"{r['hover_while_typing_p50_ms']:.1f}/{r['hover_while_typing_p99_ms']:.1f} ms)",
            f"  RSS growth {r['growth_mb_per_1000_edits']:.2f} MB per 1000 edits (least squares after {r['warmup_edits']} warm-up edits; "
            f"target < {r['target_mb_per_1000_edits']}: {met})",
            f"  RSS samples (edits: MB): after open {r['rss_after_open_mb']:.1f}, "
            + ", ".join(f"{p['edits']}: {p['rss_mb']:.1f}" for p in r["rss_samples"]),
        ]
    )


def scaled_copy(src: Path, factor: int, folder: Path) -> Path:
    """A real tokenizer.json made `factor` times larger: every token t also appears as t~~k,
    and every merge (a, b) as (a, b~~k), whose result (a+b)~~k exists; ids shifted per copy."""
    import orjson

    obj = orjson.loads(src.read_bytes())
    model = obj["model"]
    vocab = model["vocab"]
    n = max(vocab.values()) + 1 + len(obj.get("added_tokens", []))
    new_vocab = dict(vocab)
    merges = list(model.get("merges") or [])
    new_merges = list(merges)
    for k in range(1, factor):
        suffix = f"~~{k}"
        new_vocab.update({t + suffix: i + k * n for t, i in vocab.items()})
        for m in merges:
            if isinstance(m, list):
                new_merges.append([m[0], m[1] + suffix])
            else:
                a, b = m.split(" ", 1)
                new_merges.append(f"{a} {b}{suffix}")
    model["vocab"] = new_vocab
    model["merges"] = new_merges
    out = folder / f"{src.parent.name}-x{factor}" / "tokenizer.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2))
    return out


def table(rows: list[dict]) -> str:
    cols = [
        ("file", lambda r: f"{Path(r['file']).parent.name}/{Path(r['file']).name} {r['scale']}"),
        ("MB", lambda r: f"{r['bytes'] / 1e6:.1f}"),
        ("open→diag s", lambda r: f"{r['open_to_diagnostics_s']:.3f}"),
        ("from_file s", lambda r: f"{r['from_file_s']:.3f}"),
        ("ratio", lambda r: f"{r['ratio']:.2f}"),
        ("hover p50/p99 ms", lambda r: f"{r['hover_p50_ms']:.1f}/{r['hover_p99_ms']:.1f}"),
        ("hints p50/p99 ms", lambda r: f"{r['hints_p50_ms']:.1f}/{r['hints_p99_ms']:.1f} ({r['hints_range']})"),
        ("edit→diag ms", lambda r: f"{r['edit_to_diagnostics_ms']:.0f}"),
        (
            "hover in reindex p50/p99 ms",
            lambda r: f"{r['hover_during_reindex_p50_ms']:.1f}/{r['hover_during_reindex_p99_ms']:.1f}",
        ),
        ("re-parse edit→diag ms", lambda r: f"{r['reparse_edit_to_diagnostics_ms']:.0f}"),
        ("hover in re-parse p99 ms", lambda r: f"{r['hover_during_reparse_p99_ms']:.1f}"),
        ("RSS/size", lambda r: f"{r['rss_over_size']:.1f}x"),
        ("with re-parse", lambda r: f"{r['rss_with_reparse_over_size']:.1f}x"),
    ]
    cells = [[name for name, _ in cols]] + [[f(r) for _, f in cols] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells)


def inputs(args) -> dict | None:
    """What each part measures, from the arguments (--old measures the same): the lightness
    files, the navigation files and counts, the soak's file and counts; None (said why) when
    a file is missing."""
    if args.quick:
        soak = (ROOT / "examples" / "tokenizer.json", *QUICK_SOAK)
    else:
        soak = (CORPUS / args.soak_file, args.soak_edits, SOAK_WARMUP, SOAK_EVERY)
    if args.soak_only or args.navigation_only:
        files = []
    elif args.quick:  # every row on the small example file: the rows work, not their figures
        files = [ROOT / "examples" / "tokenizer.json"]
    else:
        files = [CORPUS / f for f in args.files]
    if args.soak_only:
        nav_paths = []
    elif args.quick:
        nav_paths = [ROOT / "examples" / "tokenizer.json"] if args.nav_files else []
    else:
        nav_paths = [CORPUS / f for f in args.nav_files]
    missing = [str(f) for f in files + nav_paths if not f.is_file()]
    if not soak[0].is_file() and not args.navigation_only:
        missing.append(str(soak[0]))
    if missing:
        print(f"corpus files missing: {', '.join(missing)} (set TOKENIZER_CORPUS)", file=sys.stderr)
        return None
    nav_counts = QUICK_NAV if args.quick else (args.nav_definitions, args.nav_references, args.nav_symbols)
    return {"files": files, "nav_paths": nav_paths, "nav_counts": nav_counts, "soak": soak}


async def main_async(args) -> int:
    got = inputs(args)
    if got is None:
        return 2
    if args.old:
        from against_old import against_old  # bench.py --old: rounds interleaved, old beside new

        return await against_old(args, got)
    rng = random.Random(1234)
    rows = []
    for f in got["files"]:
        row = await measure_file(f, args.rounds, args.hovers, rng)
        rows.append(row)
        print(table([row]).split("\n")[1], flush=True)
    if args.scale and not args.quick and not args.soak_only and not args.navigation_only:
        base = CORPUS / args.scale
        with tempfile.TemporaryDirectory() as tmp:
            for factor in (2, 4):
                big = scaled_copy(base, factor, Path(tmp))
                row = await measure_file(big, args.rounds, args.hovers, rng, f"{factor}x")
                rows.append(row)
                print(table([row]).split("\n")[1], flush=True)
        one = next((r for r in rows if r["file"] == str(base)), None)
        if one:
            for r in rows:
                if r["scale"] != "1x":
                    r["time_growth_vs_1x"] = r["open_to_diagnostics_s"] / one["open_to_diagnostics_s"]
    nav = None
    if got["nav_paths"]:
        nav = await measure_navigation(read_nav_files(got["nav_paths"]), *got["nav_counts"], random.Random(5678))
    if args.navigation_only:
        print()
        print(NAV_LEGEND)
        print(navigation_report(nav or {}))
        out = Path(args.out or ROOT / "bench" / "results" / "navigation.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"machine_cores": os.cpu_count(), "navigation": nav}, indent=2, ensure_ascii=False))
        print(f"\nwrote {out}")
        return 0
    soak = await typing_soak(*got["soak"], random.Random(4321))
    if rows:
        print()
        print(table(rows))
        for r in rows:
            if "time_growth_vs_1x" in r:
                print(f"{r['scale']}: open→diagnostics grows {r['time_growth_vs_1x']:.2f}x for {r['scale']} the size")
    if nav:
        print()
        print(NAV_LEGEND)
        print(navigation_report(nav))
    print()
    print(soak_report(soak))
    out = Path(
        args.out
        or ROOT
        / "bench"
        / "results"
        / ("soak.json" if args.soak_only else "quick.json" if args.quick else "latest.json")
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    results = {"machine_cores": os.cpu_count(), "rows": rows, "typing_soak": soak}
    if nav:
        results["navigation"] = nav
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwrote {out}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", nargs="+", default=DEFAULT_FILES, help="paths relative to the corpus")
    p.add_argument("--rounds", type=int, default=3, help="runs per file (medians reported)")
    p.add_argument("--hovers", type=int, default=300)
    p.add_argument("--scale", default="qwen3/tokenizer.json", help="file to scale 2x and 4x ('' to skip)")
    p.add_argument("--quick", action="store_true", help="one small file, one round")
    p.add_argument("--soak-only", action="store_true", help="run only the typing soak (with --quick: the short one)")
    p.add_argument("--soak-file", default=SOAK_FILE, help="corpus file for the typing soak")
    p.add_argument("--soak-edits", type=int, default=SOAK_EDITS, help="one-character edits in the soak (at least 2000)")
    p.add_argument(
        "--navigation-only",
        action="store_true",
        help="run only the navigation rows (with --quick: on the small example file)",
    )
    p.add_argument(
        "--nav-files",
        nargs="*",
        default=NAV_FILES,
        help="corpus files for the navigation rows, all open together for workspace/symbol (none: skip them)",
    )
    p.add_argument("--nav-definitions", type=int, default=NAV_DEFINITIONS, help="definitions per direction")
    p.add_argument("--nav-references", type=int, default=NAV_REFERENCES, help="references per token kind")
    p.add_argument("--nav-symbols", type=int, default=NAV_SYMBOLS, help="workspace/symbol requests per query")
    p.add_argument(
        "--out",
        default=None,
        help="JSON results (default bench/results/latest.json; soak.json with --soak-only, "
        "navigation.json with --navigation-only)",
    )
    p.add_argument(
        "--behaviour-only",
        action="store_true",
        help="run only the encode, unreachable-token, diff, model-folder, quick-fix and process-tree memory benchmarks",
    )
    p.add_argument("--no-behaviour", action="store_true", help="leave the behaviour benchmarks out")
    p.add_argument("--log", action="store_true", help="print the server's log")
    p.add_argument(
        "--old",
        default="",
        help="an older checkout's server/ folder (or the checkout): measured beside this one, rounds "
        "interleaved (bench/against_old.py; passed on to the behaviour benchmarks that take it)",
    )
    args = p.parse_args()
    if args.soak_only and args.navigation_only:
        p.error("--soak-only and --navigation-only: one or the other")
    if args.soak_edits < SOAK_WARMUP + SOAK_EVERY:
        p.error(f"--soak-edits: at least {SOAK_WARMUP + SOAK_EVERY} (a warm-up and two RSS samples)")
    global LOG
    LOG = args.log
    if args.quick:
        args.rounds, args.hovers = 1, 50
    behaviour = not (args.soak_only or args.navigation_only or args.no_behaviour)
    if args.quick and behaviour and not args.behaviour_only:
        # CI's run: only that every script still works counts, not its figures: this one's
        # own rows in a process of their own, run beside the behaviour benchmarks
        return behaviour_benchmarks(True, args.old, [("bench.py", [*sys.argv[1:], "--no-behaviour"])])
    status = 0 if args.behaviour_only else asyncio.run(main_async(args))
    if status == 0 and behaviour:
        status = behaviour_benchmarks(args.quick, args.old)
    return status


# issues 15, 16, 24 and 32: each a script of its own that prints its table (and runs alone)
BEHAVIOUR = (
    "open_bench.py",  # open -> complete diagnostics, cold and warm cache (issue 32)
    "encode_bench.py",
    "reachability_bench.py",
    "diff_bench.py",
    "folder_bench.py",
    "fixes_bench.py",
    "memory_tree.py",
)


# the behaviour benchmarks that measure an older tree's server beside this one's (--old); the
# others time this checkout's modules in-process, whose names and paths an older tree need not share
TAKES_OLD = {"open_bench.py", "memory_tree.py", "encode_bench.py"}


QUICK_JOBS = 2  # --quick: scripts run at once (a process each: CI's 2 cores)


def behaviour_benchmarks(quick: bool, old: str = "", first: list[tuple[str, list[str]]] = ()) -> int:
    """Run `first` (script, its arguments), then each behaviour benchmark; the first failure's
    exit code. One after the other, their output as it comes; --quick: QUICK_JOBS at a time,
    each one's output printed whole, in this order, once it ended (the figures are not kept:
    a neighbour's load is in them)."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    jobs = list(first)
    for script in BEHAVIOUR:
        jobs.append((script, (["--quick"] if quick else []) + (["--old", old] if old and script in TAKES_OLD else [])))
    commands = [[sys.executable, str(Path(__file__).parent / script), *flags] for script, flags in jobs]
    titles = [f"\n== {script} {' '.join(flags)}".rstrip() for script, flags in jobs]
    status = 0
    if not quick:
        for title, cmd in zip(titles, commands):
            print(title, flush=True)
            status = status or subprocess.run(cmd, check=False).returncode
        return status

    def timed_run(cmd):
        t0 = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        return done, time.perf_counter() - t0

    with ThreadPoolExecutor(QUICK_JOBS) as pool:
        running = [pool.submit(timed_run, cmd) for cmd in commands]
        for title, job in zip(titles, running):
            done, seconds = job.result()
            print(f"{title} ({seconds:.1f} s)", flush=True)
            sys.stdout.buffer.write(done.stdout)
            sys.stdout.flush()
            status = status or done.returncode
    return status


if __name__ == "__main__":
    raise SystemExit(main())
