-- Sliding window log: a sorted set with one member per admitted unit, scored by its timestamp.
-- Timestamps never decrease, and members stamped t are "t:1".."t:c", so they stay unique.
local SlidingWindowLog = {}
SlidingWindowLog.__index = SlidingWindowLog
SlidingWindowLog.keepsLog = true

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


function SlidingWindowLog.new(p1, p2, p3)
  return setmetatable({ limit = p1, window = p2 }, SlidingWindowLog)
end
CLASSES[3] = SlidingWindowLog
