-- Token bucket: state "deficit:at", the units missing from a full bucket and when that was computed.
ALGORITHMS[1] = function(v, capacity, unit, rate, now, cost, commit)
  local deficit, at = parse(v)
  -- refresh: fold the refill since 'at' into the deficit.
  if deficit ~= 0 and now > at then
    if now - at >= cdiv(deficit, rate) then
      deficit = 0
    else
      deficit = deficit - (now - at) * rate
    end
    at = now
  end
  local full = capacity * unit
  local wait = 0
  if cost > capacity then
    wait = NEVER
  else
    -- deficit - (full - cost * unit), never (deficit + cost * unit) - full: that sum may pass 2^53
    local missing = deficit - (full - cost * unit)
    if missing > 0 then
      -- nothing refills while the clock stands behind 'at': the wait starts there
      wait = math.max(0, at - now) + cdiv(missing, rate)
    end
  end
  local state
  if commit and wait == 0 then
    deficit = deficit + cost * unit
    at = math.max(now, at)
    state = encode(deficit, at, 0)
  end
  local resetAfter = 0
  local forgetAt = 0
  if deficit ~= 0 then
    forgetAt = at + cdiv(deficit, rate)
    resetAfter = forgetAt - now
  end
  return wait, fdiv(math.max(0, full - deficit), unit), resetAfter, forgetAt, state
end
