"""Command line: check, decode, encode, stats, diff, serve.

One module per command (like the LSP methods in lsp/handlers/); each has
`add_arguments(parser)` and `run(args) -> exit code`. COMMANDS is the one table.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .. import __version__

# name -> (module, help)
COMMANDS = {
    "check": ("check", "report findings, one line each; exit 1 when one is an error"),
    "decode": ("decode", "print the decoded vocabulary, one row per entry"),
    "encode": ("encode", "encode text with the tokenizer exactly as HF tokenizers / tiktoken do"),
    "stats": ("stats", "summarise tokenizer files: sizes, tokens, fragments, unreachable tokens"),
    "diff": ("diff", "what differs between two tokenizers, by meaning; exit 1 when they differ"),
}


def _command(name: str):
    return importlib.import_module(f".{COMMANDS[name][0]}", __name__)


def _parser(wanted: str | None) -> argparse.ArgumentParser:
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
    for name, (_, help_text) in COMMANDS.items():
        cp = sub.add_parser(name, help=help_text)
        if name == wanted:  # import only the command that runs (tokenizers is slow to import)
            _command(name).add_arguments(cp)
        else:
            cp.add_argument("rest", nargs=argparse.REMAINDER)

    s = sub.add_parser("serve", help="serve LSP (stdio unless --tcp)")
    s.add_argument("--stdio", action="store_true")
    s.add_argument("--tcp", action="store_true")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=2087)
    return p


def run() -> None:
    """Console entry point. After a command, skip freeing millions of objects one by
    one at interpreter exit (a quarter of a second on a 33 MB vocabulary)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    wanted = next((a for a in argv if a in COMMANDS or a == "serve"), None)
    args = _parser(wanted).parse_args(argv)
    from .. import runtime

    runtime.install(serving=args.command not in COMMANDS)  # optional speed-ups (runtime/__init__.py)
    if args.command in COMMANDS:
        return _command(args.command).run(args)
    from ..lsp.server import serve
    from ..runtime.stdio import serve_stdio

    serve(tcp=args.tcp, host=args.host, port=args.port, stdio_loop=serve_stdio)
    return 0
