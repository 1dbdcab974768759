#!/usr/bin/env bash
# Where a decision's Redis time goes: redis-benchmark against a throw-away redis-server, for
# `return 1`, the minimal one-policy token bucket next to this script, and our decision code as
# the store sends it (EVALSHA of the assembled script, Redis 6.2's path; FCALL of the Functions
# library, Redis 7+), each without and with a pipeline of 4. Prints a Markdown table of Redis'
# own time per call (INFO commandstats usec_per_call) and calls per second.
#
#   rate-limit-bench/lua/redis-time.sh [connections=4] [requests=200000]
#
# Needs redis-server, redis-cli and redis-benchmark (Debian: redis-server redis-tools), Redis 7+.
set -euo pipefail
cd "$(dirname "$0")/../.."
C=${1:-4}
N=${2:-200000}
L=rate-limit-core/src/main/resources/dev/ratelimit/store/redis/lua
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DIR=$(mktemp -d)
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" --daemonize yes \
  --logfile "$DIR/redis.log" >/dev/null
trap 'redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.1; done
cli() { redis-cli -p "$PORT" "$@"; }

RETURN1=$(cli SCRIPT LOAD "return 1")
MINIMAL=$(cli SCRIPT LOAD "$(cat rate-limit-bench/lua/minimal_token_bucket.lua)")
SCRIPT=$(cli SCRIPT LOAD "$(cat $L/prelude.lua $L/token_bucket.lua $L/driver.lua; echo 'return decide(KEYS, ARGV)')")
{ echo '#!lua name=ratelimit_bench'
  cat $L/prelude.lua $L/token_bucket.lua $L/fixed_window.lua $L/sliding_window_log.lua \
      $L/sliding_window_counter.lua $L/gcra.lua $L/driver.lua
  echo "redis.register_function('ratelimit_bench_decide', decide)"; } | cli -x FUNCTION LOAD REPLACE >/dev/null

# A token bucket of 1000 tokens refilling 1 per second, over 100,000 random keys: every call allowed.
TB=(time 1 0 1 1000 1000000 1)
run() { # label, pipeline, command...
  local label=$1 pipeline=$2; shift 2
  cli CONFIG RESETSTAT >/dev/null
  local rps usec
  rps=$(redis-benchmark -p "$PORT" -c "$C" -n "$N" -r 100000 -P "$pipeline" --csv "$@" | tail -1 | cut -d'"' -f4)
  usec=$(cli INFO commandstats | grep -E '^cmdstat_(evalsha|fcall):' | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')
  printf '%s|%s|%.0f' "$label" "$usec" "$rps"
}
echo "| Call (redis-benchmark -c $C, Redis $(cli INFO server | grep -o 'redis_version:[0-9.]*' | cut -d: -f2)) | Redis µs per call | Calls/s | Redis µs per call, pipeline of 4 | Calls/s, pipeline of 4 |"
echo "|---|---:|---:|---:|---:|"
for variant in return1 minimal script function; do
  case $variant in
    return1) label='EVALSHA `return 1`'; cmd=(EVALSHA "$RETURN1" 0) ;;
    minimal) label='EVALSHA `rate-limit-bench/lua/minimal_token_bucket.lua`'; cmd=(EVALSHA "$MINIMAL" 1 'rl:tb:__rand_int__' "${TB[@]}") ;;
    script) label='EVALSHA of ours: prelude + token bucket + driver (Redis 6.2)'; cmd=(EVALSHA "$SCRIPT" 1 'rl:tb:__rand_int__' "${TB[@]}") ;;
    function) label='FCALL of ours: the Functions library (Redis 7+)'; cmd=(FCALL ratelimit_bench_decide 1 'rl:tb:__rand_int__' "${TB[@]}") ;;
  esac
  IFS='|' read -r l1 u1 r1 <<<"$(run "$label" 1 "${cmd[@]}")"
  IFS='|' read -r l4 u4 r4 <<<"$(run "$label" 4 "${cmd[@]}")"
  printf '| %s | %s | %s | %s | %s |\n' "$l1" "$u1" "$r1" "$u4" "$r4"
done
