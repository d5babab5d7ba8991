local M = {}

--- Adds two numbers.
function M.add(a, b)
  return a + b
end

function M:show()
  print(self.x)
end

local function helper(x)
  return M.add(x, 1)
end

local cb = function(x) return x end
M.handlers = {
  on_exit = function(code) return code end,
  ["on-error"] = function(e) error(e) end,
}
M.reset = function() M.x = nil end
return M
