-- wrk script: GET /api/scan with one of 10,000 pro API keys per request, in turn, so the filter
-- tracks many clients (each wrk thread has its own counter; keys repeat across threads).
local n = 0
local keys = 10000

request = function()
  n = n + 1
  local key = string.format("sk-pro-%08x", (n * 7919) % keys)
  return wrk.format("GET", "/api/scan", { ["X-API-Key"] = key })
end
