-- Drives tk-agent lsp from headless Neovim (0.7+): open a document, collect diagnostics, edit
-- the buffer without saving, apply the "Accept" code action of an LLM suggestion through
-- Neovim's own code-action path, write the file. Writes what it saw as JSON to $TK_NVIM_OUT.
local out_path = os.getenv("TK_NVIM_OUT")
local doc = os.getenv("TK_NVIM_DOC")
local bin = os.getenv("TK_AGENT_BIN_PATH")
local result = { steps = {} }

local function save()
  local f = io.open(out_path, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
end

local function diags(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(out, { lnum = d.lnum, col = d.col, end_col = d.end_col, code = code, message = d.message })
  end
  return out
end

local function has(bufnr, pred)
  for _, d in ipairs(diags(bufnr)) do
    if pred(d) then return true end
  end
  return false
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(doc))
  local bufnr = vim.api.nvim_get_current_buf()
  local start = vim.lsp.start or nil
  local client_id
  if start then
    client_id = vim.lsp.start({ name = "tk-agent", cmd = { bin, "lsp" }, root_dir = vim.fn.fnamemodify(doc, ":h") })
  else
    client_id = vim.lsp.start_client({ name = "tk-agent", cmd = { bin, "lsp" }, root_dir = vim.fn.fnamemodify(doc, ":h") })
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  result.client = client_id ~= nil

  -- 1. Quick findings and the sidecar's suggestion arrive.
  local got = vim.wait(10000, function()
    return has(bufnr, function(d) return d.code == "passive" end) and has(bufnr, function(d) return d.code == "suggestion" end)
  end, 20)
  result.first = diags(bufnr)
  if not got then error("no passive finding and suggestion within 10 s") end

  -- 2. An unsaved edit gets new findings.
  vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { "", "Ça va 😀 — the ball was thrown by Zoë." })
  local last = vim.api.nvim_buf_line_count(bufnr) - 1
  got = vim.wait(10000, function()
    return has(bufnr, function(d) return d.code == "passive" and d.lnum == last end)
  end, 20)
  result.after_edit = diags(bufnr)
  result.edited_line = last
  if not got then error("no finding on the edited line") end

  -- 3. Accept the suggestion through Neovim's code-action menu (the choice made for the user).
  local target
  for _, d in ipairs(diags(bufnr)) do
    if d.code == "suggestion" then target = d end
  end
  vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
  result.titles = {}
  vim.ui.select = function(items, _, on_choice)
    for _, item in ipairs(items) do
      table.insert(result.titles, item[2].title)
    end
    for _, item in ipairs(items) do
      if item[2].title:find("^Accept") then return on_choice(item) end
    end
    on_choice(nil)
  end
  vim.lsp.buf.code_action()
  got = vim.wait(10000, function()
    return not has(bufnr, function(d) return d.code == "suggestion" end)
  end, 20)
  result.after_accept = diags(bufnr)
  if not got then error("the suggestion did not go away after Accept") end

  -- 4. Write the file.
  vim.cmd("write")
  result.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  vim.lsp.stop_client(client_id)
  vim.wait(3000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end)
result.ok = ok
result.error = ok and nil or tostring(err)
save()
vim.cmd(ok and "qall!" or "cquit!")
