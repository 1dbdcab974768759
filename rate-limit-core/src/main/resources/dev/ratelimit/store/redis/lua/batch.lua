-- Several decisions in one call, for a batch of concurrent decisions (CallBatcher): a FCALL per
-- decision costs Redis its per-command work and a TIME each, a fifth to a third of its time per
-- decision once batches form. Only in the Functions library; appended after the driver.
--
-- KEYS    every decision's KEYS, one decision after the other
-- ARGV    per decision: its number of keys, its number of arguments, then its ARGV as decide reads it
-- returns each decision's reply, in order, or its error reply: a decision that fails (a key of
--         another type, an unknown policy type) fails alone, as it would have in its own call.
-- The decisions asking for "time" share one reading of Redis' clock: they are decided at one instant.
local function decideMany(KEYS, ARGV)
  local replies, now = {}, nil
  local k, a, n = 0, 1, #ARGV
  while a <= n do
    local keyCount, argCount = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    local keys, args = {}, {}
    for i = 1, keyCount do
      keys[i] = KEYS[k + i]
    end
    for i = 1, argCount do
      args[i] = ARGV[a + 1 + i]
    end
    if args[1] == 'time' then
      now = now or readTime()
      args[1] = now
    end
    local ok, reply = pcall(decide, keys, args)
    if not ok then
      -- Redis 7.0 raises a failed redis.call as its message, 7.2 as an error reply table
      if type(reply) ~= 'table' then
        reply = redis.error_reply(tostring(reply))
      end
    end
    replies[#replies + 1] = reply
    k, a = k + keyCount, a + 2 + argCount
  end
  return replies
end
