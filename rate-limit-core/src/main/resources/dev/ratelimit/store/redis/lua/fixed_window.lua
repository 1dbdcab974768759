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


function FixedWindow.new(p1, p2, p3)
  return setmetatable({ limit = p1, window = p2 }, FixedWindow)
end
CLASSES[2] = FixedWindow
