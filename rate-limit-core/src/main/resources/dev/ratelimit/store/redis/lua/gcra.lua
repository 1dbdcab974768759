-- GCRA: state "tat:remainder", the theoretical arrival time in whole us and a remainder in 1/n us.
ALGORITHMS[5] = function(v, burst, interval, n, now, cost, commit)
  local tat, rem = parse(v)
  local tolerance = burst * interval
  local backlog = 0
  if tat >= now then
    backlog = (tat - now) * n + rem
  end
  local wait = 0
  if cost > burst then
    wait = NEVER
  else
    local over = backlog + cost * interval - tolerance
    if over > 0 then
      wait = cdiv(over, n)
    end
  end
  local state
  if commit and wait == 0 then
    backlog = backlog + cost * interval
    local whole = fdiv(backlog, n)
    tat, rem = now + whole, backlog - whole * n
    state = encode(tat, rem, 0)
  end
  local forgetAt = tat
  if rem > 0 then
    forgetAt = tat + 1
  end
  return wait, fdiv(math.max(0, tolerance - backlog), interval), cdiv(backlog, n), forgetAt, state
end
