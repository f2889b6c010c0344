#!/usr/bin/env bash
# `npm run build` (type-check the client and the playground, bundle dist/extension.js and the
# playground page) unless dist/ already holds the build of exactly these sources. The
# packaging steps call it (`vscode:prepublish`, scripts/build-vsix.sh): one .ci/run packages
# three times from the same sources and so type-checked and bundled them three times (about
# 30 s each on the 2-core machine); the result depends on nothing but the files hashed here.
#
#   scripts/build-dist.sh [--force]
#
# The stamp (dist/.build-stamp) holds a hash of the sources and one of the outputs: a change to
# either (an edit, `npm run watch` writing a development bundle, a deleted file) rebuilds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STAMP=dist/.build-stamp

# what the build reads: the TypeScript projects and their bundlers, the npm manifest and lock,
# and the server's JSON that detect.ts imports (detect_rules.json, wherever it lives)
sources_hash() {
  {
    find client-vscode/src client-vscode/esbuild.mjs client-playground server/tokenizer_lsp \
      -type f \( -path 'server/*' -name '*.json' -o ! -path 'server/*' \) -print0 |
      sort -z | xargs -0 sha256sum
    sha256sum tsconfig.json package.json package-lock.json
  } | sha256sum | cut -d' ' -f1
}
# what it writes (a missing file hashes as an error line, so it never matches a stamp)
outputs_hash() {
  sha256sum dist/extension.js dist/playground.js dist/playground.css \
    server/tokenizer_lsp/playground/static/playground.js 2>&1 | sha256sum | cut -d' ' -f1
}

if [[ "${1:-}" != --force && -f "$STAMP" ]] && [[ "$(cat "$STAMP")" == "$(sources_hash) $(outputs_hash)" ]]; then
  printf '[build-dist] dist/ is the build of these sources: not built again\n' >&2
  exit 0
fi
rm -f "$STAMP"
npm run --silent build
printf '%s %s\n' "$(sources_hash)" "$(outputs_hash)" >"$STAMP"
