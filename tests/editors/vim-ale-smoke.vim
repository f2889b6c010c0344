" Vim + ALE smoke test of editors/vim/tokenizer-lsp.vim, run in a real terminal (tmux) by
" tests/editors/other-editors.sh:
"   vim -N -i NONE -u tests/editors/vim-ale-smoke.vim
" Environment as for the Emacs test (E2E_REPO, TOKENIZER_LSP_PYTHON, E2E_FILE, E2E_LITERAL,
" E2E_TEXT, E2E_HEX, E2E_ARTIFACTS).  Writes one line per check and "N passed, N failed" to
" $E2E_ARTIFACTS/vim-results.txt, then quits.
set nocompatible
set nomore shortmess+=F
silent! packadd! ale
filetype plugin on

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
execute 'source ' . fnameescape($E2E_REPO . '/editors/vim/tokenizer-lsp.vim')

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
  call cursor(l:pos[0], l:pos[1] + 2)
  silent! pclose
  ALEHover
  let s:hover_tries = a:tries + 1
  call timer_start(300, function('s:ReadHover'))
endfunction

function! s:ReadHover(timer) abort
  let l:text = ''
  for l:w in range(1, winnr('$'))
    if getwinvar(l:w, '&previewwindow')
      let l:text = join(getbufline(winbufnr(l:w), 1, '$'), "\n")
    endif
  endfor
  if empty(l:text) && s:hover_tries < 20 && reltimefloat(reltime()) < s:deadline
    " the first hover can come back null while the server builds its tables: ask again
    silent! wincmd p
    return s:Hover(s:hover_tries)
  endif
  call writefile(split(l:text, "\n"), s:art . '/vim-hover.txt')
  call s:Report(printf(':ALEHover on %s shows %s and %s', $E2E_LITERAL, $E2E_TEXT, $E2E_HEX),
  \ stridx(l:text, $E2E_TEXT) >= 0 && stridx(l:text, $E2E_HEX) >= 0,
  \ s:Short(l:text) . (s:hover_tries > 1 ? printf(' (after %d :ALEHover)', s:hover_tries) : ''))
  call s:Finish()
endfunction

function! s:Start() abort
  execute 'edit ' . fnameescape($E2E_FILE)
  let s:buf = bufnr('')
  call add(s:lines, printf('vim %d.%d, filetype %s, file %s', v:version / 100, v:version % 100, &filetype, $E2E_FILE))
  call timer_start(200, function('s:WaitDiagnostics'))
endfunction

autocmd VimEnter * ++nested call s:Start()
