#!/usr/bin/env bash
# End-to-end test of the VS Code extension in real VS Code (code-server 4.100.3 = VS Code 1.100.3)
# driven by headless Debian Chromium through playwright-core.
#
#   scripts/vscode-e2e.sh            # from the repository root (or anywhere: it cds there)
#
# Environment:
#   TOKENIZER_LSP_PYTHON   Python that can import tokenizer_lsp (default: $PWD/.venv/bin/python)
#   TOKENIZER_CORPUS       real tokenizer files (default: ../shared/corpus; optional)
#   TOKENIZER_LSP_E2E_CACHE  where code-server is installed (default: $HOME/.cache/tokenizer-lsp-e2e)
#   E2E_TRACE              tokenizerLsp.trace.server for the run: off|messages|verbose (default messages)
#   E2E_SKIP_SETUP=1       skip apt/code-server/npm installs (they are skipped anyway when done)
#   E2E_CPU_PROFILE=1      the workbench page's JavaScript CPU profile in artifacts/vscode/renderer.cpuprofile
#   E2E_SETUP_ONLY=1       install and package, run no check (.ci/run: the installs alone, so that
#                          the checks can run beside other parts without two apt-gets at once)
#
# Installs what it needs (Debian packages, code-server into the cache, the repo's npm packages),
# builds and packages the .vsix, then runs tests/editors/vscode/e2e.mjs, which prints one line per check
# and "N passed, N failed", saves screenshots and logs in artifacts/vscode/ and exits non-zero
# when a check fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CODE_SERVER_VERSION=4.100.3
RIPGREP_PKG_VERSION=1.15.11     # @vscode/ripgrep inside code-server 4.100.3
RIPGREP_BIN_VERSION=v13.0.0-10  # the prebuilt it would download

export TOKENIZER_LSP_PYTHON="${TOKENIZER_LSP_PYTHON:-$ROOT/.venv/bin/python}"
CACHE="${TOKENIZER_LSP_E2E_CACHE:-${HOME:-/root}/.cache/tokenizer-lsp-e2e}"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
export CODE_SERVER_BIN="$CS_DIR/node_modules/.bin/code-server"
# pip's cache for the missing-module check's install command (its HOME is new each run)
export E2E_PIP_CACHE_DIR="${E2E_PIP_CACHE_DIR:-$CACHE/pip}"
export TMPDIR="${TMPDIR:-/tmp}"

# npm settings that code-server's native modules need when installing as root.
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir=/usr
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

step() { printf '[vscode-e2e] %s\n' "$*" >&2; }
START=$(date +%s)

# ---- 0. the Python server ---------------------------------------------------------------------
# shellcheck source=require-server.sh
source "$ROOT/scripts/require-server.sh"
require_tokenizer_lsp vscode-e2e

if [[ "${E2E_SKIP_SETUP:-0}" != 1 ]]; then
  # ---- 1. Debian packages ---------------------------------------------------------------------
  # fonts-wqy-microhei: a CJK font, so that the screenshots show 我 rather than empty boxes
  APT_PACKAGES=(chromium build-essential pkg-config libkrb5-dev ripgrep fonts-wqy-microhei)
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    step "apt-get install ${missing[*]}"
    SUDO=()
    [[ $(id -u) -ne 0 ]] && SUDO=(sudo)
    apt_opts=(-o DPkg::Lock::Timeout=600 -qq)
    "${SUDO[@]}" apt-get "${apt_opts[@]}" update
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get "${apt_opts[@]}" install -y "${missing[@]}" >/dev/null
  fi

  # ---- 2. code-server, in a cache outside the repository --------------------------------------
  if [[ ! -x "$CODE_SERVER_BIN" || ! -f "$CS_DIR/.installed" ]]; then
    # @vscode/ripgrep downloads rg from GitHub in its postinstall; hand it Debian's rg instead.
    case "$(uname -m)" in
      x86_64) rg_target=x86_64-unknown-linux-musl ;;
      aarch64 | arm64) rg_target=aarch64-unknown-linux-musl ;;
      *) echo "vscode-e2e: unsupported machine $(uname -m)" >&2; exit 2 ;;
    esac
    rg_cache="$TMPDIR/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION"
    rg_tar="$rg_cache/ripgrep-$RIPGREP_BIN_VERSION-$rg_target.tar.gz"
    if [[ ! -s "$rg_tar" ]]; then
      mkdir -p "$rg_cache"
      tmp_rg="$(mktemp -d)"
      cp "$(command -v rg)" "$tmp_rg/rg"
      tar -C "$tmp_rg" -czf "$rg_tar" rg
      rm -rf "$tmp_rg"
    fi
    step "npm install code-server@$CODE_SERVER_VERSION into $CS_DIR (1.5-2.5 min)"
    rm -rf "$CS_DIR"
    mkdir -p "$CS_DIR"
    printf '{"name":"tokenizer-lsp-e2e-code-server","private":true}\n' >"$CS_DIR/package.json"
    (cd "$CS_DIR" && npm install --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION" >"$CS_DIR/npm-install.log" 2>&1) || {
      tail -n 40 "$CS_DIR/npm-install.log" >&2
      echo "vscode-e2e: installing code-server failed (log above)" >&2
      exit 2
    }
    "$CODE_SERVER_BIN" --version >/dev/null
    touch "$CS_DIR/.installed"
  fi

  # ---- 3. the extension's npm packages --------------------------------------------------------
  bash scripts/npm-ci-if-needed.sh
fi

# ---- 4. build and package the .vsix ---------------------------------------------------------------
# Packaged again only when what goes into it changed (vsce takes seconds even when dist/ is up to
# date): the stamp beside the .vsix holds a hash of the files .vscodeignore lets in.
bash scripts/build-dist.sh
vsix_inputs_hash() {
  local paths=() p
  for p in package.json .vscodeignore LICENSE CHANGELOG.md client-vscode/README.md dist/extension.js \
    dist/playground.js dist/playground.css client-vscode/language-configuration.json client-vscode/syntaxes \
    bundled/tool/launch.py bundled/libs; do
    [[ -e "$p" ]] && paths+=("$p")  # bundled/libs: only in a platform build
  done
  find "${paths[@]}" -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}
VSIX_STAMP=tokenizer-lsp.vsix.stamp
if [[ -s tokenizer-lsp.vsix && -f "$VSIX_STAMP" && "$(cat "$VSIX_STAMP")" == "$(vsix_inputs_hash)" ]]; then
  step "tokenizer-lsp.vsix is the package of these files: not packaged again"
else
  step "npm run package"
  rm -f tokenizer-lsp.vsix "$VSIX_STAMP"
  npm run --silent package >/dev/null
  vsix_inputs_hash >"$VSIX_STAMP"
fi
export TOKENIZER_LSP_VSIX="$ROOT/tokenizer-lsp.vsix"
[[ -s "$TOKENIZER_LSP_VSIX" ]] || { echo "vscode-e2e: packaging produced no $TOKENIZER_LSP_VSIX" >&2; exit 2; }

step "setup took $(($(date +%s) - START)) s; running the checks"
[[ "${E2E_SETUP_ONLY:-0}" == 1 ]] && exit 0

# ---- 5. the checks ----------------------------------------------------------------------------------
status=0
node tests/editors/vscode/e2e.mjs || status=$?
step "total $(($(date +%s) - START)) s"
exit "$status"
