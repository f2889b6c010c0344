-- Neovim 0.11+: copy to ~/.config/nvim/lsp/tokenizer_lsp.lua and add to init.lua:
--
--   vim.lsp.enable('tokenizer_lsp')
--   vim.filetype.add({
--     extension = { tiktoken = 'tiktoken' },
--     filename = { ['merges.txt'] = 'bpemerges', ['vocab.bpe'] = 'bpemerges' },
--   })
--   vim.api.nvim_create_autocmd('LspAttach', { callback = function(ev)
--     local c = vim.lsp.get_client_by_id(ev.data.client_id)
--     if c and c.name == 'tokenizer_lsp' then vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf }) end
--   end })
--
-- The server only claims tokenizer files (it reads the content): attaching it to all JSON is safe.
local ids = { bpemerges = 'bpe-merges' }
return {
  cmd = { 'tokenizer-lsp' },
  filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges' },
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
