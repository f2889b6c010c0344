-- Neovim 0.11+: copy to ~/.config/nvim/lsp/tokenizer_lsp.lua and add to init.lua:
--
--   vim.lsp.enable('tokenizer_lsp')
--   vim.filetype.add({
--     extension = { tiktoken = 'tiktoken' },
--     filename = { ['merges.txt'] = 'bpemerges', ['vocab.bpe'] = 'bpemerges', ['vocab.txt'] = 'wordpiece' },
--   })
--   vim.api.nvim_create_autocmd('LspAttach', { callback = function(ev)
--     local c = vim.lsp.get_client_by_id(ev.data.client_id)
--     if c and c.name == 'tokenizer_lsp' then vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf }) end
--   end })
--
-- Binary files (.model, .model.vN, .gguf) open as their decoded view with the module
-- editors/nvim/tokenizer-lsp.lua in ~/.config/nvim/lua/ and, in init.lua:
--
--   require('tokenizer-lsp').decoded_views()   -- uses this config; adds :TokenizerDecoded
--
-- The server only claims tokenizer files (it reads the content): attaching it to all JSON is safe.
-- vocab.txt (filetype wordpiece) and the decoded views are plain text to the server: it knows
-- vocab.txt by its name and a view by its first line.
local ids = { bpemerges = 'bpe-merges', wordpiece = 'plaintext', tokenizerview = 'plaintext' }
return {
  cmd = { 'tokenizer-lsp' },
  filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges', 'wordpiece', 'tokenizerview' },
  root_markers = { '.git' },
  get_language_id = function(_, filetype)
    return ids[filetype] or filetype
  end,
  -- The tokenizerLsp settings, sent once with `initialize`.  The server also asks Neovim for
  -- the `tokenizerLsp` section of `settings` (workspace/configuration, after it starts and on
  -- each workspace/didChangeConfiguration): with `settings = { tokenizerLsp = {...} }` set,
  -- that section replaces these init_options as a whole, not key by key, so set one or the
  -- other.  Without `settings` these stay in force.
  init_options = { inlayHints = { mode = 'all' } },
}
