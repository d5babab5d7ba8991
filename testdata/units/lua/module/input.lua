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
return M
