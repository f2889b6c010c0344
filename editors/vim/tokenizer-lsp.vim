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
" reads the content), so it is safe on every JSON buffer (Mistral's tekken*.json included).
" vocab.txt gets the filetype wordpiece (the server decides by its content).  ALE runs only
" the linters listed in
" g:ale_linters for json (default jsonlint, spectral, vscodejson) and jsonc: this file adds
" 'tokenizer_lsp' to those lists.  With g:ale_linters_explicit, also list it for tiktoken and
" bpemerges, wordpiece, tokenizerview and jinja.
"
" Chat templates: a model folder's chat_template.jinja and additional_chat_templates/*.jinja
" get the filetype jinja (unless Vim or a plugin gave them one) and the server, which checks
" them against the tokenizer beside them: ALE signs for chat-template-syntax,
" chat-template-token and the other template findings, :ALEHover on `<|im_start|>` or
" `eos_token` shows its id, :ALECodeAction moves the template into tokenizer_config.json and
" back.  Other Jinja files (a web project's templates) start no server.
"
" Binary tokenizer files (SentencePiece *.model / *.model.vN, GGUF *.gguf): `:edit` one and the
" buffer shows its decoded view (one row per token), never the bytes: Vim does not read the
" file (a BufReadCmd takes over the read), the server does (a GGUF by its metadata alone) and
" answers the command tokenizer-lsp.decodedVocabulary.  The buffer is read-only and never
" written (buftype=nofile, filetype tokenizerview); ALE opens it with the server, so
" :ALEHover on a row hovers and the file's findings are its rows' signs.  :TokenizerDecoded
" [file] shows it again, or for a text tokenizer file its `decode` listing in a scratch
" buffer.  `let g:tokenizer_lsp_decoded_views = 0` turns this off; `:noautocmd edit FILE`
" shows the bytes once.

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
  autocmd BufNewFile,BufRead vocab.txt set filetype=wordpiece
  autocmd BufNewFile,BufRead chat_template.jinja,*/additional_chat_templates/*.jinja setfiletype jinja
augroup END

" A model folder's chat template file (the server's core/detect.py is_chat_template_name)
function! s:IsChatTemplate(path) abort
  let l:base = tolower(fnamemodify(a:path, ':t'))
  return l:base is# 'chat_template.jinja'
  \   || (l:base =~# '\.jinja$' && fnamemodify(a:path, ':p:h:t') is# 'additional_chat_templates')
endfunction

" The server's command; for a Jinja file that is no chat template, none (ALE starts nothing)
function! s:Executable(buffer) abort
  if getbufvar(a:buffer, '&filetype') =~# '\<jinja\>' && !s:IsChatTemplate(bufname(a:buffer))
    return ''
  endif
  return get(g:, 'tokenizer_lsp_executable', 'tokenizer-lsp')
endfunction

function! s:Root(buffer) abort
  let l:dir = fnamemodify(bufname(a:buffer), ':p:h')
  let l:git = finddir('.git', l:dir . ';')
  return empty(l:git) ? l:dir : fnamemodify(l:git, ':p:h:h')
endfunction

" vocab.txt and the decoded views are plain text to the server: it knows vocab.txt by its
" name and a view by its first line
for [s:filetype, s:language] in [['json', 'json'], ['jsonc', 'jsonc'],
\                                 ['tiktoken', 'tiktoken'], ['bpemerges', 'bpe-merges'],
\                                 ['wordpiece', 'plaintext'], ['tokenizerview', 'plaintext'], ['jinja', 'jinja']]
  call ale#linter#Define(s:filetype, {
  \   'name': 'tokenizer_lsp',
  \   'lsp': 'stdio',
  \   'executable': function('s:Executable'),
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

" ---- binary tokenizer files: the decoded view ------------------------------------------------
" The buffer must hold exactly the server's text: it knows a view by its first line and serves
" hovers on its rows only while the text is the view of the file as it is on disk.

function! s:SetText(buffer, lines) abort
  call setbufvar(a:buffer, '&modifiable', 1)
  call setbufvar(a:buffer, '&readonly', 0)
  silent call deletebufline(a:buffer, 1, '$')
  call setbufline(a:buffer, 1, a:lines)
  call setbufvar(a:buffer, '&modifiable', 0)
  call setbufvar(a:buffer, '&readonly', 1)
  call setbufvar(a:buffer, '&modified', 0)
endfunction

" never written, no swap file, LF and a final newline (the view's own ending)
function! s:ViewBuffer(buffer, filetype) abort
  for [l:option, l:value] in [['buftype', 'nofile'], ['swapfile', 0], ['fileformat', 'unix'],
  \                           ['eol', 1], ['fixeol', 1], ['undolevels', -1], ['filetype', a:filetype]]
    call setbufvar(a:buffer, '&' . l:option, l:value)
  endfor
endfunction

function! s:OnView(buffer, path, response) abort
  if !bufexists(a:buffer)
    return
  endif
  if has_key(a:response, 'error') || type(get(a:response, 'result', v:null)) != v:t_dict
    let l:message = has_key(a:response, 'error') ? get(a:response.error, 'message', string(a:response.error))
    \                                            : 'no view in the answer'
    call s:SetText(a:buffer, ['# tokenizer-lsp: ' . fnamemodify(a:path, ':t') . ': ' . l:message])
    echohl ErrorMsg | echomsg 'tokenizer-lsp: ' . l:message | echohl None
    return
  endif
  let l:lines = split(a:response.result.text, "\n", 1)
  if !empty(l:lines) && l:lines[-1] is# ''
    call remove(l:lines, -1)
  endif
  call s:SetText(a:buffer, l:lines)
  if getbufvar(a:buffer, '&filetype') is# 'tokenizerview'
    " ALE sends the buffer's new text (didChange) when it lints it
    call ale#Queue(0, '', a:buffer)
  endif
endfunction

" ask the server for the view of `path`, from `buffer` (ALE starts the server for it)
function! s:Fill(buffer, path) abort
  call s:SetText(a:buffer, ['# tokenizer-lsp: decoding ' . fnamemodify(a:path, ':t') . '…'])
  try
    call ale#lsp_linter#SendRequest(a:buffer, 'tokenizer_lsp',
    \   ale#lsp#message#ExecuteCommand('tokenizer-lsp.decodedVocabulary', [ale#util#ToURI(a:path)]),
    \   function('s:OnView', [a:buffer, a:path]))
  catch
    call s:OnView(a:buffer, a:path, {'error': {'message': v:exception}})
  endtry
endfunction

function! s:IsBinary(path) abort
  return fnamemodify(a:path, ':t') =~? '\.\%(model\%(\.v\d\+\)\=\|gguf\)$'
endfunction

" BufReadCmd: the buffer named as the file (its URI the file's) holds the view
function! s:ReadBinary(buffer, path) abort
  call s:ViewBuffer(a:buffer, 'tokenizerview')
  call s:Fill(a:buffer, a:path)
endfunction

" :TokenizerDecoded [file]: a binary file opens (or refreshes) as its view; a text tokenizer
" file's listing goes to a scratch buffer (not a view: no server there)
function! s:Decoded(file) abort
  let l:path = fnamemodify(empty(a:file) ? bufname('%') : a:file, ':p')
  if empty(l:path)
    echohl ErrorMsg | echomsg 'tokenizer-lsp: this buffer has no file' | echohl None
    return
  endif
  if s:IsBinary(l:path)
    if fnamemodify(bufname('%'), ':p') is# l:path
      call s:Fill(bufnr('%'), l:path)
    else
      execute 'edit ' . fnameescape(l:path)
    endif
    return
  endif
  let l:from = bufnr('%')
  let l:name = 'tokenizer-lsp decoded ' . fnamemodify(l:path, ':t')
  execute 'silent edit ' . fnameescape(l:name)
  call s:ViewBuffer(bufnr('%'), '')
  call s:SetText(bufnr('%'), ['# tokenizer-lsp: decoding ' . fnamemodify(l:path, ':t') . '…'])
  try
    call ale#lsp_linter#SendRequest(l:from, 'tokenizer_lsp',
    \   ale#lsp#message#ExecuteCommand('tokenizer-lsp.decodedVocabulary', [ale#util#ToURI(l:path)]),
    \   function('s:OnView', [bufnr('%'), l:path]))
  catch
    call s:OnView(bufnr('%'), l:path, {'error': {'message': v:exception}})
  endtry
endfunction

if get(g:, 'tokenizer_lsp_decoded_views', 1)
  augroup tokenizer_lsp_decoded
    autocmd!
    autocmd BufReadCmd *.model,*.model.v[0-9]*,*.gguf
    \   call s:ReadBinary(str2nr(expand('<abuf>')), expand('<amatch>:p'))
  augroup END
endif
command! -nargs=? -complete=file TokenizerDecoded call s:Decoded(<q-args>)
