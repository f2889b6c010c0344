#!/usr/bin/env bash
# Builds the self-contained VS Code packages, one per platform (`npm run package:all`):
#
#   dist/tokenizer-lsp-{linux-x64,linux-arm64,darwin-x64,darwin-arm64,win32-x64}.vsix
#
# each with the server and its libraries for CPython 3.10-3.14 (scripts/build_vsix.py says how).
#
#   scripts/build-vsix.sh [--target linux-x64 ...] [--refresh]
#
# Environment:
#   TOKENIZER_LSP_WHEEL_CACHE  uv, its wheel cache and the resolved locks
#                              (default: $HOME/.cache/tokenizer-lsp-wheels)
#   BUILD_PYTHON               a Python 3.11+ to run the build with (default: .venv/bin/python, else python3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

UV_VERSION=0.13.9
CACHE="${TOKENIZER_LSP_WHEEL_CACHE:-${HOME:-/root}/.cache/tokenizer-lsp-wheels}"
export UV_CACHE_DIR="$CACHE/uv"
UV="$CACHE/tools/bin/uv"

step() { printf '[build-vsix] %s\n' "$*" >&2; }
START=$(date +%s)

PY="${BUILD_PYTHON:-}"
if [[ -z "$PY" ]]; then
  if [[ -x "$ROOT/.venv/bin/python" ]]; then PY="$ROOT/.venv/bin/python"; else PY=python3; fi
fi
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "build-vsix: $PY is older than Python 3.11 (the build reads pyproject.toml with tomllib)" >&2
  exit 2
}

# uv from PyPI, in a venv of its own in the cache
if ! "$UV" --version 2>/dev/null | grep -q "^uv $UV_VERSION\b"; then
  step "installing uv $UV_VERSION into $CACHE/tools"
  rm -rf "$CACHE/tools"
  python3 -m venv "$CACHE/tools"
  "$CACHE/tools/bin/python" -m pip install --quiet "uv==$UV_VERSION"
fi

bash scripts/npm-ci-if-needed.sh
step "npm run build (dist/extension.js), unless dist/ is already the build of these sources"
bash scripts/build-dist.sh >/dev/null

"$PY" "$ROOT/scripts/build_vsix.py" --uv "$UV" --cache "$CACHE" "$@"
step "total $(($(date +%s) - START)) s"
