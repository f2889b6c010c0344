" Vim + ALE smoke test of editors/vim/tokenizer-lsp.vim, run in a real terminal (tmux) by
" tests/editors/other-editors.sh, with the setup the README gives: a ~/.vimrc holding
" `filetype plugin on` and `packadd! ale`, and the plugin copied to ~/.vim/plugin/:
"   HOME=<that home> vim -N -i NONE -S tests/editors/vim-ale-smoke.vim
" Environment as for the Emacs test (E2E_REPO, TOKENIZER_LSP_PYTHON, E2E_FILE, E2E_LITERAL,
" E2E_TEXT, E2E_HEX, E2E_ARTIFACTS), and E2E_MERGES_TXT (a merges.txt with its vocab.json);
" E2E_CHAT_FACTS (tests/editors/chat_facts.py): a chat_template.jinja beside qwen3's tokenizer
" gets filetype jinja and the server, chat-template-token on its misspelt literal, a hover id.
" Writes one line per check and "N passed, N failed" to $E2E_ARTIFACTS/vim-results.txt, then
" quits.
set nomore shortmess+=F

let s:art = empty($E2E_ARTIFACTS) ? $E2E_REPO . '/artifacts/vim' : $E2E_ARTIFACTS
call mkdir(s:art, 'p')
let s:out = s:art . '/vim-results.txt'
let s:lines = []
let s:t0 = reltime()
let s:passed = 0
let s:failed = 0
let s:deadline = reltimefloat(reltime()) + str2nr(empty($E2E_TIMEOUT) ? '60' : $E2E_TIMEOUT)

let g:tokenizer_lsp_executable = $TOKENIZER_LSP_PYTHON
let g:tokenizer_lsp_command = '%e -m tokenizer_lsp'
let g:tokenizer_lsp_options = {'inlayHints': {'mode': 'all'},
\                              'diagnostics': {'severity': {'utf8-fragment': 'error'}}}
" (ALE shows every non-error LSP severity as W: 'error' proves the options reach the server)
let g:ale_hover_to_preview = 1
let g:ale_history_log_output = 1

function! s:Report(name, ok, detail) abort
  if a:ok | let s:passed += 1 | else | let s:failed += 1 | endif
  call add(s:lines, (a:ok ? 'PASS ' : 'FAIL ') . a:name . (empty(a:detail) ? '' : ': ' . a:detail)
  \ . printf(' (%.1f s)', reltimefloat(reltime(s:t0))))
  call writefile(s:lines, s:out)
endfunction

function! s:Finish() abort
  call add(s:lines, printf('%d passed, %d failed', s:passed, s:failed))
  call writefile(s:lines, s:out)
  call writefile(split(execute('ALEInfo'), "\n"), s:art . '/vim-ale-info.txt')
  qa!
endfunction

function! s:Short(s) abort
  let l:s = substitute(a:s, "\n", '\\n', 'g')
  return strchars(l:s) > 200 ? strcharpart(l:s, 0, 200) . '…' : l:s
endfunction

" 1. diagnostics from the LSP linter
function! s:WaitDiagnostics(timer) abort
  let l:loclist = ale#engine#GetLoclist(s:buf)
  let l:frag = filter(copy(l:loclist), {_, v -> get(v, 'code', '') is# 'utf8-fragment'})
  if empty(l:frag) && reltimefloat(reltime()) < s:deadline
    call timer_start(200, function('s:WaitDiagnostics'))
    return
  endif
  let l:err = filter(copy(l:frag), {_, v -> v.type is# 'E'})
  call s:Report('diagnostics: ALE loclist has utf8-fragment, raised to error by the options',
  \ !empty(l:frag) && len(l:err) == len(l:frag),
  \ printf('%d items, %d utf8-fragment, %d E; first: %s', len(l:loclist), len(l:frag), len(l:err),
  \        empty(l:frag) ? '-' : s:Short(l:frag[0].text)))
  call s:Hover(0)
endfunction

" 2. :ALEHover on the token, shown in the preview window
function! s:Hover(tries) abort
  let l:pos = searchpos('\V' . escape($E2E_LITERAL, '\') . ':', 'cw')
  if l:pos[0] == 0
    call s:Report('hover', 0, $E2E_LITERAL . ' not found')
    return s:Finish()
  endif
  call s:AskHover([l:pos[0], l:pos[1] + 2], a:tries, function('s:HoverShown'))
endfunction

" :ALEHover at `pos` until the preview window shows something (the first hover can come back
" null while the server builds its tables), then `Done` gets the text and the tries.
function! s:AskHover(pos, tries, Done) abort
  call cursor(a:pos[0], a:pos[1])
  silent! pclose
  ALEHover
  call timer_start(300, {-> s:ReadHover(a:pos, a:tries + 1, a:Done)})
endfunction

function! s:ReadHover(pos, tries, Done) abort
  let l:text = ''
  for l:w in range(1, winnr('$'))
    if getwinvar(l:w, '&previewwindow')
      let l:text = join(getbufline(winbufnr(l:w), 1, '$'), "\n")
    endif
  endfor
  if empty(l:text) && a:tries < 20 && reltimefloat(reltime()) < s:deadline
    " an answer still on its way shows when it comes (the cursor has not moved): ask again
    " only every 3 s (the first hover in a chat template waits for the tokenizer's tables)
    if s:polls < 10
      let s:polls += 1
      return timer_start(300, {-> s:ReadHover(a:pos, a:tries, a:Done)})
    endif
    let s:polls = 0
    silent! wincmd p
    return s:AskHover(a:pos, a:tries, a:Done)
  endif
  let s:polls = 0
  call a:Done(l:text, a:tries)
endfunction
let s:polls = 0

function! s:HoverShown(text, tries) abort
  call writefile(split(a:text, "\n"), s:art . '/vim-hover.txt')
  call s:Report(printf(':ALEHover on %s shows %s and %s', $E2E_LITERAL, $E2E_TEXT, $E2E_HEX),
  \ stridx(a:text, $E2E_TEXT) >= 0 && stridx(a:text, $E2E_HEX) >= 0,
  \ s:Short(a:text) . (a:tries > 1 ? printf(' (after %d :ALEHover)', a:tries) : ''))
  call s:Merges()
endfunction

" 3. merges.txt: Vim's own rules make *.txt 'text'; the plugin must make it bpemerges, and ALE
" then runs the server on it (a merge hover)
function! s:Merges() abort
  if empty($E2E_MERGES_TXT)
    return s:Finish()
  endif
  silent! pclose
  execute 'edit ' . fnameescape($E2E_MERGES_TXT)
  let s:merges_ft = &filetype
  call s:Report('merges.txt gets filetype bpemerges', &filetype is# 'bpemerges', 'filetype ' . &filetype)
  if &filetype isnot# 'bpemerges'
    return s:Finish()
  endif
  let l:line = getline(1) =~# '^#' ? 2 : 1
  call s:AskHover([l:line, 1], 0, function('s:MergeHoverShown'))
endfunction

function! s:MergeHoverShown(text, tries) abort
  call writefile(split(a:text, "\n"), s:art . '/vim-merge-hover.txt')
  call s:Report(':ALEHover on the first merge of merges.txt shows the merge',
  \ stridx(a:text, 'merge rank 0') >= 0,
  \ s:Short(a:text) . (a:tries > 1 ? printf(' (after %d :ALEHover)', a:tries) : ''))
  call s:Model()
endfunction

" 4. a SentencePiece .model ($E2E_MODEL): `:edit` shows the server's decoded view (never the
" bytes), its row of ▁the hovers with the id and bytes of $E2E_MODEL_FACTS (sentencepiece's,
" tests/editors/format_facts.py)
function! s:Model() abort
  if empty($E2E_MODEL) || !filereadable($E2E_MODEL_FACTS)
    return s:Chat()
  endif
  let s:facts = json_decode(join(readfile($E2E_MODEL_FACTS), "\n"))
  silent! pclose
  execute 'edit ' . fnameescape($E2E_MODEL)
  let s:model_buf = bufnr('')
  call timer_start(200, function('s:WaitView'))
endfunction

function! s:WaitView(timer) abort
  if line('$') < 3 && reltimefloat(reltime()) < s:deadline
    return timer_start(200, function('s:WaitView'))
  endif
  let l:want = s:facts.header_lines + s:facts.size
  call s:Report('.model: the buffer is the decoded view, read-only, filetype tokenizerview',
  \ stridx(getline(1), '# tokenizer-lsp decoded view of ' . $E2E_MODEL) == 0 && line('$') == l:want
  \ && &buftype is# 'nofile' && !&modifiable && &filetype is# 'tokenizerview',
  \ printf('%d lines (want %d), buftype %s, filetype %s; line 1: %s', line('$'), l:want, &buftype, &filetype,
  \        s:Short(getline(1))))
  let l:line = s:facts.header_lines + s:facts.hover.id + 1
  call s:AskHover([l:line, stridx(getline(l:line), '"') + 2], 0, function('s:ModelHoverShown'))
endfunction

function! s:ModelHoverShown(text, tries) abort
  call writefile(split(a:text, "\n"), s:art . '/vim-model-hover.txt')
  let l:h = s:facts.hover
  call s:Report(printf(':ALEHover on the row of %s shows id %d and bytes %s', l:h.piece, l:h.id, l:h.hex),
  \ a:text =~# 'id ' . l:h.id . '\>' && stridx(a:text, l:h.hex) >= 0,
  \ s:Short(a:text) . (a:tries > 1 ? printf(' (after %d :ALEHover)', a:tries) : ''))
  call s:Chat()
endfunction

" 5. a model folder's chat_template.jinja (the first file of $E2E_CHAT_FACTS): Vim 9.0 knows no
" *.jinja, the plugin makes it jinja; ALE runs the server on it; the misspelt literal's
" chat-template-token where the file's text has it (ALE: 1-based col, end_col inclusive; the
" line is ASCII, so UTF-16 columns are bytes); a hover on <|im_start|> names tokenizers' id
function! s:Chat() abort
  if empty($E2E_CHAT_FACTS) || !filereadable($E2E_CHAT_FACTS)
    return s:Finish()
  endif
  let s:chat = json_decode(join(readfile($E2E_CHAT_FACTS), "\n")).files[0]
  silent! pclose
  execute 'edit ' . fnameescape(s:chat.path)
  let s:chat_buf = bufnr('')
  call s:Report('chat_template.jinja gets filetype jinja', &filetype is# 'jinja', 'filetype ' . &filetype)
  call timer_start(200, function('s:WaitChat'))
endfunction

function! s:WaitChat(timer) abort
  let l:want = s:chat.diagnostics[0]
  let l:items = filter(copy(ale#engine#GetLoclist(s:chat_buf)), {_, v -> get(v, 'code', '') is# l:want.code})
  if empty(l:items) && reltimefloat(reltime()) < s:deadline
    return timer_start(200, function('s:WaitChat'))
  endif
  let l:at = filter(copy(l:items), {_, v -> v.lnum == l:want.line + 1 && v.col == l:want.character + 1
  \                                         && v.end_col == l:want.end_character})
  call s:Report(printf('chat_template.jinja: %s on line %d, columns %d-%d', l:want.code, l:want.line + 1,
  \                    l:want.character + 1, l:want.end_character), len(l:items) == 1 && len(l:at) == 1,
  \ printf('%d with that code; first: %s', len(l:items),
  \        empty(l:items) ? '-' : printf('%d:%d-%d %s', l:items[0].lnum, l:items[0].col, get(l:items[0], 'end_col', -1),
  \                                      s:Short(l:items[0].text))))
  let l:h = s:chat.hovers[0]
  call s:AskHover([l:h.line + 1, l:h.character + 2], 0, function('s:ChatHoverShown'))
endfunction

function! s:ChatHoverShown(text, tries) abort
  call writefile(split(a:text, "\n"), s:art . '/vim-chat-hover.txt')
  let l:h = s:chat.hovers[0]
  call s:Report(printf(':ALEHover on %s in chat_template.jinja shows %s', l:h.literal, join(l:h.contains, ', ')),
  \ len(filter(copy(l:h.contains), {_, w -> stridx(a:text, w) < 0})) == 0,
  \ s:Short(a:text) . (a:tries > 1 ? printf(' (after %d :ALEHover)', a:tries) : ''))
  call s:Finish()
endfunction

function! s:Start() abort
  execute 'edit ' . fnameescape($E2E_FILE)
  let s:buf = bufnr('')
  call add(s:lines, printf('vim %d.%d, filetype %s, file %s, ALE %s', v:version / 100, v:version % 100,
  \ &filetype, $E2E_FILE, exists('g:loaded_ale') ? 'loaded' : 'NOT loaded'))
  call timer_start(200, function('s:WaitDiagnostics'))
endfunction

" -S runs this before VimEnter; be safe either way
if v:vim_did_enter
  call timer_start(10, {-> s:Start()})
else
  autocmd VimEnter * ++nested call s:Start()
endif
