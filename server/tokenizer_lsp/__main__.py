"""`python -m tokenizer_lsp`: the command line (cli/)."""

from .cli import run

run()
