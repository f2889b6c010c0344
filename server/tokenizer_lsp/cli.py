"""Command line: check, decode, serve."""

from __future__ import annotations

import argparse
import os
import sys

import orjson

from . import __version__
from .core.files import decoded_rows, index_file, load_vocab_file
from .core.decoding.display import visible_text
from .core.model import DEFAULT_SEVERITY, SEVERITIES


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tokenizer-lsp",
        description="Language server and checker for LLM tokenizer files "
        "(tokenizer.json, vocab.json, merges.txt, .tiktoken). With no command, serves LSP on stdio.",
    )
    p.add_argument("--version", action="version", version=f"tokenizer-lsp {__version__}")
    p.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    p.add_argument("--tcp", action="store_true", help="serve LSP over TCP")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=2087)
    sub = p.add_subparsers(dest="command")

    c = sub.add_parser("check", help="report findings, one line each; exit 1 when one is an error")
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument(
        "--severity", action="append", default=[], metavar="CODE=LEVEL",
        help="override a code's severity (error, warning, information, hint, or off); repeatable",
    )

    d = sub.add_parser("decode", help="print the decoded vocabulary, one row per entry")
    d.add_argument("path", metavar="PATH")
    d.add_argument("--format", choices=("text", "jsonl"), default="text")

    s = sub.add_parser("serve", help="serve LSP (stdio unless --tcp)")
    s.add_argument("--stdio", action="store_true")
    s.add_argument("--tcp", action="store_true")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=2087)
    return p


def run() -> None:
    """Console entry point. After check/decode, skip freeing millions of objects one by
    one at interpreter exit (a quarter of a second on a 33 MB vocabulary)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from . import runtime

    serving = args.command not in ("check", "decode")
    runtime.install(serving=serving)  # optional speed-ups (see runtime/__init__.py)
    if args.command == "check":
        return _check(args)
    if args.command == "decode":
        return _decode(args)
    from .lsp.server import serve
    from .runtime.stdio import serve_stdio

    serve(tcp=args.tcp, host=args.host, port=args.port, stdio_loop=serve_stdio)
    return 0


def _severity_overrides(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        code, _, level = item.partition("=")
        if code not in DEFAULT_SEVERITY or level not in (*SEVERITIES, "off"):
            raise ValueError(f"bad --severity {item!r}: expected CODE=LEVEL with CODE one of "
                             f"{', '.join(DEFAULT_SEVERITY)} and LEVEL one of {', '.join(SEVERITIES)}, off")
        out[code] = level
    return out


def _err(msg: str) -> None:
    print(f"tokenizer-lsp: {msg}", file=sys.stderr)


def _check(args) -> int:
    try:
        overrides = _severity_overrides(args.severity)
    except ValueError as e:
        _err(str(e))
        return 2
    paths = args.paths
    vocab_for = _vocab_pairing(paths)
    status = 0
    results = []
    for path in paths:
        try:
            idx = index_file(path, vocab_for(path))
        except OSError as e:
            _err(f"{path}: cannot read: {e.strerror or e}")
            status = 2
            continue
        if not idx.is_tokenizer:
            _err(f"{path}: {idx.not_tokenizer_reason}")
            status = 2
            continue
        for f in idx.findings:
            level = overrides.get(f.code, f.severity)
            if level == "off":
                continue
            results.append((path, idx, f, level))
    errors = any(level == "error" for *_, level in results)
    _print_findings(results, args.format)
    if status == 2:
        return 2
    return 1 if errors else 0


def _vocab_pairing(paths: list[str]):
    """Which vocabulary a merges file among `paths` is checked against: a vocabulary given
    in the same folder, else the nearest one given before it, else the only one given; with
    none given, index_file looks beside the merges file (vocab.json, encoder.json)."""
    vocabs = [i for i, p in enumerate(paths) if p.endswith(".json")]
    loaded: dict[str, object] = {}

    def load(p: str):
        if p not in loaded:
            try:
                loaded[p] = load_vocab_file(p)
            except OSError:
                loaded[p] = None
        return loaded[p]

    def vocab_for(path: str):
        if path.endswith(".json") or not vocabs:
            return None
        here = paths.index(path)
        folder = os.path.dirname(os.path.abspath(path))
        same = [i for i in vocabs if os.path.dirname(os.path.abspath(paths[i])) == folder]
        before = [i for i in vocabs if i < here]
        if same:
            pick = min(same, key=lambda i: abs(i - here))
        elif before:
            pick = before[-1]
        elif len(vocabs) == 1:
            pick = vocabs[0]
        else:
            return None
        return load(paths[pick])

    return vocab_for


def _print_findings(results, fmt: str) -> None:
    out = sys.stdout
    by_idx: dict[int, list] = {}
    for r in results:
        by_idx.setdefault(id(r[1]), []).append(r)
    if fmt == "json":
        rows = []
        for group in by_idx.values():
            idx = group[0][1]
            offs = [o for _, _, f, _ in group for o in (f.start, f.end)]
            pos = idx.lines.positions(offs, "utf-16")
            for k, (path, _, f, level) in enumerate(group):
                (sl, sc), (el, ec) = pos[2 * k], pos[2 * k + 1]
                rows.append({
                    "path": path,
                    "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
                    "severity": level, "code": f.code, "message": f.message,
                })
        out.write(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    for group in by_idx.values():
        idx = group[0][1]
        pos = idx.lines.positions([f.start for _, _, f, _ in group], "utf-32")
        out.write("".join(
            f"{path}:{line + 1}:{col + 1}: {level} {f.code} {f.message}\n"
            for (path, _, f, level), (line, col) in zip(group, pos)
        ))


def _decode(args) -> int:
    try:
        idx = index_file(args.path)
    except OSError as e:
        _err(f"{args.path}: cannot read: {e.strerror or e}")
        return 2
    if not idx.is_tokenizer:
        _err(f"{args.path}: {idx.not_tokenizer_reason}")
        return 2
    if idx.syntax_error is not None:
        f = idx.syntax_error
        line, col = idx.lines.position(f.start, "utf-32")
        _err(f"{args.path}:{line + 1}:{col + 1}: {f.message}")
        return 1
    write = sys.stdout.buffer.write if hasattr(sys.stdout, "buffer") else None
    batch: list[bytes] = []
    try:
        for row in decoded_rows(idx):
            if args.format == "jsonl":
                batch.append(orjson.dumps(row))
            else:
                batch.append(_text_row(row).encode("utf-8", "surrogateescape"))
            if len(batch) >= 4096:
                _flush(batch, write)
        _flush(batch, write)
    except BrokenPipeError:  # `decode ... | head` is normal use: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0


def _flush(batch: list[bytes], write) -> None:
    if not batch:
        return
    payload = b"\n".join(batch) + b"\n"
    if write is not None:
        write(payload)
    else:
        sys.stdout.write(payload.decode("utf-8", "replace"))
    batch.clear()


def _text_row(row: dict) -> str:
    data = bytes.fromhex(row["bytes"])
    stored = orjson.dumps(row["token"]).decode()
    shown = visible_text(data)
    hexed = data.hex(" ").upper()
    tail = row["kind"] if row["utf8"] == "valid" else f"{row['kind']}, {row['utf8']} UTF-8"
    tid = "-" if row["id"] is None else str(row["id"])
    return f"{tid:>7}  {stored:<20} {shown:<16} {hexed:<24} {tail}"
