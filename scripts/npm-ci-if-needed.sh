#!/usr/bin/env bash
# `npm ci` when node_modules does not hold what package-lock.json pins; else nothing.
#
# The test used before, "package-lock.json is newer than node_modules/.package-lock.json",
# reads file times: a fresh checkout or worktree has a new package-lock.json, so it reinstalled
# every time (about 40 s), and where node_modules is a symlink to another checkout's (the
# team's worktrees) `npm ci` emptied that checkout's node_modules under it. This compares the
# contents instead: every package the lock pins is installed at its version (npm's own record,
# node_modules/.package-lock.json), optional ones (another platform's esbuild) may be absent,
# and nothing else is installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if node -e '
const fs = require("fs");
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
const done = JSON.parse(fs.readFileSync("node_modules/.package-lock.json", "utf8")).packages;
for (const [key, want] of Object.entries(lock)) {
  if (key === "") continue;
  const got = done[key];
  if (got ? got.version !== want.version || got.integrity !== want.integrity : !want.optional) process.exit(1);
}
for (const key of Object.keys(done)) if (!(key in lock)) process.exit(1);
' 2>/dev/null; then
  exit 0
fi
printf '[npm] node_modules differs from package-lock.json: npm ci\n' >&2
npm ci --loglevel=error >/dev/null
