#!/usr/bin/env bash
# The build steps of a release, shared by .github/workflows/release.yml and .ci/run, so the
# steps CI rehearses are the steps a release runs. Publishes nothing.
#
#   scripts/release-build.sh [--dry-run] [--target T ...]
#
#   1. the sdist and the wheel (python -m build) into dist/python/, checked with
#      `twine check --strict`;
#   2. the self-contained .vsix per platform (scripts/build-vsix.sh) into dist/, each checked
#      to name its target in its manifest;
#   3. the publishing tools answer (vsce from node_modules, ovsx at the pinned version).
#
# --dry-run (.ci/run): the Python dists go to a temporary folder and only linux-x64 is packaged
# (its wheels are cached by the bundled-extension test that runs before it).
# Environment: PYTHON (default .venv/bin/python, else python3).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OVSX_VERSION=1.4.0

DRY=0
TARGETS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --target) TARGETS+=(--target "$2"); shift ;;
    *) echo "release-build: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  if [[ -x .venv/bin/python ]]; then PY=.venv/bin/python; else PY=python3; fi
fi
step() { printf '[release-build] %s\n' "$*" >&2; }

OUT=dist/python
if [[ $DRY == 1 ]]; then
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
  [[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=(--target linux-x64)
fi
rm -rf "$OUT" && mkdir -p "$OUT"
step "sdist and wheel -> $OUT"
"$PY" -m build --outdir "$OUT" . >/dev/null
"$PY" -m twine check --strict "$OUT"/*
ls "$OUT"/*.whl "$OUT"/*.tar.gz >/dev/null

if [[ $DRY == 1 ]]; then
  # what a user runs: the wheel installed as a tool, in environments of its own, checking the
  # example the README names (a wheel missing a data file or a dependency fails here)
  TOOLS="$OUT/tools"
  step "uv tool install and pipx install of the wheel, then check examples/tokenizer.json"
  UV_TOOL_DIR="$TOOLS/uv" UV_TOOL_BIN_DIR="$TOOLS/uv-bin" "$PY" -m uv tool install --quiet "$OUT"/*.whl
  "$TOOLS/uv-bin/tokenizer-lsp" check examples/tokenizer.json
  PIPX_HOME="$TOOLS/pipx" PIPX_BIN_DIR="$TOOLS/pipx-bin" PIPX_MAN_DIR="$TOOLS/pipx-man" \
    "$PY" -m pipx install --quiet "$OUT"/*.whl >/dev/null
  "$TOOLS/pipx-bin/tokenizer-lsp" check examples/tokenizer.json
fi

step "the .vsix per platform ${TARGETS[*]:-(all five)}"
BUILD_PYTHON="$PY" bash scripts/build-vsix.sh "${TARGETS[@]}"
shopt -s nullglob
VSIX=(dist/tokenizer-lsp-*.vsix)
[[ ${#VSIX[@]} -gt 0 ]] || { echo "release-build: no .vsix in dist/" >&2; exit 1; }
for f in "${VSIX[@]}"; do
  want="${f#dist/tokenizer-lsp-}"; want="${want%.vsix}"
  unzip -p "$f" extension.vsixmanifest | grep -q "TargetPlatform=\"$want\"" \
    || { echo "release-build: $f does not name its target $want" >&2; exit 1; }
done
step "checked: ${VSIX[*]}"

step "publishing tools"
node_modules/.bin/vsce --version >/dev/null
npx --yes --loglevel=error "ovsx@$OVSX_VERSION" --version >/dev/null  # ovsx wants node 22; it runs on 20
step "done (nothing published)"
