-- A comparison point for docs/benchmarks.md, not used by the library: the least a one-call token
-- bucket script can do (TIME, GET, arithmetic, SET PX) for one policy, without composite limits,
-- the other algorithms or the exact integer division of the real script (lua/ in rate-limit-core).
-- ARGV as the real script's: "time", cost, slack, then type 1, capacity, unitsPerToken, refillUnitsPerMicro.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local cost = tonumber(ARGV[2])
local capacity, unit, rate = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local full = capacity * unit
local v = redis.call('GET', KEYS[1])
local d, at = 0, 0
if v then
  local a, b = string.match(v, '^(%-?%d+):?(%-?%d*)$')
  d, at = tonumber(a) or 0, tonumber(b) or 0
end
if d > 0 then
  local elapsed = now - at
  if elapsed > 0 then
    local back = elapsed * rate
    if back >= d then d = 0 else d = d - back end
  end
end
local missing = d + cost * unit - full
if missing > 0 then
  return { 1, 0, math.floor((full - d) / unit), math.ceil(d / rate), math.ceil(missing / rate) }
end
d = d + cost * unit
local ttl = math.ceil(d / rate / 1000)
redis.call('SET', KEYS[1], string.format('%d:%d', d, now), 'PX', string.format('%d', ttl))
return { 0, 0, math.floor((full - d) / unit), math.ceil(d / rate), 0 }
