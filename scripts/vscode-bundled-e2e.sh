#!/usr/bin/env bash
# End-to-end test of the platform packages (`npm run test:vscode-bundled`): builds
# dist/tokenizer-lsp-<target>.vsix for every target (scripts/build-vsix.sh; fast when cached),
# checks what each holds, runs the linux-x64 launcher on this machine's Pythons, and installs the
# linux-x64 .vsix into real VS Code (code-server 4.100.3) whose only Python is a bare venv
# (tests/editors/vscode/e2e-bundled.mjs). Prints one line per check and "N passed, N failed".
#
# Environment:
#   E2E_SKIP_BUILD=1         use the .vsix files already in dist/
#   TOKENIZER_CORPUS         real tokenizer files (default: ../shared/corpus)
#   TOKENIZER_LSP_E2E_CACHE  where code-server is installed (default: $HOME/.cache/tokenizer-lsp-e2e)
#   E2E_BASE_PYTHON          the Python the bare venv is made from (default: python3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CODE_SERVER_VERSION=4.100.3
CACHE="${TOKENIZER_LSP_E2E_CACHE:-${HOME:-/root}/.cache/tokenizer-lsp-e2e}"
export CODE_SERVER_BIN="$CACHE/code-server-$CODE_SERVER_VERSION/node_modules/.bin/code-server"
step() { printf '[vscode-bundled-e2e] %s\n' "$*" >&2; }
START=$(date +%s)

# code-server, Chromium and the npm packages: scripts/vscode-e2e.sh installs them (and then runs
# its own checks); here they are only looked for
missing=()
[[ -x "$CODE_SERVER_BIN" ]] || missing+=("code-server $CODE_SERVER_VERSION in $CACHE")
command -v chromium >/dev/null || missing+=(chromium)
command -v unzip >/dev/null || missing+=(unzip)
[[ -d node_modules/playwright-core ]] || missing+=("node_modules (npm ci)")
if ((${#missing[@]})); then
  echo "vscode-bundled-e2e: missing ${missing[*]}: run scripts/vscode-e2e.sh once (it installs them)" >&2
  exit 2
fi

if [[ "${E2E_SKIP_BUILD:-0}" != 1 ]]; then
  step "building the platform packages"
  bash scripts/build-vsix.sh
fi

step "setup took $(($(date +%s) - START)) s; running the checks"
status=0
node tests/editors/vscode/e2e-bundled.mjs || status=$?
step "total $(($(date +%s) - START)) s"
exit "$status"
