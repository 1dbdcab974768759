-- Fixed window: state "start:count", the start of the counted window and the units admitted in it.
ALGORITHMS[2] = function(v, limit, window, _, now, cost, commit)
  local s1, s2 = parse(v)
  local start = math.max(now - fmod(now, window), s1)
  local count = 0
  if s1 == start then
    count = s2
  end
  local wait = 0
  if cost > limit then
    wait = NEVER
  elseif cost > limit - count then -- count + cost may pass 2^53, where doubles round
    wait = start + window - now
  end
  local state
  if commit and wait == 0 then
    count = count + cost
    s1, s2 = start, count
    state = encode(s1, s2, 0)
  end
  local resetAfter = 0
  if count ~= 0 then
    resetAfter = start + window - now
  end
  local forgetAt = 0
  if s2 ~= 0 then
    forgetAt = s1 + window
  end
  -- Never below 0: a count above the limit was written under a higher one (the limit was lowered).
  return wait, math.max(0, limit - count), resetAfter, forgetAt, state
end
