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


function SlidingWindowCounter.new(p1, p2, p3)
  return setmetatable({ limit = p1, window = p2 }, SlidingWindowCounter)
end
CLASSES[4] = SlidingWindowCounter
