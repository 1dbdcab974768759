-- GCRA: state "tat:remainder", the theoretical arrival time in whole us and a remainder in 1/n us.
ALGORITHMS[5] = function(v, burst, interval, n, now, cost, commit)
  local tat, rem = parse(v)
  local tolerance = burst * interval
  -- TAT more than a full burst ahead (a clock that went back, or a burst lowered since the client
  -- spent): (tat - now) * n may pass 2^53, so compute around it; nothing can pass then.
  local beyond = tat - now > fdiv(tolerance, n)
  local backlog = 0
  if tat >= now and not beyond then
    backlog = (tat - now) * n + rem
  end
  local wait = 0
  if cost > burst then
    wait = NEVER
  elseif beyond then
    wait = tat - now + cdiv(rem + cost * interval - tolerance, n)
  else
    -- backlog - (tolerance - cost * interval): the sum backlog + cost * interval may pass 2^53
    local over = backlog - (tolerance - cost * interval)
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
  if beyond and not state then
    return wait, 0, forgetAt - now, forgetAt, state
  end
  return wait, fdiv(math.max(0, tolerance - backlog), interval), cdiv(backlog, n), forgetAt, state
end
