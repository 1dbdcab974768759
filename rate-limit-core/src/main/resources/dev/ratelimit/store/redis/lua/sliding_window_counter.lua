-- Sliding window counter: state "start:current:previous", the start of the current window, its
-- units and the previous window's.
ALGORITHMS[4] = function(v, limit, w, _, now, cost, commit)
  local s1, s2, s3 = parse(v)
  local start = math.max(now - fmod(now, w), s1)
  local curr, prev = 0, 0
  if s1 == start then
    curr, prev = s2, s3
  elseif s1 == start - w then
    prev = s2
  end
  local e = math.max(0, now - start)
  local wait = 0
  if cost > limit then
    wait = NEVER
  elseif cost <= limit - curr then -- curr + cost may pass 2^53, where doubles round
    local room = (limit - curr - cost) * w
    if prev * (w - e) > room then
      wait = start + w - fdiv(room, prev) - now
    end
  else
    local roomNext = (limit - cost) * w
    local eNext = math.max(0, w - fdiv(roomNext, curr))
    wait = start + w + eNext - now
  end
  local state
  if commit and wait == 0 then
    curr = curr + cost
    s1, s2, s3 = start, curr, prev
    state = encode(s1, s2, s3)
  end
  local remaining = math.max(0, limit - curr - cdiv(prev * (w - e), w))
  local resetAfter = 0
  if curr > 0 then
    resetAfter = start + 2 * w - now
  elseif prev > 0 then
    resetAfter = start + w - now
  end
  local forgetAt = 0
  if s2 > 0 then
    forgetAt = s1 + 2 * w
  elseif s3 > 0 then
    forgetAt = s1 + w
  end
  return wait, remaining, resetAfter, forgetAt, state
end
