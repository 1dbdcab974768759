-- The decision.

-- The decision, defined as a function so that a Redis Functions library defines it once per server
-- (FCALL) and a script (EVALSHA, Redis before 7) ends with "return decide(KEYS, ARGV)".

-- The reply describing policy i.
local function describe(policies, i, now, verdict, retryAfter)
  local p = policies[i]
  return { verdict, i - 1, p:remaining(now), p:resetAfter(now), retryAfter }
end

-- A key whose state means "fresh" again is worth nothing: drop it rather than wait for its TTL.
local function dropFresh(policies, now)
  for i = 1, #policies do
    local p = policies[i]
    if p.exists and p:forgetAt() <= now then
      redis.call('DEL', p.key)
    end
  end
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

  local policies = {}
  for i = 1, #KEYS do
    local a = 4 + (i - 1) * 4
    local kind = tonumber(ARGV[a])
    local p1, p2, p3 = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
    local class = CLASSES[kind]
    if not class then
      return redis.error_reply('unknown policy type ' .. tostring(ARGV[a]))
    end
    local p = class.new(p1, p2, p3)
    p.key = KEYS[i]
    if class.keepsLog then
      p:load()
    else
      local stored = redis.call('GET', KEYS[i])
      p.exists = stored ~= false
      p.s = parse(stored or nil, p.words)
    end
    policies[i] = p
  end

  local decider = 0
  local longestWait = 0
  for i = 1, #policies do
    local wait = policies[i]:wait(now, cost)
    if wait == NEVER then
      local reply = describe(policies, i, now, 2, NEVER)
      dropFresh(policies, now)
      return reply
    end
    if wait > longestWait then
      longestWait = wait
      decider = i
    end
  end
  if decider > 0 then
    local reply = describe(policies, decider, now, 1, longestWait)
    dropFresh(policies, now)
    return reply
  end

  for i = 1, #policies do
    policies[i]:consume(now, cost)
  end
  local best = 1
  if #policies > 1 then
    local fewest = nil
    for i = 1, #policies do
      local r = policies[i]:remaining(now)
      if fewest == nil or r < fewest then
        fewest = r
        best = i
      end
    end
  end
  local reply = describe(policies, best, now, 0, 0)

  -- Every key expires when forgetting it changes nothing (forgetAt > now after a consume).
  for i = 1, #policies do
    local p = policies[i]
    local ttl = cdiv(p:forgetAt() - now, 1000) + slackMillis
    if p.s then
      redis.call('SET', p.key, encode(p.s, p.words), 'PX', fmt(ttl))
    else
      redis.call('PEXPIRE', p.key, fmt(ttl))
    end
  end
  return reply
end
