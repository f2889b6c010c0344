"""Command line: check, decode, encode, stats, diff, render, playground, serve.

One module per command (like the LSP methods in lsp/handlers/); each has
`add_arguments(parser)` and `run(args) -> exit code`. COMMANDS is the one table. Findings,
the summary line and the exit status go through report.py, the same for every command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .. import __version__

# name -> (module, help)
COMMANDS = {
    "check": ("check", "report findings, one line each, and a summary; exit 1 when one is an error"),
    "decode": ("decode", "print the decoded vocabulary, one row per entry"),
    "encode": ("encode", "encode text with the tokenizer exactly as HF tokenizers / tiktoken do"),
    "stats": ("stats", "summarise tokenizer files: sizes, tokens, fragments, unreachable tokens"),
    "diff": ("diff", "what differs between two tokenizers, by meaning; exit 1 when they differ"),
    "render": ("render", "the prompt a chat template makes of a conversation, exactly as transformers renders it"),
    "playground": ("playground", "a local web page: tokens of a text side by side, chat templates rendered"),
}

DESCRIPTION = (
    "Language server and checker for LLM tokenizer files (tokenizer.json, vocab.json + "
    "merges.txt, .tiktoken and the other tokenizer files of a model folder). With no command, serves LSP on stdio."
)

EPILOG = """\
exit status (every command):
  0  done, nothing at error level
  1  a finding at error level (a broken file is one), or for diff: the tokenizers differ
  2  usage error, unreadable path, or not a tokenizer file

paths:
  A folder stands for the tokenizer files in it: `check DIR` and `stats DIR` take all of
  them (check also checks the model folder's tokenizer_config.json, config.json... against
  them); decode, encode and diff take its tokenizer.json (else vocab.json/encoder.json).
  A pair is a vocab.json (or encoder.json) and its merges.txt (or vocab.bpe): give either
  file and the other is found beside it; `check vocab.json merges.txt` checks the merges
  against that vocabulary. Options may stand anywhere among the arguments.

docs: https://tokenizer-lsp.github.io/tokenizer-lsp/"""

USAGE_HINT = """\
tokenizer-lsp is a language server: editors start it and talk LSP over stdin/stdout.
From a terminal, try:
  tokenizer-lsp check examples/tokenizer.json     # findings and a summary
  tokenizer-lsp decode examples/tokenizer.json    # the vocabulary, decoded
  tokenizer-lsp encode examples/tokenizer.json "Hello world"
  tokenizer-lsp --help                            # every command and option
(`tokenizer-lsp serve` serves LSP here anyway.)"""


def _command(name: str):
    return importlib.import_module(f".{COMMANDS[name][0]}", __name__)


def _top_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tokenizer-lsp",
        usage="tokenizer-lsp [--version] [COMMAND] [ARGS...]",
        description=DESCRIPTION,
        epilog="commands:\n"
        + "\n".join(f"  {n:<10} {h}" for n, (_, h) in COMMANDS.items())
        + "\n  serve      serve LSP (stdio unless --tcp); the default with no command\n\n"
        + EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"tokenizer-lsp {__version__}")
    _serve_options(p)
    return p


def _serve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    p.add_argument("--tcp", action="store_true", help="serve LSP over TCP")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=2087)


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one command, on its own: it is parsed with parse_intermixed_args, which
    argparse refuses on a parser with sub-commands (`encode PATH --special TEXT`)."""
    help_text = COMMANDS[name][1] if name in COMMANDS else "serve LSP (stdio unless --tcp)"
    p = argparse.ArgumentParser(
        prog=f"tokenizer-lsp {name}",
        description=help_text,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if name in COMMANDS:
        _command(name).add_arguments(p)  # only the command that runs is imported (tokenizers is slow)
    else:
        _serve_options(p)
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


def parse(argv: list[str]) -> argparse.Namespace:
    """Top-level options, then the command's own arguments, intermixed."""
    at = next((i for i, a in enumerate(argv) if a in COMMANDS or a == "serve"), None)
    if at is None:
        args = _top_parser().parse_args(argv)
        args.command = None
        return args
    top = _top_parser().parse_args(argv[:at])
    args = command_parser(argv[at]).parse_intermixed_args(argv[at + 1 :])
    args.command = argv[at]
    for k, v in vars(top).items():  # `tokenizer-lsp --tcp serve` is `serve --tcp`
        if not hasattr(args, k) or (v and not getattr(args, k)):
            setattr(args, k, v)
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv and _on_terminal():
        # an editor starts us on pipes; a person at a terminal would wait on a silent LSP server
        print(USAGE_HINT, file=sys.stderr)
        return 2
    try:
        args = parse(argv)
    except SystemExit as e:  # argparse: usage errors (2) and --help/--version (0)
        return e.code if isinstance(e.code, int) else 2
    from .. import runtime

    runtime.install(serving=args.command not in COMMANDS)  # optional speed-ups (runtime/__init__.py)
    if args.command in COMMANDS:
        return _command(args.command).run(args)
    from ..lsp.server import serve
    from ..runtime.collector import freeze_startup_objects
    from ..runtime.stdio import serve_stdio

    freeze_startup_objects()  # the imports above are never garbage (runtime/collector.py)
    serve(tcp=args.tcp, host=args.host, port=args.port, stdio_loop=serve_stdio)
    return 0


def _on_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False
