-- Sliding window log: a sorted set with one member per admitted unit, scored by its timestamp.
-- Timestamps never decrease, and members stamped t are "t:1".."t:c", so they stay unique.
-- v.size and v.newest: the set's size and newest timestamp; v.first: how many timestamps are
-- <= now - window (no longer counted), so the live ones are size - first.
ALGORITHMS[3] = function(v, limit, window, _, now, cost, commit)
  local key = v.key
  if v.size == nil then
    local size = redis.pcall('ZCARD', key)
    if type(size) == 'table' then
      -- Not a sorted set (overwritten by hand; ZCARD answers WRONGTYPE): no log of ours, dropped.
      redis.call('DEL', key)
      size = 0
    end
    v.size, v.first = size, 0
    if v.size > 0 then
      v.newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
      v.first = redis.call('ZCOUNT', key, '-inf', fmt(now - window))
    end
  end
  local size, first = v.size, v.first
  local wait = 0
  if cost > limit then
    wait = NEVER
  elseif size - first + cost > limit then
    local mustLeave = size - first + cost - limit
    local entry = redis.call('ZRANGE', key, first + mustLeave - 1, first + mustLeave - 1, 'WITHSCORES')
    wait = tonumber(entry[2]) + window - now
  end
  if commit and wait == 0 then
    if first > 0 then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(now - window))
    end
    local stamp = now
    if size - first > 0 then
      stamp = math.max(now, v.newest)
    end
    local prefix = fmt(stamp) .. ':'
    local seq = 0
    if stamp == v.newest then
      seq = redis.call('ZCOUNT', key, fmt(stamp), fmt(stamp))
    end
    local score = fmt(stamp)
    local args = {}
    for j = 1, cost do
      args[#args + 1] = score
      args[#args + 1] = prefix .. fmt(seq + j)
      if #args >= 1000 or j == cost then
        redis.call('ZADD', key, unpack(args))
        args = {}
      end
    end
    -- Every timestamp left is > now - window: none is out of the window any more.
    size, first = size - first + cost, 0
    v.size, v.first, v.newest = size, first, stamp
  end
  if size == 0 then
    return wait, limit, 0, 0, nil
  end
  -- Never below 0: a log longer than the limit is one a higher limit wrote (the limit was lowered).
  return wait, math.max(0, limit - (size - first)), math.max(0, v.newest + window - now), v.newest + window, nil
end
