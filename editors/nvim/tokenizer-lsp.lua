-- tokenizer-lsp for Neovim 0.7 and newer, without plugins.
--
-- Copy to ~/.config/nvim/lua/tokenizer-lsp.lua, then in init.lua:
--
--   require('tokenizer-lsp').setup()
--   -- or with options (all optional):
--   require('tokenizer-lsp').setup({
--     cmd = { 'tokenizer-lsp' },                 -- or { 'python3', '-m', 'tokenizer_lsp' }
--     filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges' },
--     init_options = { inlayHints = { mode = 'all' } },  -- the tokenizerLsp settings
--     inlay_hints = true,                        -- Neovim 0.10+: turn hints on when it attaches
--     api = nil,        -- force 'config' (0.11+), 'start' (0.10+) or 'start_client' (0.7+)
--   })
--
-- It picks the API your Neovim has: vim.lsp.config/vim.lsp.enable (0.11+), vim.lsp.start
-- (0.10), vim.lsp.start_client + vim.lsp.buf_attach_client (0.7-0.9).  The server only
-- claims tokenizer files (it reads the content), so attaching it to every JSON buffer is safe.
-- Hover with K (0.10+) or :lua vim.lsp.buf.hover(); diagnostics show as usual.
local M = {}

local defaults = {
  cmd = { 'tokenizer-lsp' },
  filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges' },
  init_options = { inlayHints = { mode = 'all' } },
  inlay_hints = true,
}

-- LSP language ids the server knows, by filetype (anything else: the filetype)
local language_ids = { bpemerges = 'bpe-merges', tiktoken = 'tiktoken', jsonc = 'jsonc', json = 'json' }
local function get_language_id(_, filetype)
  return language_ids[filetype] or filetype
end

local function add_filetypes()
  if vim.filetype and vim.filetype.add and vim.fn.has('nvim-0.8') == 1 then
    vim.filetype.add({
      extension = { tiktoken = 'tiktoken' },
      filename = { ['merges.txt'] = 'bpemerges', ['vocab.bpe'] = 'bpemerges' },
    })
  else -- 0.7: filetype.vim does the detection, and its *.txt rule has already made
    -- merges.txt 'text' when these run: set the filetype outright (setfiletype would keep 'text')
    vim.cmd([[
      augroup tokenizer_lsp_filetypes
        autocmd!
        autocmd BufNewFile,BufRead *.tiktoken lua vim.bo.filetype = 'tiktoken'
        autocmd BufNewFile,BufRead merges.txt,vocab.bpe lua vim.bo.filetype = 'bpemerges'
      augroup END
    ]])
  end
end

local function root_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.fn.getcwd()
  local git = vim.fn.finddir('.git', dir .. ';')
  return git ~= '' and vim.fn.fnamemodify(git, ':p:h:h') or dir
end

local function enable_hints(bufnr)
  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
end

function M.setup(opts)
  local o = vim.tbl_deep_extend('force', defaults, opts or {})
  add_filetypes()
  local config = {
    name = 'tokenizer_lsp',
    cmd = o.cmd,
    filetypes = o.filetypes,
    init_options = o.init_options,
    settings = { tokenizerLsp = o.init_options },
    get_language_id = get_language_id,
  }
  local group = vim.api.nvim_create_augroup('tokenizer_lsp', { clear = true })

  if o.inlay_hints and vim.lsp.inlay_hint then
    vim.api.nvim_create_autocmd('LspAttach', {
      group = group,
      callback = function(ev)
        local client = vim.lsp.get_client_by_id(ev.data.client_id)
        if client and client.name == 'tokenizer_lsp' then
          enable_hints(ev.buf)
        end
      end,
    })
  end

  local api = o.api or (vim.lsp.config and vim.lsp.enable and 'config') or (vim.lsp.start and 'start')
    or 'start_client'

  if api == 'config' then -- 0.11+
    config.root_markers = { '.git' }
    vim.lsp.config('tokenizer_lsp', config)
    vim.lsp.enable('tokenizer_lsp')
    return
  end

  if api == 'start' then -- 0.10
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = o.filetypes,
      callback = function(ev)
        vim.lsp.start(vim.tbl_extend('force', config, { root_dir = root_of(ev.buf) }), { bufnr = ev.buf })
      end,
    })
    return
  end

  -- 0.7-0.9: one client per root directory, attached to each matching buffer
  local clients = {}
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = o.filetypes,
    callback = function(ev)
      local root = root_of(ev.buf)
      local id = clients[root]
      if not id or not vim.lsp.get_client_by_id(id) then
        id = vim.lsp.start_client(vim.tbl_extend('force', config, {
          root_dir = root,
          workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
        }))
        clients[root] = id
      end
      if id then
        vim.lsp.buf_attach_client(ev.buf, id)
      end
    end,
  })
end

return M
