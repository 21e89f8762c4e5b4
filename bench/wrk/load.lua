-- The request and the report of one wrk run of the benchmark (bench/wrk.ts).
-- Configured by environment variables, read when wrk loads this file, so a
-- run without a row sequence keeps wrk's static request (built once, not per
-- request):
--   WRK_METHOD     the method (GET when absent)
--   WRK_BODY_FILE  a file whose bytes are every request's JSON body
--   WRK_ROWS       "BEFORE NEXT LAST AFTER": each request's path is
--                  BEFORE .. id .. AFTER for id = NEXT, NEXT + 1, …; past LAST
--                  the path names no row, so the answer is a failure wrk counts
-- done() prints one line, `WRK_RESULT {…}`, that bench/wrk.ts parses.

local method = os.getenv("WRK_METHOD")
local body_file = os.getenv("WRK_BODY_FILE")
local rows = os.getenv("WRK_ROWS")

if method ~= nil and method ~= "" then
  wrk.method = method
end
if body_file ~= nil and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.headers["Content-Type"] = "application/json"
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

if rows ~= nil and rows ~= "" then
  local before, first, last, after = rows:match("^(%S+) (%d+) (%d+) (%S*)$")
  assert(before ~= nil, "WRK_ROWS is not 'BEFORE NEXT LAST AFTER'")
  -- A global, so done() can read it from the thread's own Lua state.
  next_id = tonumber(first)
  local last_id = tonumber(last)

  function request()
    local id = next_id
    next_id = next_id + 1
    if id > last_id then
      return wrk.format(nil, before .. "used-up" .. after)
    end
    return wrk.format(nil, before .. id .. after)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local next_unused = "null"
  if rows ~= nil and rows ~= "" then
    next_unused = tostring(threads[1]:get("next_id"))
  end
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"failures":%d,"next":%s}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout, next_unused))
end
