-- One rate-limit decision for one client against every policy of one limit, atomically.
-- Assembled from the parts under lua/: this prelude, the algorithms (each registers itself in
-- ALGORITHMS) and the driver, which defines decide(KEYS, ARGV). FunctionLibrary makes them, with all
-- five algorithms, a Redis Functions library (defined once per server, called with FCALL);
-- DecisionScript makes a script of the algorithms one limit uses that ends with
-- "return decide(KEYS, ARGV)" (defined again on every EVALSHA; Redis 6.2).
-- The Lua twin of dev.ratelimit.algorithm.LimitEvaluator and the five *Algorithm classes: the
-- formulas mirror theirs (same names), so decisions are identical (RedisStoreEquivalenceTest).
-- Each algorithm is one straight-line function rather than the Java methods one by one: Redis
-- spends its time on Lua calls and tables, and a decision here makes as few of them as it can.
--
-- KEYS[i]    state of policy i (all KEYS share one hash tag, so a composite is one call on Cluster)
-- ARGV[1]    "time" to read the clock with Redis TIME, or now in microseconds (contract tests only)
-- ARGV[2]    cost (>= 1)
-- ARGV[3]    extra milliseconds added to every TTL (0; contract tests that move a manual clock use more)
-- ARGV[4..]  four values per policy: type, p1, p2, p3
--              1 token bucket        capacity, unitsPerToken, refillUnitsPerMicro
--              2 fixed window        limit, window us
--              3 sliding window log  limit, window us   (the key is a sorted set)
--              4 sliding w. counter  limit, window us
--              5 GCRA                burst, intervalUnits, ratePerUnit
-- returns    { verdict (0 allowed, 1 rejected, 2 cost exceeds limit), index of the policy described (0-based),
--              remaining, resetAfter us, retryAfter us (-1 = never) }
--
-- Numbers: every quantity stays below 2^53, where doubles are exact integers. Lua's '/' and '%' go
-- through floating division, so integer division is done by fdiv (from math.fmod, which is exact), and
-- numbers are written with string.format('%d'), never tostring (which would print 1.7e+15).
-- String state is "a:b[:c]" with trailing zeros dropped; a missing key is the all-zero (fresh) state.

local NEVER = -1
-- Integers up to here are exact in a double; every quantity of a state stays below it.
local EXACT = 2^53

-- math.fmod is C's fmod, exact for doubles: a - r is then an exact multiple of b, no larger than a,
-- and the quotient exact. (floor(a / b) corrected by a - q * b was not: q * b can pass 2^53 and round.)
local function fdiv(a, b)
  local r = math.fmod(a, b)
  local q = (a - r) / b
  if r ~= 0 and (r < 0) ~= (b < 0) then
    q = q - 1
  end
  return q
end

local function fmod(a, b)
  local r = math.fmod(a, b)
  if r ~= 0 and (r < 0) ~= (b < 0) then
    r = r + b
  end
  return r
end

local function cdiv(a, b)
  return -fdiv(-a, b)
end

local function fmt(x)
  return string.format('%d', x)
end

-- The (up to) three numbers of a state string; false (no key) is the fresh state 0, 0, 0. So is a
-- string no algorithm writes (overwritten by hand): not three integers, or one beyond 2^53 (read, it
-- would reject the client for ever or make a TTL Redis refuses), replaced by the next admitted request.
local function parse(v)
  if not v then
    return 0, 0, 0
  end
  local a, b, c = string.match(v, '^(%-?%d+):?(%-?%d*):?(%-?%d*)$')
  a, b, c = tonumber(a) or 0, tonumber(b) or 0, tonumber(c) or 0
  if a >= EXACT or a <= -EXACT or b >= EXACT or b <= -EXACT or c >= EXACT or c <= -EXACT then
    return 0, 0, 0
  end
  return a, b, c
end

local function encode(a, b, c)
  if c ~= 0 then
    return string.format('%d:%d:%d', a, b, c)
  end
  if b ~= 0 then
    return string.format('%d:%d', a, b)
  end
  return string.format('%d', a)
end

-- Each algorithm below registers itself here under its policy type (see the header), as
--   function(v, p1, p2, p3, now, cost, commit) -> wait, remaining, resetAfter, forgetAt, state
-- v is the key's stored string (false if none); for the sliding window log, a table { key = key }
-- in which it keeps what it read of its sorted set. wait is 0 if the cost may pass now, else the
-- exact us until it may, or NEVER. With commit and a wait of 0 the cost is taken: remaining,
-- resetAfter and forgetAt (0: the state is fresh) then describe the new state, and state is the
-- string to store (nil for the log, which writes its sorted set itself).
local ALGORITHMS = {}
