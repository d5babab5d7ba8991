-- nvim.lua - Neovim (0.7 or later, headless) as the client of `mcpidx lsp`.
-- Opens FILE, starts the server on ROOT, asks it for document symbols, folding
-- ranges and one definition, folds every function body with the ranges (what
-- :McpidxBrief does in docs/editors.md, with manual folds so that it also
-- works before Neovim 0.11's vim.lsp.foldexpr), then writes to OUT:
--   symbols NAME:LINE ...        (documentSymbol, 1-based)
--   definition PATH:LINE         (of the name under LINE:COL, see below)
--   visible N N N ...            (1-based lines not hidden by a closed fold)
--   error MESSAGE                (instead, when something failed)
-- Environment: MCPIDX, ROOT, FILE (relative to ROOT), OUT, DEF_LINE, DEF_COL
-- (1-based position of a call whose definition is asked for).
local env = function(k) return os.getenv(k) or '' end
local out = io.open(env('OUT'), 'w')
local function finish(msg)
  if msg then out:write('error ', msg, '\n') end
  out:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  local root = env('ROOT')
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. env('FILE')))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'mcpidx', cmd = { env('MCPIDX'), 'lsp' }, root_dir = root,
  })
  if not id then return finish('vim.lsp.start_client failed') end
  vim.lsp.buf_attach_client(buf, id)
  local client
  vim.wait(10000, function()
    client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized
  end, 20)
  if not (client and client.initialized) then return finish('no initialize answer in 10 s') end

  local function ask(method, params)
    local r, e = client.request_sync(method, params, 10000, buf)
    if not r then error(method .. ': ' .. tostring(e)) end
    if r.err then error(method .. ': ' .. vim.inspect(r.err)) end
    return r.result
  end
  local doc = { textDocument = vim.lsp.util.make_text_document_params(buf) }

  local names = {}
  local function walk(list)
    for _, s in ipairs(list or {}) do
      local line = s.range and s.range.start.line or s.location.range.start.line
      table.insert(names, s.name .. ':' .. (line + 1))
      walk(s.children)
    end
  end
  walk(ask('textDocument/documentSymbol', doc))
  out:write('symbols ', table.concat(names, ' '), '\n')

  local def = ask('textDocument/definition', {
    textDocument = doc.textDocument,
    position = { line = tonumber(env('DEF_LINE')) - 1, character = tonumber(env('DEF_COL')) - 1 },
  })
  if def and def.uri then def = { def } end
  local d = def and def[1]
  if d then
    local uri = d.uri or d.targetUri
    local range = d.range or d.targetSelectionRange
    out:write('definition ', vim.uri_to_fname(uri):sub(#root + 2), ':', range.start.line + 1, '\n')
  else
    out:write('definition none\n')
  end

  -- Fold to the outline: close the folds the server gives, innermost first
  -- is not needed for C (no nesting); a fold hides startLine+1..endLine.
  vim.wo.foldmethod = 'manual'
  vim.wo.foldminlines = 0
  vim.cmd('normal! zE')
  for _, f in ipairs(ask('textDocument/foldingRange', doc)) do
    if f.kind ~= 'comment' and f.kind ~= 'imports' and f.endLine > f.startLine then
      vim.cmd(string.format('%d,%dfold', f.startLine + 2, f.endLine + 1))
    end
  end
  vim.cmd('normal! zM')
  local vis = {}
  local n = vim.api.nvim_buf_line_count(buf)
  for l = 1, n do
    local c = vim.fn.foldclosed(l)
    if c == -1 then table.insert(vis, l) end
  end
  out:write('visible ', table.concat(vis, ' '), '\n')
  vim.lsp.stop_client(id)
  vim.wait(2000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
end)
finish(not ok and tostring(err) or nil)
