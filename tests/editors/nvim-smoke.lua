-- Headless Neovim smoke test of editors/nvim/tokenizer-lsp.lua (any Neovim from 0.7).
--
--   E2E_REPO=$PWD TOKENIZER_LSP_PYTHON=$PWD/.venv/bin/python E2E_FILE=... E2E_LITERAL='"\u0120the"' \
--   E2E_TEXT='␣the' E2E_HEX='20 74 68 65' nvim --headless --clean -c 'luafile tests/editors/nvim-smoke.lua'
--
-- Loads the shipped config, opens the file (FileType json starts and attaches the client the
-- way the config does on this Neovim version), then checks diagnostics, a hover and the raw
-- inlay hint answer; with E2E_CHAT_FACTS (tests/editors/chat_facts.py), the chat templates of a
-- model folder built from qwen3: filetype jinja starts the client, the diagnostic sits on the
-- misspelt literal (or jinja2's line), a hover names the id; a web page's .jinja starts none.
-- Prints one line per check and "N passed, N failed"; exits 1 on failure.
local env = function(k, d) local v = os.getenv(k); if v == nil or v == '' then return d end; return v end
local repo = env('E2E_REPO', vim.fn.getcwd())
local file = env('E2E_FILE')
local literal = env('E2E_LITERAL')
local text = env('E2E_TEXT')
local hex = env('E2E_HEX')
local timeout = tonumber(env('E2E_TIMEOUT', '60')) * 1000

package.path = repo .. '/editors/nvim/?.lua;' .. package.path
local passed, failed = 0, 0
local function report(name, ok, detail)
  if ok then passed = passed + 1 else failed = failed + 1 end
  io.stdout:write(string.format('%s %s%s\n', ok and 'PASS' or 'FAIL', name,
    detail and detail ~= '' and (': ' .. detail) or ''))
end
local function short(s, n)
  s = tostring(s):gsub('\n', '\\n')
  n = n or 200
  return #s > n and (s:sub(1, n) .. '…') or s
end
local function buf_clients(bufnr)
  if vim.lsp.get_clients then return vim.lsp.get_clients(bufnr and { bufnr = bufnr } or nil) end
  return bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
end
local function finish()
  io.stdout:write(string.format('%d passed, %d failed\n', passed, failed))
  for _, c in pairs(buf_clients(nil)) do c.stop() end
  vim.wait(500)
  vim.cmd((failed == 0 and passed > 0) and 'qa!' or 'cquit 1')
end

local ok, err = pcall(function()
  local v = vim.version()
  io.stdout:write(string.format('nvim %d.%d.%d (%s), file %s\n', v.major, v.minor, v.patch,
    env('E2E_NVIM_API', 'default API'), file))
  if env('E2E_NVIM_API') == 'rtp' then
    -- 0.11+: editors/nvim/lsp/tokenizer_lsp.lua found on 'runtimepath', as the README says
    vim.opt.runtimepath:prepend(repo .. '/editors/nvim')
    vim.filetype.add({ extension = { tiktoken = 'tiktoken' },
      filename = { ['merges.txt'] = 'bpemerges', ['vocab.bpe'] = 'bpemerges' } })
    vim.lsp.config('tokenizer_lsp', {
      cmd = { env('TOKENIZER_LSP_PYTHON', 'python3'), '-m', 'tokenizer_lsp' },
      init_options = { inlayHints = { mode = 'all' }, diagnostics = { severity = { ['utf8-fragment'] = 'warning' } } },
    })
    vim.lsp.enable('tokenizer_lsp')
    vim.api.nvim_create_autocmd('LspAttach', { callback = function(ev)
      local c = vim.lsp.get_client_by_id(ev.data.client_id)
      if c and c.name == 'tokenizer_lsp' then vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf }) end
    end })
  else
  require('tokenizer-lsp').setup({
    cmd = { env('TOKENIZER_LSP_PYTHON', 'python3'), '-m', 'tokenizer_lsp' },
    init_options = { inlayHints = { mode = 'all' }, diagnostics = { severity = { ['utf8-fragment'] = 'warning' } } },
    api = env('E2E_NVIM_API'),  -- unset: what this Neovim has
  })
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()

  -- 1. attached
  local client
  vim.wait(timeout, function()
    for _, c in pairs(buf_clients(buf)) do
      if c.name == 'tokenizer_lsp' and c.initialized then client = c end
    end
    return client ~= nil
  end, 100)
  report('attach: filetype ' .. vim.bo.filetype .. ' starts tokenizer_lsp', client ~= nil,
    client and ('client ' .. client.id .. ', hoverProvider ' .. tostring(client.server_capabilities
      and client.server_capabilities.hoverProvider or client.resolved_capabilities and client.resolved_capabilities.hover)) or 'no client')
  if not client then return end

  -- 2. diagnostics
  local diags = {}
  vim.wait(timeout, function()
    diags = vim.diagnostic.get(buf)
    return #diags > 0
  end, 100)
  local frag, warn = 0, 0
  for _, d in ipairs(diags) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if code == 'utf8-fragment' then
      frag = frag + 1
      if d.severity == vim.diagnostic.severity.WARN then warn = warn + 1 end
    end
  end
  local want = tonumber(env('E2E_FRAGMENTS', ''))
  report('diagnostics: utf8-fragment as warning', frag > 0 and warn == frag and (not want or frag == want),
    string.format('%d diagnostics, %d utf8-fragment (%d warning)%s; first: %s', #diags, frag, warn,
      want and (' want ' .. want) or '', diags[1] and short(diags[1].message, 100) or '-'))

  -- position of the literal (the file is ASCII at that point: columns are bytes = UTF-16 units)
  local lnum, col
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = line:find(literal .. ':', 1, true)
    if s then lnum, col = i - 1, s - 1 break end
  end
  if not lnum then report('find ' .. literal, false, 'not in the file') return end

  -- 3. hover
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = lnum, character = col + 2 } }
  local value, tries, t0 = nil, 0, vim.loop.now()
  local first_answer
  -- a null answer right after the diagnostics is retried (and reported): the server answers
  -- hovers only once its lookup tables are built
  vim.wait(timeout, function()
    tries = tries + 1
    local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, timeout)
    for _, r in pairs(res or {}) do
      if first_answer == nil then first_answer = vim.inspect(r.result or r.err):sub(1, 60) end
      if r.result and r.result.contents then value = r.result.contents.value or r.result.contents end
    end
    return value ~= nil
  end, 200)
  if tries > 1 then
    io.stdout:write(string.format('note: hover needed %d requests (%d ms after the diagnostics); first answer: %s\n',
      tries, vim.loop.now() - t0, first_answer))
  end
  report('hover: ' .. literal .. ' shows ' .. text .. ' and ' .. hex,
    type(value) == 'string' and value:find(text, 1, true) ~= nil and value:find(hex, 1, true) ~= nil, short(value))

  -- 4. inlay hints: the raw request (0.7-0.9 have no inlay hint display)
  local hp = { textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = lnum, character = math.max(0, col - 200) }, ['end'] = { line = lnum, character = col + #literal + 200 } } }
  local hres = vim.lsp.buf_request_sync(buf, 'textDocument/inlayHint', hp, timeout)
  local label
  for _, r in pairs(hres or {}) do
    for _, h in ipairs(r.result or {}) do
      if h.position.line == lnum and h.position.character == col + #literal then label = h.label end
    end
  end
  report('inlay hint request: ' .. text .. ' after ' .. literal, label == text, tostring(label))

  -- 5. Neovim 0.10+: the hints Neovim itself asked for and keeps
  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.get then
    local got
    vim.wait(timeout, function()
      for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf }) or {}) do
        if h.inlay_hint.position.line == lnum and h.inlay_hint.position.character == col + #literal then
          got = h.inlay_hint.label
        end
      end
      return got ~= nil
    end, 100)
    report('inlay hints enabled by the config (vim.lsp.inlay_hint.get)', got == text, tostring(got))
  end

  -- 6. merges files (vocab.bpe; merges.txt, which Neovim's own rules take for text): the
  -- config's filetype, the same client, a merge hover
  local merges_files = { env('E2E_MERGES') }
  if env('E2E_MERGES_TXT') and env('E2E_MERGES_TXT') ~= env('E2E_MERGES') then
    table.insert(merges_files, env('E2E_MERGES_TXT'))
  end
  for _, merges in ipairs(merges_files) do
    if merges and vim.fn.filereadable(merges) == 1 then
      vim.cmd('edit ' .. vim.fn.fnameescape(merges))
      local mbuf = vim.api.nvim_get_current_buf()
      local attached
      vim.wait(timeout, function()
        for _, c in pairs(buf_clients(mbuf)) do
          if c.name == 'tokenizer_lsp' then attached = c end
        end
        return attached ~= nil
      end, 100)
      local first = vim.api.nvim_buf_get_lines(mbuf, 0, 1, false)[1] or ''
      local line = first:sub(1, 1) == '#' and 1 or 0
      local mvalue
      if attached then
        vim.wait(timeout, function()
          local r = vim.lsp.buf_request_sync(mbuf, 'textDocument/hover',
            { textDocument = { uri = vim.uri_from_bufnr(mbuf) }, position = { line = line, character = 0 } }, timeout)
          for _, x in pairs(r or {}) do
            if x.result and x.result.contents then mvalue = x.result.contents.value end
          end
          return mvalue ~= nil
        end, 200)
      end
      report(vim.fn.fnamemodify(merges, ':t') .. ': filetype ' .. vim.bo[mbuf].filetype .. ', hover shows the merge',
        attached ~= nil and vim.bo[mbuf].filetype == 'bpemerges' and type(mvalue) == 'string'
          and mvalue:find('merge rank', 1, true) ~= nil,
        (attached and ('client ' .. attached.id) or 'not attached') .. ': ' .. short(mvalue, 120))
    end
  end

  -- 7. chat templates (the facts: tokenizers, transformers' jinja2, the files' text; the lines
  -- at stake are ASCII: their UTF-16 columns are byte columns)
  local facts_file = env('E2E_CHAT_FACTS')
  if facts_file and vim.fn.filereadable(facts_file) == 1 then
    local facts = vim.fn.json_decode(table.concat(vim.fn.readfile(facts_file), '\n'))
    for _, spec in ipairs(facts.files) do
      vim.cmd('edit ' .. vim.fn.fnameescape(spec.path))
      local cbuf = vim.api.nvim_get_current_buf()
      local name = vim.fn.fnamemodify(spec.path, ':h:t') .. '/' .. vim.fn.fnamemodify(spec.path, ':t')
      local attached
      vim.wait(spec.kind == 'chat' and timeout or 1000, function()
        for _, c in pairs(buf_clients(cbuf)) do
          if c.name == 'tokenizer_lsp' then attached = c end
        end
        return attached ~= nil
      end, 100)
      if spec.kind ~= 'chat' then
        report(name .. ': a .jinja that is no chat template starts no server (filetype ' .. vim.bo[cbuf].filetype .. ')',
          attached == nil, attached and 'attached' or nil)
      else
        report(name .. ': filetype ' .. vim.bo[cbuf].filetype .. ' starts tokenizer_lsp',
          attached ~= nil and vim.bo[cbuf].filetype == spec.filetype, attached and ('client ' .. attached.id) or 'not attached')
        for _, want in ipairs(attached and spec.diagnostics or {}) do
          local found, of_code
          vim.wait(timeout, function()
            found, of_code = nil, 0
            for _, d in ipairs(vim.diagnostic.get(cbuf)) do
              local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
              if code == want.code then
                of_code = of_code + 1
                if d.lnum == want.line and (want.exact and d.col == want.character and d.end_col == want.end_character
                    or not want.exact and d.col >= want.character and d.end_col <= want.end_character) then
                  found = d
                end
              end
            end
            return found ~= nil
          end, 100)
          report(string.format('%s: %s on line %d, column %d', name, want.code, want.line + 1, want.character),
            found ~= nil and of_code == 1, string.format('%d with that code', of_code))
        end
        for _, h in ipairs(attached and spec.hovers or {}) do
          local hv
          vim.wait(timeout, function()
            local r = vim.lsp.buf_request_sync(cbuf, 'textDocument/hover',
              { textDocument = { uri = vim.uri_from_bufnr(cbuf) }, position = { line = h.line, character = h.character + 1 } },
              timeout)
            for _, x in pairs(r or {}) do
              if x.result and x.result.contents then hv = x.result.contents.value end
            end
            return hv ~= nil
          end, 200)
          local all = type(hv) == 'string'
          for _, w in ipairs(h.contains) do all = all and hv:find(w, 1, true) ~= nil end
          report(string.format('%s: hover on %s shows %s', name, h.literal, table.concat(h.contains, ', ')), all, short(hv, 120))
        end
      end
    end
  end
end)
if not ok then report('smoke test', false, 'error: ' .. tostring(err)) end
finish()
