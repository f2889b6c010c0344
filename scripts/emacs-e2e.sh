#!/usr/bin/env bash
# End-to-end test of tokenizer-lsp in real Emacs 30 with its built-in eglot, using the shipped
# configuration editors/emacs/tokenizer-lsp.el, against a real tokenizer file.
#
#   scripts/emacs-e2e.sh            # from the repository root (or anywhere: it cds there)
#
# Environment:
#   TOKENIZER_LSP_PYTHON  Python that can import tokenizer_lsp (default: $PWD/.venv/bin/python)
#   TOKENIZER_CORPUS      real tokenizer files (default: ../shared/corpus); when absent the test
#                         runs on examples/ instead and says so
#   EMACS                 the Emacs to use (default: emacs, installed from bookworm-backports
#                         when it is not version 30 or newer)
#   E2E_SKIP_SETUP=1      install nothing (fail if Emacs 30 / tmux are missing)
#   E2E_SKIP_TTY=1        skip the check in a real terminal (tmux)
#
# Checks, one line each, then "N passed, N failed"; exit status 1 when one fails, 2 when it
# cannot run.  Batch Emacs (-Q --batch): the config's major mode + eglot-ensure connect;
# Flymake shows utf8-fragment diagnostics (raised to warning through initializationOptions,
# 344 of them in OpenAI's encoder.json); the eldoc hover on "\u0120the" shows ␣the, its bytes
# and id; the textDocument/inlayHint answer and eglot's painted overlay put ␣the right after
# the literal; a hover on vocab.bpe shows the merge; M-. (xref-find-definitions) on the merge
# part "Ġt" of vocab.bpe lands in encoder.json on the key "\u0120t" (position found in the
# file's text, artifacts/emacs/definition.txt); Mistral's .model.v3 visits as the server's
# decoded view (rows = sentencepiece's id_to_piece, hover on the row of ▁the, utf8-fragment on
# the byte pieces 0x80-0xFF), a .gguf is never read by Emacs, all-MiniLM's vocab.txt hovers
# with id = line (tokenizers' WordPiece); facts from tests/editors/format_facts.py.  Chat
# templates (tests/editors/chat_facts.py builds a folder from qwen3): chat_template.jinja visits
# in tokenizer-chat-template-mode with eglot (language id "jinja"), Flymake shows
# chat-template-token exactly on a misspelt `<|im_strat|>`, chat-template-syntax on the line
# jinja2 names for an unclosed `{%- endfor` in additional_chat_templates/tool_use.jinja, and
# chat-template-token on the typo inside tokenizer_config.json's chat_template string; an eldoc
# hover on `<|im_start|>` names tokenizers' id; a web page's .jinja gets no server.
# Then Emacs in tmux (-nw): after one key,
# as a user would, the hint must be on the screen (tmux capture-pane).
# Logs (eglot events, server stderr, *Messages*, diagnostics, hover text, the screen) go to
# artifacts/emacs/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export TOKENIZER_LSP_PYTHON="${TOKENIZER_LSP_PYTHON:-$ROOT/.venv/bin/python}"
CORPUS="${TOKENIZER_CORPUS:-$ROOT/../shared/corpus}"
# without "..": the server names a file by its absolute path, and the checks compare with it
CORPUS="$(cd "$CORPUS" 2>/dev/null && pwd || printf %s "$CORPUS")"
ART="$ROOT/artifacts/emacs"
EMACS="${EMACS:-emacs}"
export LANG=C.UTF-8 LC_ALL=C.UTF-8

step() { printf '[emacs-e2e] %s\n' "$*" >&2; }
START=$(date +%s)

# ---- 0. the Python server ---------------------------------------------------------------------
# shellcheck source=require-server.sh
source "$ROOT/scripts/require-server.sh"
require_tokenizer_lsp emacs-e2e

# ---- 1. Emacs 30 (bookworm-backports) and tmux ----------------------------------------------
emacs_major() { "$1" --batch -Q --eval '(princ emacs-major-version)' 2>/dev/null || echo 0; }

SUDO=()
[[ $(id -u) -ne 0 ]] && SUDO=(sudo)

# The mirror the machine already uses for bookworm (deb822 .sources or one-line .list), else
# deb.debian.org.
debian_mirror() {
  local f m
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    m=$(awk 'BEGIN { RS = ""; FS = "\n" }
      { uris = ""; suite = 0; deb = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/)   { uris = $i; sub(/^URIs:[ \t]*/, "", uris); split(uris, u, /[ \t]+/); uris = u[1] }
          if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) suite = 1
          if ($i ~ /^Types:/  && $i ~ /[ \t]deb([ \t]|$)/)      deb = 1
          if ($i ~ /^Enabled:[ \t]*no/) { suite = 0 }
        }
        if (uris != "" && suite && deb) { print uris; exit } }' "$f")
    [[ -n $m ]] && { echo "$m"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    m=$(awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                           if ($(i + 1) == "bookworm") { print $i; exit } }' "$f")
    [[ -n $m ]] && { echo "$m"; return; }
  done
  echo "http://deb.debian.org/debian"
}

apt_install() { # [-t RELEASE] PACKAGE...
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if [[ "${E2E_SKIP_SETUP:-0}" != 1 ]]; then
  need_emacs=0 updated=0
  if (( $(emacs_major "$EMACS") < 30 )); then
    if (( $(emacs_major /usr/bin/emacs-nox) >= 30 )); then
      EMACS=/usr/bin/emacs-nox
    else
      need_emacs=1
      if ! grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        mirror=$(debian_mirror)
        keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        opts=""
        [[ -f $keyring ]] && opts="[signed-by=$keyring] "
        step "adding bookworm-backports from $mirror"
        echo "deb ${opts}${mirror} bookworm-backports main" |
          "${SUDO[@]}" tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
      fi
    fi
  fi
  if (( need_emacs )) || ! command -v tmux >/dev/null; then
    step "apt-get update"
    "${SUDO[@]}" apt-get update -qq
  fi
  if (( need_emacs )); then
    step "apt-get install -t bookworm-backports emacs-nox"
    apt_install -t bookworm-backports emacs-nox
    (( $(emacs_major "$EMACS") >= 30 )) || EMACS=/usr/bin/emacs-nox
  fi
  if ! command -v tmux >/dev/null; then
    step "apt-get install tmux"
    apt_install tmux
  fi
fi
if (( $(emacs_major "$EMACS") < 30 )); then
  echo "emacs-e2e: need Emacs 30 or newer ($EMACS: $("$EMACS" --version 2>/dev/null | head -1 || echo missing))" >&2
  exit 2
fi
step "$("$EMACS" --version | head -1), setup took $(( $(date +%s) - START )) s"

# ---- 2. the file under test ---------------------------------------------------------------------
export E2E_REPO="$ROOT" E2E_ARTIFACTS="$ART"
if [[ -f "$CORPUS/gpt2-openai/encoder.json" ]]; then
  # OpenAI's GPT-2 encoder.json: one 1 MB line, "\u0120the": 262; 344 fragment tokens
  # (shared/corpus/README.md); vocab.bpe beside it.
  export E2E_FILE="$CORPUS/gpt2-openai/encoder.json" E2E_LITERAL='"\u0120the"' E2E_TEXT='␣the' \
    E2E_HEX='20 74 68 65' E2E_FRAGMENTS=344 E2E_MERGES="$CORPUS/gpt2-openai/vocab.bpe"
elif [[ -f "$ROOT/examples/gpt2-style/vocab.json" ]]; then
  step "no corpus at $CORPUS: using examples/gpt2-style (a small generated vocabulary)"
  export E2E_FILE="$ROOT/examples/gpt2-style/vocab.json" E2E_LITERAL='"\u0120t"' E2E_TEXT='␣t' \
    E2E_HEX='20 74' E2E_MERGES="$ROOT/examples/gpt2-style/merges.txt"
  unset E2E_FRAGMENTS
else
  echo "emacs-e2e: no corpus ($CORPUS) and no examples/gpt2-style/vocab.json" >&2
  exit 2
fi
rm -rf "$ART"
mkdir -p "$ART"
# Binary files open as the server's decoded view, and a WordPiece vocab.txt: what each must
# show, worked out by the format's own library (sentencepiece, gguf, tokenizers)
facts() { # VAR_FILE VAR_FACTS KIND PATH [TOKEN]
  [[ -f $4 ]] || { step "no $4: its check is left out"; return 0; }
  "$TOKENIZER_LSP_PYTHON" "$ROOT/tests/editors/format_facts.py" "$3" "$4" "${5:-}" >"$ART/facts-$3.json" ||
    { echo "emacs-e2e: format_facts.py $3 $4 failed" >&2; exit 2; }
  export "$1=$4" "$2=$ART/facts-$3.json"
}
facts E2E_MODEL E2E_MODEL_FACTS model "$CORPUS/mistral-spm/mistral_instruct_tokenizer_240323.model.v3"
facts E2E_GGUF E2E_GGUF_FACTS gguf "$CORPUS/gguf/ggml-vocab-llama-spm.gguf"
facts E2E_VOCAB_TXT E2E_VOCAB_FACTS wordpiece "$CORPUS/all-minilm-l6-v2/vocab.txt" the
# Emacs must not read or write the user's ~/.emacs.d
E2E_HOME="$(mktemp -d)"
trap 'rm -rf "$E2E_HOME"' EXIT
# chat templates: model folders built from qwen3 (in E2E_HOME, removed at the end)
if [[ -f "$CORPUS/qwen3/tokenizer_config.json" ]]; then
  "$TOKENIZER_LSP_PYTHON" "$ROOT/tests/editors/chat_facts.py" "$CORPUS/qwen3" "$E2E_HOME/chat" \
    >"$ART/facts-chat.json" 2>"$ART/facts-chat.log" ||
    { cat "$ART/facts-chat.log" >&2; echo "emacs-e2e: chat_facts.py failed" >&2; exit 2; }
  export E2E_CHAT_FACTS="$ART/facts-chat.json"
else
  step "no $CORPUS/qwen3: the chat template checks are left out"
fi

# ---- 3. batch Emacs -------------------------------------------------------------------------------
set +e
HOME="$E2E_HOME" timeout 300 "$EMACS" -Q --batch -l "$ROOT/tests/editors/eglot-e2e.el" \
  -f tokenizer-e2e-batch 2>"$ART/batch-stderr.log" | tee "$ART/batch.txt"
batch_rc=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/^batch Emacs: \([0-9]*\) checks passed, \([0-9]*\) failed.*/\1/p' "$ART/batch.txt" | tail -1)
failed=$(sed -n 's/^batch Emacs: \([0-9]*\) checks passed, \([0-9]*\) failed.*/\2/p' "$ART/batch.txt" | tail -1)
if [[ -z $passed ]]; then
  echo "FAIL batch Emacs ended before its summary (exit $batch_rc): see $ART/batch-stderr.log"
  tail -20 "$ART/batch-stderr.log" >&2
  passed=0 failed=1
elif (( batch_rc != 0 && failed == 0 )); then
  echo "FAIL batch Emacs exited $batch_rc"
  failed=1
fi

# ---- 4. Emacs in a real terminal (tmux): the hint on screen -------------------------------------
# The interactive path: eglot-ensure connects after the first command, eglot turns on
# eglot-inlay-hints-mode, jit-lock asks for hints of the visible text on redisplay.
check_tty() {
  local sock="emacs-e2e-$$" deadline screen state ok=0 cmd
  cmd=$(printf '%q ' env HOME="$E2E_HOME" TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    E2E_ARTIFACTS="$TTY_ART" "$EMACS" -Q -nw -l "$ROOT/tests/editors/eglot-e2e.el" -f tokenizer-e2e-tty)
  tmux -L "$sock" -f /dev/null new-session -d -s e2e -x 160 -y 40 "$cmd"
  sleep 2
  # one command, as a user moving the cursor: eglot-ensure connects on post-command-hook
  tmux -L "$sock" send-keys -t e2e C-l
  deadline=$(( $(date +%s) + 30 ))
  while (( $(date +%s) < deadline )); do
    sleep 1
    screen=$(tmux -L "$sock" capture-pane -p -t e2e 2>/dev/null || true)
    if grep -qF -- "${E2E_LITERAL} ${E2E_TEXT}" <<<"$screen"; then ok=1; break; fi
  done
  screen=$(tmux -L "$sock" capture-pane -p -t e2e 2>/dev/null || true)
  printf '%s\n' "$screen" >"$TTY_ART/screen.txt"
  state=$(cat "$TTY_ART/tty-state.txt" 2>/dev/null || echo "(no state written)")
  # quit (kill-emacs-hook saves the eglot events and server stderr), then clean up
  tmux -L "$sock" send-keys -t e2e C-x C-c
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    sleep 0.3
    tmux -L "$sock" has-session -t e2e 2>/dev/null || break
  done
  tmux -L "$sock" kill-server 2>/dev/null || true
  if ((ok)); then
    echo "PASS tty: the inlay hint is on the screen: ${E2E_LITERAL} ${E2E_TEXT} (emacs -nw in tmux)"
    passed=$((passed + 1))
  else
    local log="$TTY_ART/eglot-events.log" asked=0 empty=0
    if [[ -f $log ]]; then
      asked=$(grep -c -- '--> textDocument/inlayHint' "$log" || true)
      empty=$(grep -c -- '<-- textDocument/inlayHint\[[0-9]*\] .*"result": \[\]' "$log" || true)
    fi
    echo "FAIL tty: no \"${E2E_LITERAL} ${E2E_TEXT}\" on the screen after 30 s; eglot state ${state};" \
      "eglot asked for inlay hints ${asked} time(s), ${empty} answer(s) empty; screen in ${TTY_ART#"$ROOT"/}/screen.txt"
    failed=$((failed + 1))
  fi
}
if [[ "${E2E_SKIP_TTY:-0}" != 1 ]]; then
  if command -v tmux >/dev/null; then
    TTY_ART="$ART/tty"
    mkdir -p "$TTY_ART"
    check_tty
  else
    echo "FAIL tty: tmux is not installed"
    failed=$((failed + 1))
  fi
fi

echo "emacs-e2e: $(( $(date +%s) - START )) s; logs in ${ART#"$ROOT"/}/"
echo "$passed passed, $failed failed"
(( failed == 0 ))
