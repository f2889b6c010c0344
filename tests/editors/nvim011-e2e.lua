-- Neovim 0.11 end-to-end test of tokenizer-lsp, run by scripts/nvim-e2e.sh (see there).
--
--   HOME=<a home set up as the README says> E2E_MANIFEST=manifest.json E2E_ROUTE=module \
--   E2E_ARTIFACTS=artifacts/nvim nvim --headless -i NONE -c 'luafile tests/editors/nvim011-e2e.lua'
--
-- Neovim has already read the user's init.lua (the README's configuration: nothing about the
-- server is set up here).  The manifest (written by the script) lists the files to open and,
-- for each, the findings of `tokenizer-lsp check --format json` and how many diagnostics the
-- server publishes for them (its maxPerFile cap and its summary line accounted for).  For each
-- file this checks, with facts worked out here, not taken from the server:
--   attach      the filetype starts the client `tokenizer_lsp`
--   diagnostics vim.diagnostic.get(bufnr) (all namespaces) holds each finding ONCE: no two
--               with the same range, message and code, as many as the file has, each one a
--               finding of the CLI (same range and message), the summary once; counted once
--               Neovim's own pull has its answer and nothing changed for 1.5 s (what was
--               pushed and pulled is written to artifacts/nvim/*.events.txt)
--   hover       on a vocabulary literal: its decoded text (spaces as ␣), its bytes (the GPT-2
--               byte map, below) and its id (read from the file); on a merges line: its rank
--               (its place in the file) and the decoded merge result
--   inlay hints for the lines on screen around the literal: the textDocument/inlayHint answer,
--               and what Neovim keeps (vim.lsp.inlay_hint.get), have the decoded text right
--               after the literal
--   .model      `:edit` shows the server's decoded view (BufReadCmd: never the bytes),
--               read-only; its rows equal sentencepiece's id_to_piece, a hover on a row names
--               its id and bytes, utf8-fragment sits on the rows of the byte pieces 0x80-0xFF
--   .gguf       `:edit` never reads the file: the buffer holds the server's answer (its view,
--               rows equal to the gguf package's tokens, or why not)
--   vocab.txt   filetype wordpiece starts the client; a hover names the id = the line
--   chat        a model folder built from qwen3 (tests/editors/chat_facts.py): its
--               chat_template.jinja (filetype jinja) with `<|im_strat|>` has chat-template-token
--               exactly on that literal, once; additional_chat_templates/tool_use.jinja with an
--               unclosed `{%- endfor` has chat-template-syntax on the line jinja2 (set up as
--               transformers does) names; tokenizer_config.json with the typo inside its
--               chat_template string has chat-template-token on the literal's characters in
--               the JSON text; a hover on `<|im_start|>` names its id (tokenizers'
--               token_to_id); a .jinja that is no chat template (web/page.jinja) starts no server
-- Prints one line per check and "N passed, N failed"; exits non-zero when one fails.
local function env(k, d)
  local v = os.getenv(k)
  if v == nil or v == '' then return d end
  return v
end
local route = env('E2E_ROUTE', 'default')
local art = env('E2E_ARTIFACTS', vim.fn.getcwd())
-- Upper bounds, not what it takes: how long to wait for the first diagnostics of a file, then
-- for a hover or inlay hints.  Neovim 0.11 asks for the inlay hints of the WHOLE document on
-- didOpen (262k hints for qwen3's tokenizer.json, 10-40 s), and a pull or a hover sent after
-- that request waits for its answer.
local timeout = tonumber(env('E2E_TIMEOUT', '90')) * 1000
local retry = tonumber(env('E2E_RETRY', '60')) * 1000
local big = env('E2E_BIG', '1') == '1'  -- also the files marked big (qwen3)
local settle = tonumber(env('E2E_SETTLE_MS', '1500'))

local passed, failed = 0, 0
local function report(name, ok, detail)
  if ok then passed = passed + 1 else failed = failed + 1 end
  io.stdout:write(string.format('%s [%s] %s%s\n', ok and 'PASS' or 'FAIL', route, name,
    detail and detail ~= '' and (': ' .. detail) or ''))
  io.stdout:flush()
end
local function note(s)
  io.stdout:write(string.format('note [%s] %s\n', route, s))
  io.stdout:flush()
end
local function short(s, n)
  s = tostring(s):gsub('\n', '\\n')
  n = n or 200
  return #s > n and (s:sub(1, n) .. '…') or s
end
local function save(name, text)
  local f = io.open(art .. '/' .. route .. '-' .. name:gsub('/', '_'), 'w')
  if f then f:write(text) f:close() end
end
local function now() return vim.uv.now() end

-- what reaches Neovim, per document: pushed (publishDiagnostics) and pulled
-- (textDocument/diagnostic answers) diagnostics; the handlers are only wrapped, not changed
local events = {}
local T0 = vim.uv.now()
local function wrap(method, what, uri_of, items_of)
  local orig = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    local uri = uri_of(result, ctx)
    if uri then
      events[uri] = events[uri] or {}
      local items = items_of(result)
      table.insert(events[uri], string.format('%6d ms %s %s', vim.uv.now() - T0, what,
        err and ('error ' .. vim.inspect(err)) or items and (#items .. ' diagnostics') or vim.inspect(result):sub(1, 80)))
    end
    return orig(err, result, ctx, config)
  end
end
wrap('textDocument/publishDiagnostics', 'pushed', function(r) return r and r.uri end,
  function(r) return r and r.diagnostics end)
wrap('textDocument/diagnostic', 'pulled', function(_, ctx) return ctx.params and ctx.params.textDocument.uri end,
  function(r) return r and r.items end)

-- ---- GPT-2 byte-level alphabet (bytes_to_unicode of GPT-2's encoder.py), reversed ---------
local byte_of = {}
do
  local direct = {}
  for _, r in ipairs({ { 33, 126 }, { 161, 172 }, { 174, 255 } }) do
    for b = r[1], r[2] do direct[b] = true byte_of[b] = b end
  end
  local n = 0
  for b = 0, 255 do
    if not direct[b] then byte_of[256 + n] = b n = n + 1 end
  end
end
-- bytes of a byte-level token (its characters mapped back), nil when one is not in the alphabet
local function token_bytes(token)
  local out = {}
  for _, cp in ipairs(vim.fn.str2list(token)) do
    local b = byte_of[cp]
    if not b then return nil end
    out[#out + 1] = b
  end
  return out
end
local function hex(bytes)
  local t = {}
  for i, b in ipairs(bytes) do t[i] = string.format('%02X', b) end
  return table.concat(t, ' ')
end
-- how the server writes decoded text (README: spaces as ␣); only for printable ASCII here
local function visible(bytes)
  local t = {}
  for i, b in ipairs(bytes) do
    if b < 0x20 or b > 0x7e then return nil end
    t[i] = b == 0x20 and '␣' or string.char(b)
  end
  return table.concat(t)
end

-- ---- helpers ----------------------------------------------------------------------------
local function our_client(buf)
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = buf })) do
    if c.name == 'tokenizer_lsp' then return c end
  end
end
-- one request, answered or not; never a busy loop (a vim.wait condition that sends requests
-- is run on every event and floods the server)
local function request(buf, method, params)
  local res, err = vim.lsp.buf_request_sync(buf, method, params, retry)
  if not res then return nil, err end
  for _, r in pairs(res) do
    if r.err then return nil, vim.inspect(r.err) end
    return r.result
  end
end
-- ask again (a few times, 0.3 s apart) while the answer is empty
local function request_until(buf, method, params, good)
  local deadline, tries, result, err = now() + retry, 0, nil, nil
  repeat
    tries = tries + 1
    result, err = request(buf, method, params)
    if good(result) then return result, tries end
    vim.wait(300)
  until now() > deadline
  return result, tries, err
end

local function check_diagnostics(buf, spec, name, changed)
  local want = spec.expected
  -- wait for the expected number, then until nothing changed for `settle` ms: a second copy
  -- (pulled after pushed, or the reverse) may come later than the first
  vim.wait(timeout, function() return #vim.diagnostic.get(buf) >= want end, 50)
  -- and until Neovim's own pull (sent on didOpen) has its answer
  local function pulling()
    for _, c in ipairs(vim.lsp.get_clients({ bufnr = buf })) do
      for _, r in pairs(c.requests or {}) do
        if r.bufnr == buf and r.method == 'textDocument/diagnostic' and r.type == 'pending' then return true end
      end
    end
    return false
  end
  vim.wait(timeout, function() return not pulling() and now() - changed[buf] >= settle end, 50)
  local diags = vim.diagnostic.get(buf)

  -- duplicates: same range, message and code
  local seen, dups, by_ns, keys = {}, 0, {}, {}
  for _, d in ipairs(diags) do
    local key = table.concat({ d.lnum, d.col, d.end_lnum or d.lnum, d.end_col or d.col, tostring(d.code), d.message }, '\31')
    keys[#keys + 1] = key
    if seen[key] then dups = dups + 1 end
    seen[key] = (seen[key] or 0) + 1
    local ns = vim.diagnostic.get_namespace(d.namespace)
    local nsname = ns and ns.name or tostring(d.namespace)
    by_ns[nsname] = (by_ns[nsname] or 0) + 1
  end
  local ns_text = {}
  for k, v in pairs(by_ns) do ns_text[#ns_text + 1] = string.format('%s: %d', k, v) end
  table.sort(ns_text)

  -- the CLI's findings, positions turned from UTF-16 into Neovim's byte columns
  local lines = {}
  local function bytecol(l, c)
    lines[l] = lines[l] or (vim.api.nvim_buf_get_lines(buf, l, l + 1, false)[1] or '')
    return vim.str_byteindex(lines[l], 'utf-16', c, false)
  end
  local cli = {}
  for _, f in ipairs(spec.findings) do
    local s, e = f.range.start, f.range['end']
    cli[table.concat({ s.line, bytecol(s.line, s.character), e.line, bytecol(e.line, e.character), f.code, f.message }, '\31')] = true
  end
  local summaries, strangers, example = 0, 0, nil
  for i, d in ipairs(diags) do
    if d.code == 'summary' then
      summaries = summaries + 1
    elseif not cli[keys[i]] then
      strangers = strangers + 1
      example = example or string.format('%d:%d %s %s', d.lnum, d.col, tostring(d.code), short(d.message, 80))
    end
  end
  local want_summaries = spec.summary and 1 or 0

  local dump = {}
  for _, d in ipairs(diags) do
    local ns = vim.diagnostic.get_namespace(d.namespace)
    dump[#dump + 1] = string.format('%d:%d-%d:%d\t%s\t%s\t%s', d.lnum, d.col, d.end_lnum or -1, d.end_col or -1,
      ns and ns.name or d.namespace, tostring(d.code), d.message)
  end
  save(name .. '.diagnostics.txt', table.concat(dump, '\n') .. '\n')
  local ev = events[vim.uri_from_bufnr(buf)] or {}
  save(name .. '.events.txt', table.concat(ev, '\n') .. '\n')
  local evs = {}
  for _, e in ipairs(ev) do evs[#evs + 1] = vim.trim(e:gsub('^%s*%d+ ms ', '')) end

  local ok = #diags == want and dups == 0 and strangers == 0 and summaries == want_summaries
  local detail
  if ok then
    detail = string.format('%d held = %d%s%s', #diags, spec.shown, spec.summary and ' + 1 summary' or '',
      spec.shown < #spec.findings and string.format(' (first %d of %d findings: maxPerFile %d)', spec.shown,
        #spec.findings, spec.cap) or ' findings')
  else
    detail = string.format('%d held, want %d (%d of %d CLI findings%s); %d duplicated (same range+message+code);'
        .. ' %d summaries (want %d); %d not among the CLI findings%s; by namespace: %s; received: %s',
      #diags, want, spec.shown, #spec.findings, spec.summary and ' + 1 summary' or '', dups, summaries,
      want_summaries, strangers, example and (' e.g. ' .. example) or '', table.concat(ns_text, ', '),
      #evs > 0 and table.concat(evs, ', ') or 'nothing')
  end
  report(name .. ': each finding shown once (vim.diagnostic.get, all namespaces)', ok, detail)
  return #diags > 0 or want == 0
end

-- position of a literal (first line holding `literal:`), in bytes and in the client's encoding
local function find_literal(buf, literal, client)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = line:find(literal .. ':', 1, true)
    if s then
      local enc = client.offset_encoding or 'utf-16'
      return {
        lnum = i - 1, col = s - 1, line = line, enc = enc,
        char = vim.str_utfindex(line, enc, s - 1, false),
        char_end = vim.str_utfindex(line, enc, s - 1 + #literal, false),
        id = tonumber(line:sub(s + #literal + 1):match('^%s*(%d+)')),
      }
    end
  end
end

local function check_vocab(buf, spec, name, client)
  local literal = spec.literal
  local token = vim.json.decode(literal)
  local bytes = token_bytes(token)
  local text, hexs = bytes and visible(bytes), bytes and hex(bytes)
  if not (text and hexs) then
    report(name .. ': hover ' .. literal, false, 'the test needs a byte-level token of printable ASCII')
    return
  end
  local at = find_literal(buf, literal, client)
  if not at then
    report(name .. ': find ' .. literal, false, 'not in the file')
    return
  end
  local uri = vim.uri_from_bufnr(buf)

  -- hover, just inside the literal
  local result, tries = request_until(buf, 'textDocument/hover',
    { textDocument = { uri = uri }, position = { line = at.lnum, character = at.char + 1 } },
    function(r) return r and r.contents end)
  local value = result and result.contents and (result.contents.value or result.contents) or nil
  if type(value) ~= 'string' then value = vim.inspect(value) end
  save(name .. '.hover.md', value)
  if tries > 1 then note(string.format('%s: hover answered at the %d. request', name, tries)) end
  local id_text = at.id and ('id ' .. at.id) or nil
  report(string.format('%s: hover on %s shows %s, bytes %s, %s', name, literal, text, hexs, tostring(id_text)),
    value:find(text, 1, true) ~= nil and value:upper():find(hexs, 1, true) ~= nil
      and (id_text == nil or value:find(id_text .. '%f[%D]') ~= nil),
    short(value, 160))

  -- inlay hints for what is on screen once the cursor is on the literal
  vim.api.nvim_win_set_cursor(0, { at.lnum + 1, at.col })
  vim.cmd('normal! zz')
  local top, bot = vim.fn.line('w0') - 1, vim.fn.line('w$') - 1
  local last = vim.api.nvim_buf_get_lines(buf, bot, bot + 1, false)[1] or ''
  local range = { start = { line = top, character = 0 },
    ['end'] = { line = bot, character = vim.str_utfindex(last, at.enc, #last, false) } }
  local hints = request_until(buf, 'textDocument/inlayHint', { textDocument = { uri = uri }, range = range },
    function(r) return type(r) == 'table' and #r > 0 end)
  local label, n = nil, type(hints) == 'table' and #hints or 0
  for _, h in ipairs(type(hints) == 'table' and hints or {}) do
    if h.position.line == at.lnum and h.position.character == at.char_end then
      label = type(h.label) == 'string' and h.label or vim.inspect(h.label)
    end
  end
  report(string.format('%s: inlayHint request for lines %d-%d (on screen): %s after %s', name, top + 1, bot + 1,
    text, literal), label == text, string.format('%d hints, at the literal: %s', n, tostring(label)))

  -- the hints Neovim asked for itself (the config turns them on) and keeps for those lines
  local got, held = nil, 0
  vim.wait(retry, function()
    local hs = vim.lsp.inlay_hint.get({ bufnr = buf, range = range }) or {}
    held = #hs
    for _, h in ipairs(hs) do
      local ih = h.inlay_hint
      if ih.position.line == at.lnum and ih.position.character == at.char_end then
        got = type(ih.label) == 'string' and ih.label or vim.inspect(ih.label)
      end
    end
    return got ~= nil
  end, 100)
  report(string.format('%s: inlay hints on (vim.lsp.inlay_hint.is_enabled) and kept by Neovim: %s', name, text),
    got == text and vim.lsp.inlay_hint.is_enabled({ bufnr = buf }),
    string.format('enabled %s, %d kept for those lines, at the literal: %s',
      tostring(vim.lsp.inlay_hint.is_enabled({ bufnr = buf })), held, tostring(got)))
end

local function check_merges(buf, name)
  -- the first merge whose result is printable ASCII; its rank is its place among the merges
  -- (the `#version` header line is not one)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, 5000, false)
  local header = (lines[1] or ''):sub(1, 1) == '#' and 1 or 0
  local lnum, a, b, result
  for i = header + 1, #lines do
    local x, y = lines[i]:match('^(%S+) (%S+)$')
    local bx, by = x and token_bytes(x), y and token_bytes(y)
    result = bx and by and visible(vim.list_extend(vim.list_extend({}, bx), by))
    if result then lnum, a, b = i - 1, x, y break end
  end
  if not result then
    report(name .. ': hover on a merge', false, 'no byte-level merge of printable ASCII in the first 5000 lines')
    return
  end
  local rank = lnum - header
  local r, tries = request_until(buf, 'textDocument/hover',
    { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = lnum, character = 0 } },
    function(x) return x and x.contents end)
  local value = r and r.contents and (r.contents.value or r.contents) or nil
  if type(value) ~= 'string' then value = vim.inspect(value) end
  save(name .. '.hover.md', value)
  if tries > 1 then note(string.format('%s: hover answered at the %d. request', name, tries)) end
  report(string.format('%s: hover on "%s %s" (line %d) shows merge rank %d and %s', name, a, b, lnum + 1, rank, result),
    value:find('merge rank ' .. rank .. '%f[%D]') ~= nil and value:find(result, 1, true) ~= nil, short(value, 160))
end

-- ---- binary files and vocab.txt (the formats of issues 25 and 27) ---------------------------
-- A row of the decoded view: `id  "stored form"  text  bytes  kind, type` (core/formats/decoded_view.py)
local function row_of(line)
  local id, rest = line:match('^%s*(%d+)%s+(".*)$')
  if not id then return nil end
  -- the stored form is a JSON string: the shortest prefix of `rest` that decodes as one
  for e = 2, #rest do
    if rest:sub(e, e) == '"' and rest:sub(e + 1, e + 1):match('^%s') then
      local ok, piece = pcall(vim.json.decode, rest:sub(1, e))
      if ok and type(piece) == 'string' then return tonumber(id), piece end
    end
  end
end

-- `:edit` of a .model: the buffer holds the server's view (never the file's bytes), read-only,
-- rows equal to sentencepiece's id_to_piece (computed by the script), a hover on the row of
-- ▁the names its id and bytes, utf8-fragment diagnostics on exactly the rows of the byte
-- pieces 0x80-0xFF (sentencepiece's is_byte)
local function check_model(buf, spec, name, client)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  -- the header names the file as given or by its resolved path (Neovim names a file behind a
  -- symlinked folder, such as ../shared linked beside a fresh clone, by where it resolves)
  local header = lines[1] or ''
  local function names(path) return header:find('# tokenizer-lsp decoded view of ' .. path, 1, true) == 1 end
  report(name .. ': the buffer is the decoded view, read-only and never written',
    (names(spec.path) or names(vim.uv.fs_realpath(spec.path) or spec.path))
      and vim.bo[buf].buftype == 'nofile' and not vim.bo[buf].modifiable and not vim.bo[buf].modified
      and #lines == spec.header_lines + spec.size,
    string.format('%d lines (want %d header + %d rows), buftype %s, modifiable %s; line 1: %s', #lines,
      spec.header_lines, spec.size, vim.bo[buf].buftype, tostring(vim.bo[buf].modifiable), short(lines[1] or '', 100)))
  local bad, checked = {}, 0
  for _, r in ipairs(spec.rows) do
    local id, piece = row_of(lines[spec.header_lines + r.id + 1] or '')
    checked = checked + 1
    if id ~= r.id or piece ~= r.piece then
      bad[#bad + 1] = string.format('row %d: %s %s (want %s)', r.id, tostring(id), vim.inspect(piece), vim.inspect(r.piece))
    end
  end
  report(string.format('%s: rows equal SentencePieceProcessor.id_to_piece (%d ids)', name, checked), #bad == 0,
    #bad > 0 and table.concat(bad, '; ') or nil)

  local line = spec.header_lines + spec.hover.id
  local text = lines[line + 1] or ''
  local col = text:find('"', 1, true)
  local r, tries = request_until(buf, 'textDocument/hover',
    { textDocument = { uri = vim.uri_from_bufnr(buf) },
      position = { line = line, character = vim.str_utfindex(text, client.offset_encoding, col, false) } },
    function(x) return x and x.contents end)
  local value = r and r.contents and (r.contents.value or r.contents) or nil
  if type(value) ~= 'string' then value = vim.inspect(value) end
  save(name .. '.hover.md', value)
  report(string.format('%s: hover on the row of %s shows id %d and bytes %s', name, spec.hover.piece, spec.hover.id,
    spec.hover.hex), value:find('id ' .. spec.hover.id .. '%f[%D]') ~= nil and value:upper():find(spec.hover.hex, 1, true) ~= nil,
    short(value, 160) .. (tries > 1 and string.format(' (%d requests)', tries) or ''))

  local want = table.concat(spec.fragments, ',')
  local got
  vim.wait(timeout, function()
    local ids = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == 'utf8-fragment' then
        ids[#ids + 1] = (row_of(lines[d.lnum + 1] or ''))
      end
    end
    table.sort(ids)
    got = table.concat(ids, ',')
    return got == want
  end, 100)
  report(string.format('%s: utf8-fragment on the rows of the %d byte pieces 0x80-0xFF', name, #spec.fragments),
    got == want, string.format('%d diagnostics; fragment rows %s', #vim.diagnostic.get(buf), short(got, 80)))
end

-- `:edit` of a .gguf: Neovim never reads it (BufReadCmd): the buffer holds the server's answer,
-- its view (rows = the gguf package's tokenizer.ggml.tokens) or one line saying why not
local function check_gguf(buf, spec, name)
  vim.wait(timeout, function()
    local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ''
    return not first:find('decoding', 1, true)
  end, 100)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local first = lines[1] or ''
  report(name .. ': not read by Neovim: the buffer holds the server\'s answer, no byte of the file',
    first:find('# tokenizer-lsp', 1, true) == 1 and not table.concat(lines, '\n'):find('GGUF\3\0\0\0', 1, true)  -- the file's magic and version, not the header's word
      and vim.bo[buf].buftype == 'nofile',
    string.format('%d lines, line 1: %s', #lines, short(first, 160)))
  if first:find('decoded view of', 1, true) then
    local bad = {}
    for _, r in ipairs(spec.rows) do
      local id, piece = row_of(lines[spec.header_lines + r.id + 1] or '')
      if id ~= r.id or piece ~= r.piece then bad[#bad + 1] = string.format('row %d: %s', r.id, vim.inspect(piece)) end
    end
    report(string.format('%s: %d rows, equal to the gguf package\'s tokens', name, spec.size),
      #bad == 0 and #lines == spec.header_lines + spec.size, #bad > 0 and table.concat(bad, '; ') or nil)
  else
    note(name .. ': the server gives no view of a GGUF on this branch (' .. short(first, 120) .. ')')
  end
end

-- vocab.txt: filetype wordpiece starts the client; a hover on a token names its id, which is
-- its 0-based line and the id tokenizers' WordPiece.read_file gives it
local function check_wordpiece(buf, spec, name)
  local lnum
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l == spec.literal then lnum = i - 1 break end
  end
  if not lnum then return report(name .. ': hover', false, spec.literal .. ' is no line of the file') end
  local r, tries = request_until(buf, 'textDocument/hover',
    { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = lnum, character = 0 } },
    function(x) return x and x.contents end)
  local value = r and r.contents and (r.contents.value or r.contents) or nil
  if type(value) ~= 'string' then value = vim.inspect(value) end
  save(name .. '.hover.md', value)
  report(string.format('%s: hover on line %d (%s) names id %d (WordPiece.read_file)', name, lnum + 1, spec.literal, spec.id),
    lnum == spec.id and value:find('id ' .. spec.id .. '%f[%D]') ~= nil,
    short(value, 160) .. (tries > 1 and string.format(' (%d requests)', tries) or ''))
end

-- ---- chat templates (issue 31) ----------------------------------------------------------------
local function check_chat(buf, spec, name, changed)
  local lines = {}
  local function bytecol(l, c)
    lines[l] = lines[l] or (vim.api.nvim_buf_get_lines(buf, l, l + 1, false)[1] or '')
    return vim.str_byteindex(lines[l], 'utf-16', c, false)
  end
  for _, want in ipairs(spec.diagnostics) do
    local s, e = bytecol(want.line, want.character), bytecol(want.line, want.end_character)
    local function matches(d)
      if d.code ~= want.code or d.lnum ~= want.line or (d.end_lnum or d.lnum) ~= want.line then return false end
      if want.exact then return d.col == s and d.end_col == e end
      return d.col >= s and d.end_col <= e and d.end_col > d.col  -- within the line's text
    end
    local function held()
      local n, of_code, example = 0, 0, nil
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        if d.code == want.code then
          of_code = of_code + 1
          example = example or string.format('%d:%d-%d:%d %s', d.lnum, d.col, d.end_lnum or d.lnum, d.end_col or d.col,
            short(d.message, 120))
        end
        if matches(d) then n = n + 1 end
      end
      return n, of_code, example
    end
    vim.wait(timeout, function() return held() > 0 end, 50)
    -- and until nothing changed for `settle` ms: a second copy (pushed and pulled) comes later
    vim.wait(timeout, function() return now() - (changed[buf] or 0) >= settle end, 50)
    local n, of_code, example = held()
    local dump = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      dump[#dump + 1] = string.format('%d:%d-%d:%d\t%s\t%s', d.lnum, d.col, d.end_lnum or -1, d.end_col or -1,
        tostring(d.code), d.message)
    end
    save(name .. '.diagnostics.txt', table.concat(dump, '\n') .. '\n')
    local where = want.exact and string.format('line %d, bytes %d-%d', want.line + 1, s, e)
      or string.format('line %d (jinja2: %s)', want.line + 1, want.jinja2 or '?')
    report(string.format('%s: %s once, on %s', name, want.code, where), n == 1 and of_code == 1,
      string.format('%d there, %d with that code (of %d diagnostics)%s', n, of_code, #vim.diagnostic.get(buf),
        example and (': ' .. example) or ''))
  end
  for _, h in ipairs(spec.hovers) do
    local r, tries = request_until(buf, 'textDocument/hover',
      { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = h.line, character = h.character + 1 } },
      function(x) return x and x.contents end)
    local value = r and r.contents and (r.contents.value or r.contents) or nil
    if type(value) ~= 'string' then value = vim.inspect(value) end
    save(name .. '.hover.md', value)
    local ok = true
    for _, want in ipairs(h.contains) do
      if not value:find(want .. '%f[%D]') then ok = false end
    end
    report(string.format('%s: hover on %s (line %d) shows %s', name, h.literal, h.line + 1, table.concat(h.contains, ', ')),
      ok, short(value, 160) .. (tries > 1 and string.format(' (%d requests)', tries) or ''))
  end
end

-- ---- main --------------------------------------------------------------------------------
local ok, err = pcall(function()
  local v = vim.version()
  local manifest = vim.json.decode(table.concat(vim.fn.readfile(env('E2E_MANIFEST')), '\n'))
  note(string.format('nvim %d.%d.%d, %s', v.major, v.minor, v.patch, manifest.note or ''))
  report('Neovim 0.11 or newer, configured by init.lua', vim.fn.has('nvim-0.11') == 1
    and vim.lsp.config ~= nil and vim.lsp.config.tokenizer_lsp ~= nil,
    'init: ' .. tostring(vim.env.MYVIMRC))

  local changed = {}
  vim.api.nvim_create_autocmd('DiagnosticChanged', { callback = function(ev) changed[ev.buf] = now() end })

  for _, spec in ipairs(manifest.files) do
    if spec.big and not big then
      note(spec.path .. ': left to the first route (E2E_BIG=0)')
      goto continue
    end
    local t0 = now()
    local name = vim.fn.fnamemodify(spec.path, ':h:t') .. '/' .. vim.fn.fnamemodify(spec.path, ':t')
    vim.cmd('edit ' .. vim.fn.fnameescape(spec.path))
    local buf = vim.api.nvim_get_current_buf()
    changed[buf] = changed[buf] or now()
    if spec.kind == 'gguf' then
      check_gguf(buf, spec, name)
      note(string.format('%s: %.1f s', name, (now() - t0) / 1000))
      goto continue
    end
    if spec.kind == 'chat-other' then  -- a Jinja file that is no chat template: no server
      vim.wait(1000, function() return our_client(buf) ~= nil end, 50)
      report(string.format('%s: filetype %s, no tokenizer_lsp (not a chat template)', name, vim.bo[buf].filetype),
        our_client(buf) == nil and vim.bo[buf].filetype == spec.filetype,
        our_client(buf) and 'the client attached' or nil)
      goto continue
    end
    -- until it is attached and initialized; not longer when no client is left (the server
    -- exited: its stderr is in lsp.log) or none was started within 10 s
    local client, started, gone = nil, false, false
    vim.wait(timeout, function()
      client = our_client(buf)
      local any = #vim.lsp.get_clients({ name = 'tokenizer_lsp' }) > 0
      started = started or any
      gone = (started and not any) or (not started and now() - t0 > 10000)
      return (client ~= nil and client.initialized) or gone
    end, 50)
    if gone then client = nil end
    report(string.format('%s: filetype %s starts tokenizer_lsp', name, vim.bo[buf].filetype),
      client ~= nil and vim.bo[buf].filetype == spec.filetype,
      string.format('want filetype %s; %s', spec.filetype, client and ('client ' .. client.id .. ', '
        .. client.offset_encoding .. ', pull diagnostics: ' .. tostring(client.server_capabilities.diagnosticProvider ~= nil))
        or (started and 'no client: the server exited' or 'no client running') .. ' (server stderr: lsp.log)'))
    local steps = { string.format('opened and attached %.1f s', (now() - t0) / 1000) }
    local function step(what, f, ...)
      local t = now()
      local r = f(...)
      steps[#steps + 1] = string.format('%s %.1f s', what, (now() - t) / 1000)
      return r
    end
    if client then
      if spec.kind == 'model' then
        step('view', check_model, buf, spec, name, client)
      elseif spec.kind == 'wordpiece' then
        step('hover', check_wordpiece, buf, spec, name)
      elseif spec.kind == 'chat' then
        step('diagnostics and hover', check_chat, buf, spec, name, changed)
      elseif spec.kind == 'merges' then
        step('hover', check_merges, buf, name)
        step('diagnostics', check_diagnostics, buf, spec, name, changed)
      elseif step('diagnostics', check_diagnostics, buf, spec, name, changed) then
        step('hover and hints', check_vocab, buf, spec, name, client)
      else
        report(name .. ': hover and inlay hints', false, string.format(
          'not tried: the server showed no diagnostics for this file in %d s (its stderr: lsp.log)', timeout / 1000))
      end
    end
    note(string.format('%s: %.1f s (%s)', name, (now() - t0) / 1000, table.concat(steps, ', ')))
    ::continue::
  end
end)
if not ok then report('test', false, 'error: ' .. tostring(err)) end
io.stdout:write(string.format('%d passed, %d failed\n', passed, failed))
io.stdout:flush()
for _, c in ipairs(vim.lsp.get_clients()) do c:stop() end
vim.wait(1000, function() return #vim.lsp.get_clients() == 0 end, 50)
vim.cmd((failed == 0 and passed > 0) and 'qa!' or 'cquit 1')
