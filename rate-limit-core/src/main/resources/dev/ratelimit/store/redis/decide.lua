-- One rate-limit decision for one client against every policy of one limit, atomically.
-- The Lua twin of dev.ratelimit.algorithm.LimitEvaluator and the five *Algorithm classes: every
-- formula below mirrors theirs line by line (same names), so decisions are identical.
--
-- KEYS[i]    state of policy i (all KEYS share one hash tag, so a composite is one call on Cluster)
-- ARGV[1]    "time" to read the clock with Redis TIME, or now in microseconds (contract tests only)
-- ARGV[2]    cost (>= 1)
-- ARGV[3]    extra milliseconds added to every TTL (0; contract tests that move a manual clock use more)
-- ARGV[4..]  four values per policy: type, p1, p2, p3
--              1 token bucket        capacity, unitsPerToken, refillUnitsPerMicro
--              2 fixed window        limit, window us
--              3 sliding window log  limit, window us   (the key is a sorted set)
--              4 sliding w. counter  limit, window us
--              5 GCRA                burst, intervalUnits, ratePerUnit
-- returns    { verdict (0 allowed, 1 rejected, 2 cost exceeds limit), index of the policy described (0-based),
--              remaining, resetAfter us, retryAfter us (-1 = never) }
--
-- Numbers: every quantity stays below 2^53, where doubles are exact integers. Lua's '/' and '%' go
-- through floating division, so integer division is done by fdiv, which corrects the quotient, and
-- numbers are written with string.format('%d'), never tostring (which would print 1.7e+15).
-- String state is "a:b[:c]" with trailing zeros dropped; a missing key is the all-zero (fresh) state.

local NEVER = -1

local function fdiv(a, b)
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then
    q = q - 1
  elseif r >= b then
    q = q + 1
  end
  return q
end

local function fmod(a, b)
  return a - fdiv(a, b) * b
end

local function cdiv(a, b)
  return -fdiv(-a, b)
end

local function fmt(x)
  return string.format('%d', x)
end

local function parse(v, words)
  local s = {}
  local i = 1
  if v then
    for part in string.gmatch(v, '[^:]+') do
      s[i] = tonumber(part)
      i = i + 1
    end
  end
  for j = i, words do
    s[j] = 0
  end
  return s
end

local function encode(s, words)
  local last = words
  while last > 1 and s[last] == 0 do
    last = last - 1
  end
  local parts = {}
  for j = 1, last do
    parts[j] = fmt(s[j])
  end
  return table.concat(parts, ':')
end

-- Token bucket: s[1] = units missing from a full bucket, s[2] = when that was computed.
local TokenBucket = { words = 2 }
TokenBucket.__index = TokenBucket

function TokenBucket:deficit(now)
  local deficit = self.s[1]
  if deficit == 0 then
    return 0
  end
  local elapsed = now - self.s[2]
  if elapsed <= 0 then
    return deficit
  end
  if elapsed >= cdiv(deficit, self.rate) then
    return 0
  end
  return deficit - elapsed * self.rate
end

function TokenBucket:wait(now, cost)
  if cost > self.capacity then
    return NEVER
  end
  local missing = self:deficit(now) + cost * self.unit - self.full
  if missing <= 0 then
    return 0
  end
  return cdiv(missing, self.rate)
end

function TokenBucket:consume(now, cost)
  local deficit = self:deficit(now)
  self.s[1] = deficit + cost * self.unit
  self.s[2] = math.max(now, self.s[2])
end

function TokenBucket:remaining(now)
  return fdiv(math.max(0, self.full - self:deficit(now)), self.unit)
end

function TokenBucket:resetAfter(now)
  return cdiv(self:deficit(now), self.rate)
end

function TokenBucket:forgetAt()
  if self.s[1] == 0 then
    return 0
  end
  return self.s[2] + cdiv(self.s[1], self.rate)
end

-- Fixed window: s[1] = start of the counted window, s[2] = units admitted in it.
local FixedWindow = { words = 2 }
FixedWindow.__index = FixedWindow

function FixedWindow:start(now)
  return math.max(now - fmod(now, self.window), self.s[1])
end

function FixedWindow:count(start)
  if self.s[1] == start then
    return self.s[2]
  end
  return 0
end

function FixedWindow:wait(now, cost)
  if cost > self.limit then
    return NEVER
  end
  local start = self:start(now)
  if self:count(start) + cost <= self.limit then
    return 0
  end
  return start + self.window - now
end

function FixedWindow:consume(now, cost)
  local start = self:start(now)
  self.s[2] = self:count(start) + cost
  self.s[1] = start
end

function FixedWindow:remaining(now)
  return self.limit - self:count(self:start(now))
end

function FixedWindow:resetAfter(now)
  local start = self:start(now)
  if self:count(start) == 0 then
    return 0
  end
  return start + self.window - now
end

function FixedWindow:forgetAt()
  if self.s[2] == 0 then
    return 0
  end
  return self.s[1] + self.window
end

-- Sliding window counter: s[1] = start of the current window, s[2] = its units, s[3] = the previous window's.
local SlidingWindowCounter = { words = 3 }
SlidingWindowCounter.__index = SlidingWindowCounter

function SlidingWindowCounter:start(now)
  return math.max(now - fmod(now, self.window), self.s[1])
end

function SlidingWindowCounter:current(start)
  if self.s[1] == start then
    return self.s[2]
  end
  return 0
end

function SlidingWindowCounter:previous(start)
  if self.s[1] == start then
    return self.s[3]
  end
  if self.s[1] == start - self.window then
    return self.s[2]
  end
  return 0
end

function SlidingWindowCounter:wait(now, cost)
  if cost > self.limit then
    return NEVER
  end
  local w = self.window
  local start = self:start(now)
  local curr = self:current(start)
  local prev = self:previous(start)
  local e = math.max(0, now - start)
  if curr + cost <= self.limit then
    local room = (self.limit - curr - cost) * w
    if prev * (w - e) <= room then
      return 0
    end
    return start + w - fdiv(room, prev) - now
  end
  local roomNext = (self.limit - cost) * w
  local eNext = math.max(0, w - fdiv(roomNext, curr))
  return start + w + eNext - now
end

function SlidingWindowCounter:consume(now, cost)
  local start = self:start(now)
  local curr = self:current(start)
  local prev = self:previous(start)
  self.s[1] = start
  self.s[2] = curr + cost
  self.s[3] = prev
end

function SlidingWindowCounter:remaining(now)
  local start = self:start(now)
  local e = math.max(0, now - start)
  local weighted = cdiv(self:previous(start) * (self.window - e), self.window)
  return math.max(0, self.limit - self:current(start) - weighted)
end

function SlidingWindowCounter:resetAfter(now)
  local start = self:start(now)
  if self:current(start) > 0 then
    return start + 2 * self.window - now
  end
  if self:previous(start) > 0 then
    return start + self.window - now
  end
  return 0
end

function SlidingWindowCounter:forgetAt()
  if self.s[2] > 0 then
    return self.s[1] + 2 * self.window
  end
  if self.s[3] > 0 then
    return self.s[1] + self.window
  end
  return 0
end

-- GCRA: s[1] = theoretical arrival time in whole us, s[2] = remainder in 1/n us.
local Gcra = { words = 2 }
Gcra.__index = Gcra

function Gcra:backlog(now)
  local tat = self.s[1]
  if tat < now then
    return 0
  end
  return (tat - now) * self.n + self.s[2]
end

function Gcra:wait(now, cost)
  if cost > self.burst then
    return NEVER
  end
  local over = self:backlog(now) + cost * self.interval - self.tolerance
  if over <= 0 then
    return 0
  end
  return cdiv(over, self.n)
end

function Gcra:consume(now, cost)
  local nxt = self:backlog(now) + cost * self.interval
  self.s[1] = now + fdiv(nxt, self.n)
  self.s[2] = fmod(nxt, self.n)
end

function Gcra:remaining(now)
  return fdiv(math.max(0, self.tolerance - self:backlog(now)), self.interval)
end

function Gcra:resetAfter(now)
  return cdiv(self:backlog(now), self.n)
end

function Gcra:forgetAt()
  if self.s[1] == 0 and self.s[2] == 0 then
    return 0
  end
  if self.s[2] > 0 then
    return self.s[1] + 1
  end
  return self.s[1]
end

-- Sliding window log: a sorted set with one member per admitted unit, scored by its timestamp.
-- Timestamps never decrease, and members stamped t are "t:1".."t:c", so they stay unique.
local SlidingWindowLog = {}
SlidingWindowLog.__index = SlidingWindowLog

function SlidingWindowLog:load()
  self.size = redis.call('ZCARD', self.key)
  if self.size > 0 then
    local newest = redis.call('ZRANGE', self.key, -1, -1, 'WITHSCORES')
    self.newest = tonumber(newest[2])
  end
  self.exists = self.size > 0
end

-- Index of the first timestamp > now - window: the number of timestamps <= now - window.
function SlidingWindowLog:firstAfter(now)
  if self.size == 0 then
    return 0
  end
  return redis.call('ZCOUNT', self.key, '-inf', fmt(now - self.window))
end

function SlidingWindowLog:wait(now, cost)
  if cost > self.limit then
    return NEVER
  end
  if self.size == 0 then
    return 0
  end
  local first = self:firstAfter(now)
  local live = self.size - first
  if live + cost <= self.limit then
    return 0
  end
  local mustLeave = live + cost - self.limit
  local entry = redis.call('ZRANGE', self.key, first + mustLeave - 1, first + mustLeave - 1, 'WITHSCORES')
  return tonumber(entry[2]) + self.window - now
end

function SlidingWindowLog:consume(now, cost)
  local dropped = 0
  if self.size > 0 then
    dropped = redis.call('ZREMRANGEBYSCORE', self.key, '-inf', fmt(now - self.window))
  end
  local stamp = now
  if self.size - dropped > 0 then
    stamp = math.max(now, self.newest)
  end
  local prefix = fmt(stamp) .. ':'
  local seq = redis.call('ZCOUNT', self.key, fmt(stamp), fmt(stamp))
  local score = fmt(stamp)
  local args = {}
  for j = 1, cost do
    args[#args + 1] = score
    args[#args + 1] = prefix .. fmt(seq + j)
    if #args >= 1000 or j == cost then
      redis.call('ZADD', self.key, unpack(args))
      args = {}
    end
  end
  self.size = self.size - dropped + cost
  self.newest = stamp
end

function SlidingWindowLog:remaining(now)
  return self.limit - (self.size - self:firstAfter(now))
end

function SlidingWindowLog:resetAfter(now)
  if self.size == 0 then
    return 0
  end
  return math.max(0, self.newest + self.window - now)
end

function SlidingWindowLog:forgetAt()
  if self.size == 0 then
    return 0
  end
  return self.newest + self.window
end

-- The decision.

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
  local p
  if kind == 3 then
    p = setmetatable({ key = KEYS[i], limit = p1, window = p2 }, SlidingWindowLog)
    p:load()
  else
    if kind == 1 then
      p = setmetatable({ capacity = p1, unit = p2, rate = p3, full = p1 * p2 }, TokenBucket)
    elseif kind == 2 then
      p = setmetatable({ limit = p1, window = p2 }, FixedWindow)
    elseif kind == 4 then
      p = setmetatable({ limit = p1, window = p2 }, SlidingWindowCounter)
    elseif kind == 5 then
      p = setmetatable({ burst = p1, interval = p2, n = p3, tolerance = p1 * p2 }, Gcra)
    else
      return redis.error_reply('unknown policy type ' .. tostring(ARGV[a]))
    end
    p.key = KEYS[i]
    local stored = redis.call('GET', KEYS[i])
    p.exists = stored ~= false
    p.s = parse(stored or nil, p.words)
  end
  policies[i] = p
end

local function describe(i, verdict, retryAfter)
  local p = policies[i]
  return { verdict, i - 1, p:remaining(now), p:resetAfter(now), retryAfter }
end

-- A key whose state means "fresh" again is worth nothing: drop it rather than wait for its TTL.
local function dropFresh()
  for i = 1, #policies do
    local p = policies[i]
    if p.exists and p:forgetAt() <= now then
      redis.call('DEL', p.key)
    end
  end
end

local decider = 0
local longestWait = 0
for i = 1, #policies do
  local wait = policies[i]:wait(now, cost)
  if wait == NEVER then
    local reply = describe(i, 2, NEVER)
    dropFresh()
    return reply
  end
  if wait > longestWait then
    longestWait = wait
    decider = i
  end
end
if decider > 0 then
  local reply = describe(decider, 1, longestWait)
  dropFresh()
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
local reply = describe(best, 0, 0)

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
