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


function TokenBucket.new(p1, p2, p3)
  return setmetatable({ capacity = p1, unit = p2, rate = p3, full = p1 * p2 }, TokenBucket)
end
CLASSES[1] = TokenBucket
