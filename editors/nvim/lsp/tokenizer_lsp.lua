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
--
-- Chat templates: Neovim 0.11 calls *.jinja `jinja`; of those, only a model folder's
-- chat_template.jinja and additional_chat_templates/*.jinja start the server (root_dir below),
-- which checks them against the tokenizer beside them: diagnostics (chat-template-syntax,
-- chat-template-token, ...), K on `<|im_start|>` or `eos_token`, code actions, code lens.
local ids = { bpemerges = 'bpe-merges', wordpiece = 'plaintext', tokenizerview = 'plaintext' }

-- a model folder's chat template file (the server's core/detect.py is_chat_template_name)
local function is_chat_template(path)
  local base = vim.fn.fnamemodify(path, ':t'):lower()
  return base == 'chat_template.jinja'
    or (base:match('%.jinja$') ~= nil and vim.fn.fnamemodify(path, ':p:h:t') == 'additional_chat_templates')
end

return {
  cmd = { 'tokenizer-lsp' },
  filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges', 'wordpiece', 'tokenizerview', 'jinja' },
  -- the folder holding .git (else none); a Jinja file that is no chat template (a web
  -- project's) starts no server
  root_dir = function(bufnr, on_dir)
    if vim.bo[bufnr].filetype ~= 'jinja' or is_chat_template(vim.api.nvim_buf_get_name(bufnr)) then
      on_dir(vim.fs.root(bufnr, '.git'))
    end
  end,
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
