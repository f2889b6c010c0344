" tokenizer-lsp for Vim 8.2+ / Vim 9 (or Neovim) through ALE 3.x.
"
" Copy to ~/.vim/plugin/tokenizer-lsp.vim.  ~/.vimrc needs `filetype plugin on` (ALE picks
" linters by filetype) and ALE on 'runtimepath': with Debian's vim-ale package, `packadd! ale`.
" Optional settings, in ~/.vimrc:
"
"   let g:tokenizer_lsp_executable = 'tokenizer-lsp'       " or a venv's python ...
"   let g:tokenizer_lsp_command = '%e'                     " ... with '%e -m tokenizer_lsp'
"   let g:tokenizer_lsp_options = {'diagnostics': {'severity': {'utf8-fragment': 'warning'}}}
"
" Diagnostics appear as ALE signs / :lopen; hover with :ALEHover (let g:ale_hover_to_preview = 1
" for a preview window).  ALE has no inlay hints.  The server only claims tokenizer files (it
" reads the content), so it is safe on every JSON buffer.  ALE runs only the linters listed in
" g:ale_linters for json (default jsonlint, spectral, vscodejson) and jsonc: this file adds
" 'tokenizer_lsp' to those lists.  With g:ale_linters_explicit, also list it for tiktoken and
" bpemerges.

if exists('g:loaded_tokenizer_lsp')
  finish
endif
let g:loaded_tokenizer_lsp = 1

" `set filetype=`, not `setfiletype`: Vim's own *.txt rule has already made merges.txt 'text'
" by the time this runs, and setfiletype never overrides a filetype set earlier.
augroup tokenizer_lsp_filetypes
  autocmd!
  autocmd BufNewFile,BufRead *.tiktoken set filetype=tiktoken
  autocmd BufNewFile,BufRead merges.txt,vocab.bpe set filetype=bpemerges
augroup END

function! s:Root(buffer) abort
  let l:dir = fnamemodify(bufname(a:buffer), ':p:h')
  let l:git = finddir('.git', l:dir . ';')
  return empty(l:git) ? l:dir : fnamemodify(l:git, ':p:h:h')
endfunction

for [s:filetype, s:language] in [['json', 'json'], ['jsonc', 'jsonc'],
\                                 ['tiktoken', 'tiktoken'], ['bpemerges', 'bpe-merges']]
  call ale#linter#Define(s:filetype, {
  \   'name': 'tokenizer_lsp',
  \   'lsp': 'stdio',
  \   'executable': {buffer -> get(g:, 'tokenizer_lsp_executable', 'tokenizer-lsp')},
  \   'command': {buffer -> get(g:, 'tokenizer_lsp_command', '%e')},
  \   'project_root': function('s:Root'),
  \   'language': s:language,
  \   'initialization_options': {buffer -> get(g:, 'tokenizer_lsp_options', {})},
  \})
endfor

" ALE's own default for json is ['jsonlint', 'spectral', 'vscodejson'] and for jsonc []:
" keep yours (or those) and add this server.
let g:ale_linters = get(g:, 'ale_linters', {})
for [s:filetype, s:default] in [['json', ['jsonlint', 'spectral', 'vscodejson']], ['jsonc', []]]
  let g:ale_linters[s:filetype] = get(g:ale_linters, s:filetype, s:default)
  if type(g:ale_linters[s:filetype]) == v:t_list && index(g:ale_linters[s:filetype], 'tokenizer_lsp') < 0
    call add(g:ale_linters[s:filetype], 'tokenizer_lsp')
  endif
endfor
