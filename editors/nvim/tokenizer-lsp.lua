-- tokenizer-lsp for Neovim 0.7 and newer, without plugins.
--
-- Copy to ~/.config/nvim/lua/tokenizer-lsp.lua, then in init.lua:
--
--   require('tokenizer-lsp').setup()
--   -- or with options (all optional):
--   require('tokenizer-lsp').setup({
--     cmd = { 'tokenizer-lsp' },                 -- or { 'python3', '-m', 'tokenizer_lsp' }
--     filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges', 'wordpiece', 'tokenizerview', 'jinja' },
--     init_options = { inlayHints = { mode = 'all' } },  -- the tokenizerLsp settings
--     inlay_hints = true,                        -- Neovim 0.10+: turn hints on when it attaches
--     api = nil,        -- force 'config' (0.11+), 'start' (0.10+) or 'start_client' (0.7+)
--     decoded_views = true,   -- .model / .model.vN / .gguf open as their decoded view (below)
--   })
--
-- It picks the API your Neovim has: vim.lsp.config/vim.lsp.enable (0.11+), vim.lsp.start
-- (0.10), vim.lsp.start_client + vim.lsp.buf_attach_client (0.7-0.9).  The server only
-- claims tokenizer files (it reads the content), so attaching it to every JSON buffer is safe.
-- Hover with K (0.10+) or :lua vim.lsp.buf.hover(); diagnostics show as usual.
--
-- Chat templates: a model folder's chat_template.jinja and additional_chat_templates/*.jinja
-- (filetype jinja) start the server too; other Jinja files (web templates) do not.  Beside a
-- tokenizer, the template's findings (chat-template-syntax, chat-template-token, ...) show as
-- diagnostics, K on `<|im_start|>` or `eos_token` shows its id, code actions (move the template
-- into tokenizer_config.json and back) come with vim.lsp.buf.code_action(), and the code lens
-- (renders or not, tokens of the sample chat) with vim.lsp.codelens.refresh().
--
-- Binary tokenizer files (SentencePiece `.model`, `*.model.vN`, GGUF `.gguf`): `:edit` one and
-- the buffer shows its decoded view (one row per token) instead of the bytes; Neovim never reads
-- the file (a BufReadCmd takes over the read): the server reads it (a GGUF by its metadata alone)
-- and answers the command tokenizer-lsp.decodedVocabulary.  The buffer is read-only and never
-- written (buftype=nofile); the client is attached to it, so K on a row hovers and the file's
-- findings sit on its rows.  `:TokenizerDecoded [file]` shows the same for any tokenizer file
-- (for a text one, its `decode` listing in a scratch buffer).  To see the bytes after all:
-- `:noautocmd edit FILE`.  With the lsp/ route (vim.lsp.enable), call
-- `require('tokenizer-lsp').decoded_views()` to get these.
local M = {}

local defaults = {
  cmd = { 'tokenizer-lsp' },
  filetypes = { 'json', 'jsonc', 'tiktoken', 'bpemerges', 'wordpiece', 'tokenizerview', 'jinja' },
  init_options = { inlayHints = { mode = 'all' } },
  inlay_hints = true,
  decoded_views = true,
}

-- LSP language ids the server knows, by filetype (anything else: the filetype).  vocab.txt
-- and the decoded views are plain text to the server: it knows vocab.txt by its name and a
-- view by its first line.
local language_ids = { bpemerges = 'bpe-merges', tiktoken = 'tiktoken', jsonc = 'jsonc', json = 'json',
  wordpiece = 'plaintext', tokenizerview = 'plaintext' }
local function get_language_id(_, filetype)
  return language_ids[filetype] or filetype
end

local function add_filetypes()
  if vim.filetype and vim.filetype.add and vim.fn.has('nvim-0.8') == 1 then
    vim.filetype.add({
      extension = { tiktoken = 'tiktoken' },
      filename = { ['merges.txt'] = 'bpemerges', ['vocab.bpe'] = 'bpemerges', ['vocab.txt'] = 'wordpiece',
        ['chat_template.jinja'] = 'jinja' },  -- 0.11 knows *.jinja by itself; older ones not
      pattern = { ['.*/additional_chat_templates/[^/]*%.jinja'] = 'jinja' },
    })
  else -- 0.7: filetype.vim does the detection, and its *.txt rule has already made
    -- merges.txt 'text' when these run: set the filetype outright (setfiletype would keep 'text')
    vim.cmd([[
      augroup tokenizer_lsp_filetypes
        autocmd!
        autocmd BufNewFile,BufRead *.tiktoken lua vim.bo.filetype = 'tiktoken'
        autocmd BufNewFile,BufRead merges.txt,vocab.bpe lua vim.bo.filetype = 'bpemerges'
        autocmd BufNewFile,BufRead vocab.txt lua vim.bo.filetype = 'wordpiece'
        autocmd BufNewFile,BufRead chat_template.jinja,*/additional_chat_templates/*.jinja setfiletype jinja
      augroup END
    ]])
  end
end

-- A model folder's chat template file (the server's core/detect.py is_chat_template_name):
-- chat_template.jinja, or a .jinja inside additional_chat_templates/.
function M.is_chat_template(path)
  local base = vim.fn.fnamemodify(path, ':t'):lower()
  return base == 'chat_template.jinja'
    or (base:match('%.jinja$') ~= nil and vim.fn.fnamemodify(path, ':p:h:t') == 'additional_chat_templates')
end

-- Whether the server is for this buffer: any buffer of its filetypes, but of the Jinja files
-- only the chat templates (a web project's templates start no server)
function M.wanted(bufnr)
  return vim.bo[bufnr].filetype ~= 'jinja' or M.is_chat_template(vim.api.nvim_buf_get_name(bufnr))
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
  local api = o.api or (vim.lsp.config and vim.lsp.enable and 'config') or (vim.lsp.start and 'start')
    or 'start_client'
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

  if o.decoded_views then
    M.decoded_views({ config = config, api = api })
  end

  if api == 'config' then -- 0.11+
    config.root_dir = function(bufnr, on_dir)  -- called only when the server is wanted
      if M.wanted(bufnr) then on_dir(vim.fs.root(bufnr, '.git')) end
    end
    vim.lsp.config('tokenizer_lsp', config)
    vim.lsp.enable('tokenizer_lsp')
    return
  end

  if api == 'start' then -- 0.10
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = o.filetypes,
      callback = function(ev)
        if not M.wanted(ev.buf) then return end
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
      if not M.wanted(ev.buf) then return end
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

-- ---- binary tokenizer files: the decoded view ----------------------------------------------
-- The server renders the view (command tokenizer-lsp.decodedVocabulary, the file's URI as its
-- argument) from the file on disk; the buffer shows exactly that text, since the server knows
-- a view by its first line and serves hovers on its rows only while the text is the view of
-- the file as it is.
local COMMAND = 'tokenizer-lsp.decodedVocabulary'
local BINARY = { '*.model', '*.model.v[0-9]*', '*.gguf' }
local view = { config = nil, api = nil, name = 'tokenizer_lsp' }

function M.is_binary(path)
  local name = vim.fn.fnamemodify(path, ':t'):lower()
  return name:match('%.model$') ~= nil or name:match('%.model%.v%d+$') ~= nil or name:match('%.gguf$') ~= nil
end

-- our clients (attached to `bufnr` when given); filtered here: 0.7's get_active_clients has no filter
local function get_clients(bufnr)
  local out = {}
  for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.name == view.name and (bufnr == nil or vim.lsp.buf_is_attached(bufnr, c.id)) then out[#out + 1] = c end
  end
  return out
end

-- the client attached to this buffer, else the running one for its folder (any of ours when
-- none has it as its root), else a new one; not attached to the buffer
local function client_for(bufnr)
  local attached = get_clients(bufnr)[1]
  if attached then return attached end
  local root = root_of(bufnr)
  local any
  for _, c in ipairs(get_clients()) do
    if not (c.is_stopped and c:is_stopped()) then
      if c.config.root_dir == root then return c end
      any = any or c
    end
  end
  if any then return any end
  local config = view.config
  if not config and vim.lsp.config then config = vim.lsp.config[view.name] end
  if not config then
    return nil, 'no configuration named ' .. view.name .. ' (call setup() or vim.lsp.config first)'
  end
  config = vim.tbl_extend('force', config, { name = view.name, root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } } })
  local id
  if vim.lsp.start and vim.fn.has('nvim-0.11') == 1 then
    id = vim.lsp.start(config, { bufnr = bufnr, attach = false })
  else
    id = vim.lsp.start_client(config)
  end
  local c = id and vim.lsp.get_client_by_id(id)
  if not c then return nil, 'the server did not start (see :LspLog)' end
  return c
end

-- ask the server for the view of `path` once the client is initialized; cb(err, result)
local function request_view(client, bufnr, path, cb)
  local deadline = (vim.uv or vim.loop).now() + 60000
  local function go()
    if client.is_stopped and client:is_stopped() then return cb('the server stopped (see :LspLog)') end
    if not client.initialized then
      if (vim.uv or vim.loop).now() > deadline then return cb('the server did not answer initialize in 60 s') end
      return vim.defer_fn(go, 50)
    end
    local params = { command = COMMAND, arguments = { vim.uri_from_fname(path) } }
    local function handler(err, result)
      if err then return cb(err.message or vim.inspect(err)) end
      if type(result) ~= 'table' or type(result.text) ~= 'string' then return cb('no view in the answer') end
      cb(nil, result)
    end
    if vim.fn.has('nvim-0.11') == 1 then
      client:request('workspace/executeCommand', params, handler, bufnr)
    else
      client.request('workspace/executeCommand', params, handler, bufnr)
    end
  end
  go()
end

local function set_text(bufnr, lines)
  vim.bo[bufnr].modifiable = true
  vim.bo[bufnr].readonly = false
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].readonly = true
  vim.bo[bufnr].modified = false
end

-- a buffer that holds a view: never written, no swap file, the text sent to the server as
-- shown (LF, a final newline: the view's own ending)
local function view_buffer(bufnr)
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].fileformat = 'unix'
  vim.bo[bufnr].eol = true
  vim.bo[bufnr].fixeol = true
  vim.bo[bufnr].undolevels = -1
  vim.bo[bufnr].filetype = 'tokenizerview'  -- after buftype: vim.lsp.enable leaves it alone
end

-- fill `bufnr` with the view of `path` (the file on disk), then attach the client to it
-- (didOpen carries the whole view) when `attach`; the server is the one of buffer `from`
-- (default `bufnr`): a text file's listing comes from the server that has it open
local function fill(bufnr, path, attach, from)
  local function fail(msg)
    if vim.api.nvim_buf_is_valid(bufnr) then
      set_text(bufnr, { '# tokenizer-lsp: ' .. vim.fn.fnamemodify(path, ':t') .. ': ' .. msg:gsub('\n', ' ') })
    end
    vim.notify('tokenizer-lsp: ' .. msg, vim.log.levels.ERROR)
  end
  local client, err = client_for(from or bufnr)
  if not client then return fail(err) end
  set_text(bufnr, { '# tokenizer-lsp: decoding ' .. vim.fn.fnamemodify(path, ':t') .. '…' })
  request_view(client, bufnr, path, function(e, result)
    if e then return fail(e) end
    if not vim.api.nvim_buf_is_valid(bufnr) then return end
    local lines = vim.split(result.text, '\n', { plain = true })
    if lines[#lines] == '' then table.remove(lines) end
    if attach and vim.lsp.buf_is_attached(bufnr, client.id) then
      vim.lsp.buf_detach_client(bufnr, client.id)  -- refreshed: open it again with the new text
    end
    set_text(bufnr, lines)
    if attach then vim.lsp.buf_attach_client(bufnr, client.id) end
  end)
end

-- BufReadCmd of a binary file: the buffer (named as the file, URI file://...) holds the view
local function read_binary(bufnr, path)
  view_buffer(bufnr)
  fill(bufnr, path, true)
end

-- `:TokenizerDecoded [file]`: a binary file opens (or refreshes) as its view; a text tokenizer
-- file's listing goes to a scratch buffer tokenizer-lsp-decoded://<path>
function M.show_decoded(file)
  local path = vim.fn.fnamemodify(file ~= nil and file ~= '' and file or vim.api.nvim_buf_get_name(0), ':p')
  if path == '' then return vim.notify('tokenizer-lsp: this buffer has no file', vim.log.levels.ERROR) end
  if M.is_binary(path) then
    local cur = vim.api.nvim_get_current_buf()
    if vim.fn.fnamemodify(vim.api.nvim_buf_get_name(cur), ':p') == path then
      return fill(cur, path, true)
    end
    return vim.cmd('edit ' .. vim.fn.fnameescape(path))
  end
  local from = vim.fn.bufnr(path)
  if from == -1 then from = vim.api.nvim_get_current_buf() end
  local name = 'tokenizer-lsp-decoded://' .. path
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  view_buffer(buf)
  vim.api.nvim_win_set_buf(0, buf)
  -- the listing of a text file is not a view the server serves: not attached
  fill(buf, path, false, from)
end

--- Binary files open as their decoded view; :TokenizerDecoded.  opts.config: the client
--- config (default: vim.lsp.config.tokenizer_lsp, Neovim 0.11+).
function M.decoded_views(opts)
  opts = opts or {}
  view.config, view.api = opts.config, opts.api
  view.name = (opts.config and opts.config.name) or opts.name or view.name
  local group = vim.api.nvim_create_augroup('tokenizer_lsp_decoded', { clear = true })
  vim.api.nvim_create_autocmd('BufReadCmd', {
    group = group,
    pattern = BINARY,
    callback = function(ev) read_binary(ev.buf, vim.fn.fnamemodify(ev.match, ':p')) end,
  })
  vim.api.nvim_create_user_command('TokenizerDecoded', function(a) M.show_decoded(a.args) end,
    { nargs = '?', complete = 'file', desc = 'tokenizer-lsp: the decoded view of a tokenizer file' })
end

return M
