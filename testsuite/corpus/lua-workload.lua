-- Deterministic workload for the lua5.4 corpus entry (the Debian package
-- carries no test suite).  Each check prints "PASS name" or "FAIL name"
-- followed by a line of results, so plain and instrumented output can be
-- compared byte for byte.  It exercises what makes Lua hard for cce:
-- setjmp/longjmp errors, coroutines, parser recursion, C->Lua->C callbacks.

local npass, nfail = 0, 0
local function check(name, f)
  local ok, res = pcall(f)
  if ok and res ~= nil and res ~= false then
    npass = npass + 1
    print("PASS " .. name, tostring(res))
  else
    nfail = nfail + 1
    print("FAIL " .. name, tostring(res))
  end
end

check("recursion", function()
  local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
  local function ack(m, n)
    if m == 0 then return n + 1 end
    if n == 0 then return ack(m - 1, 1) end
    return ack(m - 1, ack(m, n - 1))
  end
  return fib(25) == 75025 and ack(2, 300) == 603 and fib(25) .. "," .. ack(2, 300)
end)

check("deep-recursion", function()
  local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
  return depth(150000) == 150000 and 150000
end)

check("stack-overflow-error", function()
  local function inf(n) return 1 + inf(n + 1) end
  local ok, err = pcall(inf, 1)
  return not ok and tostring(err):find("stack overflow") ~= nil and "caught"
end)

check("pcall-error-longjmp", function()
  local s = 0
  for i = 1, 20000 do
    local ok, e = pcall(function(x)
      if x % 3 == 0 then error({code = x}) end
      if x % 5 == 0 then error("five " .. x, 2) end
      return x
    end, i)
    if ok then s = s + e elseif type(e) == "table" then s = s - e.code else s = s + #e end
  end
  return s
end)

check("xpcall-traceback", function()
  local ok, tb = xpcall(function() local t = nil; return t.x end, debug.traceback)
  return not ok and tb:find("stack traceback") ~= nil and "ok"
end)

check("error-in-metamethod", function()
  local mt = {__add = function(a, b) error("bad add") end,
              __index = function(t, k) return k * 2 end}
  local t = setmetatable({}, mt)
  local ok, e = pcall(function() return t + 1 end)
  return not ok and t[21] == 42 and e:match("bad add") and t[21]
end)

check("coroutines", function()
  local function gen(n)
    return coroutine.wrap(function()
      for i = 1, n do coroutine.yield(i) end
    end)
  end
  local s = 0
  for v in gen(10000) do s = s + v end
  -- nested coroutines and errors crossing resume
  local co = coroutine.create(function(a)
    local inner = coroutine.create(function(b)
      local c = coroutine.yield(b + 1)
      error("inner " .. c)
    end)
    local _, x = coroutine.resume(inner, a)
    local ok, e = coroutine.resume(inner, x * 2)
    coroutine.yield(e)
    return "done"
  end)
  local _, e1 = coroutine.resume(co, 5)
  local _, e2 = coroutine.resume(co)
  return s .. "," .. tostring(e1) .. "," .. tostring(e2)
end)

check("coroutine-close", function()
  local closed = 0
  local co = coroutine.create(function()
    local x <close> = setmetatable({}, {__close = function() closed = closed + 1 end})
    coroutine.yield(1)
  end)
  coroutine.resume(co)
  coroutine.close(co)
  return closed == 1 and closed
end)

check("sort-callback", function()
  local t = {}
  local seed = 12345
  for i = 1, 20000 do seed = (seed * 1103515245 + 12345) % 2147483648; t[i] = seed end
  table.sort(t, function(a, b) return a % 1000 < b % 1000 or (a % 1000 == b % 1000 and a < b) end)
  for i = 2, #t do
    local a, b = t[i-1], t[i]
    if a % 1000 > b % 1000 then return false end
  end
  -- error thrown from inside the comparator (longjmp through qsort-like C code)
  local ok = pcall(table.sort, {3, 2, 1, 5, 4}, function(a, b) error("cmp") end)
  return not ok and t[1] .. "," .. t[#t]
end)

check("gsub-callback", function()
  local s = string.rep("hello world lua ", 2000)
  local n = 0
  local r = s:gsub("(%w+)", function(w) n = n + 1; return w:upper():reverse() end)
  local r2 = r:gsub("%u+", {OLLEH = "x"})
  return n .. "," .. #r .. "," .. #r2
end)

check("patterns", function()
  local out = {}
  for k, v in string.gmatch("a=1, b=22, ccc=333", "(%w+)=(%w+)") do out[#out+1] = k .. v end
  local f = string.format("%5.2f|%-5d|%q|%x", 3.14159, 42, "a\nb", 255)
  return table.concat(out, ";") .. "|" .. f
end)

check("load-parser", function()
  -- deeply nested expression: parser recursion
  local src = "return " .. string.rep("(", 150) .. "1" .. string.rep(")", 150)
  local f = assert(load(src))
  local code = {}
  for i = 1, 150 do code[#code+1] = ("local function f%d(x) return x + %d end"):format(i, i) end
  code[#code+1] = "local s = 0"
  for i = 1, 150 do code[#code+1] = ("s = f%d(s)"):format(i) end
  code[#code+1] = "return s"
  local g = assert(load(table.concat(code, "\n")))
  local ok, err = load("return (((")
  return f() .. "," .. g() .. "," .. tostring(ok) .. "," .. (err and "syntaxerr" or "")
end)

check("string-dump-load", function()
  local function add(a, b) return a + b end
  local f = load(string.dump(add))
  return f(2, 3)
end)

check("closures-gc", function()
  local fs = {}
  for i = 1, 5000 do fs[i] = function() return i * i end end
  local s = 0
  for i = 1, #fs do s = s + fs[i]() end
  collectgarbage("collect")
  local weak = setmetatable({}, {__mode = "k"})
  for i = 1, 100 do weak[{}] = i end
  collectgarbage("collect")
  local cnt = 0; for _ in pairs(weak) do cnt = cnt + 1 end
  return s .. "," .. cnt
end)

check("gc-finalizers", function()
  local n = 0
  for i = 1, 1000 do setmetatable({}, {__gc = function() n = n + 1 end}) end
  collectgarbage("collect"); collectgarbage("collect")
  return n == 1000 and n
end)

check("math-int-float", function()
  local a = math.maxinteger // 3
  local b = 7.5 // 2
  local c = 2^53 + 1
  local d = math.fmod(-7, 3)
  local e = 0
  for i = 1, 100000 do e = e ~ (i * 2654435761) & 0xffffffff end
  return ("%d|%g|%.0f|%g|%d|%s"):format(a, b, c, d, e, math.type(1 // 1))
end)

check("utf8-strings", function()
  local s = "héllo wörld ✓"
  local cps = {}
  for _, c in utf8.codes(s) do cps[#cps+1] = c end
  return utf8.len(s) .. "," .. #cps .. "," .. utf8.char(0x2713) .. "," .. s:upper()
end)

check("table-ops", function()
  local t = {}
  for i = 1, 10000 do table.insert(t, i) end
  for i = 1, 5000 do table.remove(t, 1 + (i % #t)) end
  local m = table.move(t, 1, 10, 1, {})
  return #t .. "," .. table.concat(m, ":") .. "," .. select("#", table.unpack(t, 1, 200))
end)

check("goto-varargs", function()
  local function va(...) return select("#", ...), ... end
  local i, acc = 1, 0
  ::top::
  acc = acc + i
  i = i + 1
  if i <= 100 then goto top end
  return acc .. "," .. (va(1, nil, 3))
end)

check("require-modules", function()
  return type(string) .. type(table) .. type(io) .. type(os) .. type(debug) .. type(utf8)
end)

check("io-tmpfile", function()
  local f = assert(io.tmpfile())
  for i = 1, 1000 do f:write(i, "\n") end
  f:seek("set")
  local s = 0
  for l in f:lines("n") do s = s + l end
  f:close()
  return s
end)

print(("%d passed, %d failed"):format(npass, nfail))
os.exit(nfail == 0 and 0 or 1)
