-- The decision, defined as a function so that a Redis Functions library defines it once per server
-- (FCALL) and a script (EVALSHA, Redis before 7) ends with "return decide(KEYS, ARGV)".

local SLIDING_WINDOW_LOG = 3

-- What an algorithm reads the key through: its stored string (false if none), or for the log a table.
-- A key that is not a string (overwritten by hand, e.g. a list: GET answers WRONGTYPE) holds no state
-- of ours: it reads as none, and the next admitted request replaces it, rather than failing every
-- decision of that client for as long as the key lives (forever, without a TTL).
local function open(kind, key)
  if kind == SLIDING_WINDOW_LOG then
    return { key = key }
  end
  local v = redis.pcall('GET', key)
  if type(v) == 'table' then
    return false
  end
  return v
end

local function unknown(ARGV, a)
  return redis.error_reply('unknown policy type ' .. tostring(ARGV[a]))
end

-- Stores a state the cost was taken from; every key expires when forgetting it changes nothing.
local function save(key, state, forgetAt, now, slackMillis)
  local ttl = fmt(cdiv(forgetAt - now, 1000) + slackMillis)
  if state then
    redis.call('SET', key, state, 'PX', ttl)
  else
    redis.call('PEXPIRE', key, ttl)
  end
end

-- One policy, the common case: one call of its algorithm decides, and takes the cost if it may.
local function decideOne(KEYS, ARGV, now, cost, slackMillis)
  local kind = tonumber(ARGV[4])
  local algorithm = ALGORITHMS[kind]
  if not algorithm then
    return unknown(ARGV, 4)
  end
  local key = KEYS[1]
  local v = open(kind, key)
  local wait, remaining, resetAfter, forgetAt, state =
    algorithm(v, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), now, cost, true)
  if wait == 0 then
    save(key, state, forgetAt, now, slackMillis)
    return { 0, 0, remaining, resetAfter, 0 }
  end
  -- A refusal writes nothing, not even a DEL of a key found stale (its TTL ends it within a
  -- millisecond): deleted, it would read as a fresh client if Redis' clock then stepped back.
  if wait == NEVER then
    return { 2, 0, remaining, resetAfter, NEVER }
  end
  return { 1, 0, remaining, resetAfter, wait }
end

-- Several policies: all are read and asked first; the cost is taken from every one or from none.
local function decideAll(KEYS, ARGV, now, cost, slackMillis)
  local n = #KEYS
  local algorithms, params, values, remainings, resets = {}, {}, {}, {}, {}
  local verdict, decider, longestWait = 0, 0, 0
  for i = 1, n do
    local a = 4 + (i - 1) * 4
    local kind = tonumber(ARGV[a])
    local algorithm = ALGORITHMS[kind]
    if not algorithm then
      return unknown(ARGV, a)
    end
    local p = { tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]) }
    local v = open(kind, KEYS[i])
    local wait
    wait, remainings[i], resets[i] = algorithm(v, p[1], p[2], p[3], now, cost, false)
    algorithms[i], params[i], values[i] = algorithm, p, v
    if verdict < 2 then
      if wait == NEVER then
        verdict, decider, longestWait = 2, i, NEVER
      elseif wait > longestWait then
        verdict, decider, longestWait = 1, i, wait
      end
    end
  end
  if verdict > 0 then
    -- described by the policy with the longest wait, but remaining is the fewest any policy has left
    local fewest = remainings[decider]
    for i = 1, n do
      fewest = math.min(fewest, remainings[i])
    end
    return { verdict, decider - 1, fewest, resets[decider], longestWait }
  end
  -- Allowed: take the cost from each and describe the policy closest to rejecting; of those tied, the
  -- one whose quota comes back last (the first if that ties too).
  local best
  for i = 1, n do
    local p = params[i]
    local _, remaining, resetAfter, forgetAt, state = algorithms[i](values[i], p[1], p[2], p[3], now, cost, true)
    save(KEYS[i], state, forgetAt, now, slackMillis)
    if best == nil or remaining < remainings[best] or (remaining == remainings[best] and resetAfter > resets[best]) then
      best = i
    end
    remainings[i], resets[i] = remaining, resetAfter
  end
  return { 0, best - 1, remainings[best], resets[best], 0 }
end

local function decide(KEYS, ARGV)
  local now
  if ARGV[1] == 'time' then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  else
    now = tonumber(ARGV[1])
  end
  local cost = tonumber(ARGV[2])
  local slackMillis = tonumber(ARGV[3])
  if #KEYS == 1 then
    return decideOne(KEYS, ARGV, now, cost, slackMillis)
  end
  return decideAll(KEYS, ARGV, now, cost, slackMillis)
end
