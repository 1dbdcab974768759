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


function Gcra.new(p1, p2, p3)
  return setmetatable({ burst = p1, interval = p2, n = p3, tolerance = p1 * p2 }, Gcra)
end
CLASSES[5] = Gcra
