# Sourced by the e2e scripts: stop at once, saying how to fix it, when the Python in
# $TOKENIZER_LSP_PYTHON cannot import the server.
require_tokenizer_lsp() {  # $1: the calling script's name, for the message
  if ! "$TOKENIZER_LSP_PYTHON" -c 'import tokenizer_lsp' 2>/dev/null; then
    echo "$1: $TOKENIZER_LSP_PYTHON cannot import tokenizer_lsp." >&2
    echo "  Create it first: python3 -m venv .venv && .venv/bin/pip install -e ." >&2
    echo "  or set TOKENIZER_LSP_PYTHON to a Python that has it." >&2
    exit 2
  fi
}
