#!lua name=batched_token_bucket
-- A comparison point for docs/benchmarks.md ("Where the Redis time goes"), not used by the library:
-- minimal_token_bucket.lua as a Functions library, called one decision per FCALL (`one`) or several
-- decisions in one FCALL that reads TIME once (`many`, one key per decision). ARGV as the real
-- script's: "time", cost, slack, then type 1, capacity, unitsPerToken, refillUnitsPerMicro.
local function tb(key, now, cost, capacity, unit, rate)
  local full = capacity * unit
  local v = redis.call('GET', key)
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
  redis.call('SET', key, string.format('%d:%d', d, now), 'PX', string.format('%d', ttl))
  return { 0, 0, math.floor((full - d) / unit), math.ceil(d / rate), 0 }
end
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
redis.register_function('one', function(keys, args)
  return tb(keys[1], now(), tonumber(args[2]), tonumber(args[5]), tonumber(args[6]), tonumber(args[7]))
end)
redis.register_function('many', function(keys, args)
  local t = now()
  local out = {}
  for i = 1, #keys do
    out[i] = tb(keys[i], t, tonumber(args[2]), tonumber(args[5]), tonumber(args[6]), tonumber(args[7]))
  end
  return out
end)
