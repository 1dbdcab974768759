#!/usr/bin/env bash
# Runs every benchmark of this repository and writes BENCHMARKS.md at its root.
#
#   rate-limit-bench/run-benchmarks.sh           # the published run: about an hour on 2 cores
#   rate-limit-bench/run-benchmarks.sh --quick   # a smoke test of the whole pipeline: a few minutes
#   rate-limit-bench/run-benchmarks.sh --only http   # re-run parts (memory, redis, http), keep the rest
#
# EXAMPLE_JAR=/path/to/app.jar uses that executable jar of the example app instead of building it.
# Run it on a quiet machine: the benchmarks share the cores with everything else running.
# Needs a JDK 17+ and Maven 3.8+. The Redis part needs redis-server, redis-cli and redis-benchmark
# (Debian: redis-server, redis-tools), the HTTP part wrk and curl (Debian: wrk, curl), redis-server and
# redis-cli for its Redis variant, and the example app's executable jar (built here when the module has
# one). Missing Debian packages are installed with apt-get when running as root; a part that still
# cannot run is skipped and BENCHMARKS.md says why.
# Raw results (JMH JSON, redis-benchmark CSV, wrk output, JFR recordings) stay in
# rate-limit-bench/target/bench-results.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MODE=full
ONLY=""
COMMAND="rate-limit-bench/run-benchmarks.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) MODE=quick; COMMAND+=" --quick" ;;
    --only)
      [[ $# -ge 2 && $2 =~ ^(memory|redis|http)(,(memory|redis|http))*$ ]] \
        || { echo "--only needs parts from memory,redis,http, e.g. --only http" >&2; exit 2; }
      ONLY=$2; COMMAND+=" --only $2"; shift ;;
    -h|--help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (use --quick, --only PARTS or nothing)" >&2; exit 2 ;;
  esac
  shift
done
# wanted PART: whether this run measures PART.
wanted() { [[ -z $ONLY || ,$ONLY, == *,$1,* ]]; }
OUT="$ROOT/rate-limit-bench/target/bench-results"
JAR="$ROOT/rate-limit-bench/target/benchmarks.jar"
STARTED=$(date -u +%Y-%m-%dT%H:%MZ)
# The code measured: the table must say which, since the code moves on after a run.
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true)
if [[ -n $COMMIT ]] && ! git -C "$ROOT" diff --quiet HEAD 2>/dev/null; then
  COMMIT="$COMMIT (with uncommitted changes)"
fi
PIDS=()

log() { echo "[$(date -u +%H:%M:%S)] $*"; }
skip() { log "SKIPPED $1: $2"; echo "$1: $2" >> "$OUT/skipped.txt"; }
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

# A loopback port nobody listens on.
free_port() {
  local port
  while true; do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

# ensure_tool COMMAND DEBIAN_PACKAGE: true when COMMAND is (or could be made) available.
ensure_tool() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "installing $2 for $1"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2") >/dev/null 2>&1 || true
  fi
  command -v "$1" >/dev/null 2>&1
}

# start_redis: a throw-away redis-server on a free port; sets REDIS_PORT and REDIS_PID.
start_redis() {
  REDIS_PORT=$(free_port)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
    >"$OUT/redis-$REDIS_PORT.log" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  for _ in $(seq 1 100); do
    redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  echo "redis-server did not start; see $OUT/redis-$REDIS_PORT.log" >&2
  return 1
}

# jmh NAME ARGS...: one JMH run whose JSON goes to $OUT/NAME.json; fails the script if JMH fails.
jmh() {
  local name=$1
  shift
  if ! java -jar "$JAR" "$@" -foe true -rf json -rff "$OUT/$name.json" > "$OUT/$name.txt" 2>&1; then
    tail -40 "$OUT/$name.txt" >&2
    echo "JMH run $name failed; full output in $OUT/$name.txt" >&2
    exit 1
  fi
  sed -n '/^Benchmark /,$p' "$OUT/$name.txt" | grep -vE ':(gc\.|rejected)' || true
}

stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

if [[ $MODE == quick ]]; then
  JMH=(-f 1 -wi 1 -w 1s -i 2 -r 1s)
  SHAPES=UNIFORM_100K
  MEMORY_CLIENTS=100000
  REDIS_THREADS=(1 16)
  REDIS_CONTENDERS=OURS_TOKEN_BUCKET,OURS_TOKEN_BUCKET_UNPIPELINED,BUCKET4J,JEDIS_EVALSHA_RETURN_1
  REDIS_COST_CLIENTS=2000
  WRK_SECONDS=3
  WRK_WARMUP_SECONDS=3
  HTTP_ROUNDS=1
  PAIR_JMH=("${JMH[@]}")
  PAIR_ROUNDS=1
  PAIR_SHAPES=(UNIFORM_100K)
  PAIR_THREADS=(16)
else
  JMH=(-f 1 -wi 3 -w 1s -i 10 -r 1s)
  SHAPES=HOT_1,UNIFORM_100K,UNIFORM_1M,ZIPF_1M
  MEMORY_CLIENTS=1000000
  REDIS_THREADS=(1 4 16)
  REDIS_CONTENDERS=OURS_TOKEN_BUCKET,OURS_FIXED_WINDOW,OURS_SLIDING_WINDOW_LOG,OURS_SLIDING_WINDOW_COUNTER,OURS_GCRA,OURS_TOKEN_BUCKET_UNPIPELINED,BUCKET4J,JEDIS_EVALSHA_RETURN_1
  REDIS_COST_CLIENTS=10000
  WRK_SECONDS=10
  # The JIT must be done with the filter's path before the measurement: after 4 s of load, on a VM
  # slow at compiling, the app with the filter ran at 68% of the app without it; after 20 s, 86-93%.
  WRK_WARMUP_SECONDS=20
  HTTP_ROUNDS=5
  PAIR_JMH=("${JMH[@]}")   # the tables' settings: shorter rounds once measured our Redis store below its table figure
  PAIR_ROUNDS=3
  PAIR_SHAPES=(UNIFORM_100K UNIFORM_1M ZIPF_1M)
  PAIR_THREADS=(4 16)
fi
CONTENDERS=OURS_TOKEN_BUCKET,OURS_FIXED_WINDOW,OURS_SLIDING_WINDOW_LOG,OURS_SLIDING_WINDOW_COUNTER,OURS_GCRA,BUCKET4J,GUAVA,RESILIENCE4J,CHM_GET_FLOOR

if [[ -z $ONLY ]]; then
  rm -rf "$OUT"
fi
mkdir -p "$OUT/rounds"
touch "$OUT/skipped.txt"
# Parts re-run with --only replace their own results and skip notes only.
wanted memory && { rm -rf "$OUT"/jmh-inmemory-* "$OUT"/rounds/memory-* "$OUT/memory.json" "$OUT/profiles"; sed -i '/^\(in-memory\|memory\|profile\):/d' "$OUT/skipped.txt"; }
wanted redis && { rm -f "$OUT"/jmh-redis-* "$OUT"/rounds/redis-* "$OUT"/redis-*; sed -i '/^redis:/d' "$OUT/skipped.txt"; }
wanted http && { rm -f "$OUT"/http-*; sed -i '/^http:/d' "$OUT/skipped.txt"; }
# Which run measured each part: the report says so when parts come from different runs (--only keeps the others)
# and marks a part measured with --quick as quick, also when this run or a re-run of the report is not.
touch "$OUT/measured.txt"
for part in memory redis http; do
  if wanted "$part"; then
    sed -i "/^$part:/d" "$OUT/measured.txt"
    echo "$part: $MODE mode, commit ${COMMIT:-unknown}, started $STARTED" >> "$OUT/measured.txt"
  fi
done

# ---------------------------------------------------------------------------------------------
log "building ($MODE mode)"
MODULES=rate-limit-bench
HAS_APP=false
if [[ -n ${EXAMPLE_JAR:-} ]]; then
  HAS_APP=true
elif wanted http && [[ -d rate-limit-example-webapp/src/main/java ]]; then
  MODULES=rate-limit-bench,rate-limit-example-webapp
  HAS_APP=true
fi
mvn -B -q -Dstyle.color=never -pl "$MODULES" -am package -DskipTests

# ---------------------------------------------------------------------------------------------
if wanted memory; then
log "in memory: decisions per second, 1 thread, pre-generated and fresh keys"
jmh jmh-inmemory-t1 InMemoryBenchmark "${JMH[@]}" -t 1 -prof gc \
  -p contender=$CONTENDERS -p shape=$SHAPES -p keys=PREGENERATED,FRESH

log "in memory: 2 threads, pre-generated keys"
if [[ $MODE == quick ]]; then T2_CONTENDERS=OURS_TOKEN_BUCKET,BUCKET4J,CHM_GET_FLOOR; else T2_CONTENDERS=$CONTENDERS; fi
jmh jmh-inmemory-t2 InMemoryBenchmark "${JMH[@]}" -t 2 -prof gc \
  -p contender=$T2_CONTENDERS -p shape=$SHAPES -p keys=PREGENERATED

if [[ $MODE == full ]]; then
  log "in memory: Bucket4j's bare boolean tryConsume, for comparison with its probe"
  jmh jmh-inmemory-bucket4j-boolean InMemoryBenchmark "${JMH[@]}" -t 1 -prof gc \
    -p contender=BUCKET4J_BOOLEAN -p shape=UNIFORM_100K,UNIFORM_1M -p keys=PREGENERATED,FRESH
fi

log "in memory: JFR profile of our token bucket"
PROFILE_SHAPE=UNIFORM_1M
[[ $MODE == quick ]] && PROFILE_SHAPE=UNIFORM_100K
for keys in PREGENERATED FRESH; do
  java -jar "$JAR" InMemoryBenchmark -f 1 -wi 2 -w 1s -i 1 -r 5s -t 1 \
    -p contender=OURS_TOKEN_BUCKET -p shape=$PROFILE_SHAPE -p keys=$keys \
    -prof "jfr:dir=$OUT/profiles/token-bucket-$PROFILE_SHAPE-$keys" >/dev/null \
    || skip "profile" "JMH's JFR profiler failed"
done

log "in memory: bytes per tracked client ($MEMORY_CLIENTS clients)"
java -Xms6g -Xmx6g -cp "$JAR" dev.ratelimit.bench.memory.MemoryFootprint "$MEMORY_CLIENTS" "$OUT/memory.json"

# The target cells again, in rounds: each round runs our token bucket, Bucket4j and the floor on one
# shape back to back, so a slow spell of the machine falls on all three; targets use the median round.
for round in $(seq 1 "$PAIR_ROUNDS"); do
  for shape in "${PAIR_SHAPES[@]}"; do
    for keys in PREGENERATED FRESH; do
      log "in memory: paired round $round of $PAIR_ROUNDS, $shape, $keys keys"
      jmh "rounds/memory-r$round-$shape-$keys" InMemoryBenchmark "${PAIR_JMH[@]}" -t 1 \
        -p contender=OURS_TOKEN_BUCKET,BUCKET4J,CHM_GET_FLOOR -p shape="$shape" -p keys=$keys
    done
  done
done
fi

# ---------------------------------------------------------------------------------------------
if ! wanted redis; then
  :
elif ensure_tool redis-server redis-server && ensure_tool redis-benchmark redis-tools && ensure_tool redis-cli redis-tools; then
  for t in "${REDIS_THREADS[@]}"; do
    log "redis: decisions per second, $t client threads"
    jmh "jmh-redis-t$t" RedisBenchmark "${JMH[@]}" -t "$t" -p contender=$REDIS_CONTENDERS
  done

  # The target cells again, in rounds (see the in-memory rounds above).
  for round in $(seq 1 "$PAIR_ROUNDS"); do
    for t in "${PAIR_THREADS[@]}"; do
      log "redis: paired round $round of $PAIR_ROUNDS, $t client threads"
      jmh "rounds/redis-r$round-t$t" RedisBenchmark "${PAIR_JMH[@]}" -t "$t" \
        -p contender=OURS_TOKEN_BUCKET,BUCKET4J,JEDIS_EVALSHA_RETURN_1
    done
  done

  log "redis: redis-benchmark EVALSHA return 1 ceiling"
  start_redis
  sha=$(redis-cli -p "$REDIS_PORT" SCRIPT LOAD "return 1")
  for c in "${REDIS_THREADS[@]}"; do
    if [[ $MODE == quick ]]; then n=$((10000 * c)); else n=$((50000 * c)); fi
    redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -n "$n" -c "$c" -P 1 --csv EVALSHA "$sha" 0 > "$OUT/redis-benchmark-c$c.csv"
    tail -1 "$OUT/redis-benchmark-c$c.csv"
  done
  stop_pid "$REDIS_PID"

  log "redis: round trips, commands and bytes per decision"
  java -cp "$JAR" dev.ratelimit.bench.redis.RedisCosts "$REDIS_COST_CLIENTS" "$OUT/redis-costs.json" > "$OUT/redis-costs.txt"
else
  skip "redis" "redis-server, redis-cli or redis-benchmark not found (Debian: apt-get install redis-server redis-tools)"
fi

# ---------------------------------------------------------------------------------------------
APP_JAR=${EXAMPLE_JAR:-}
if [[ -z $APP_JAR && $HAS_APP == true ]]; then
  for candidate in rate-limit-example-webapp/target/*.jar; do
    [[ -e $candidate && $candidate != *original* && $candidate != *sources* && $candidate != *tests* ]] || continue
    if ! command -v unzip >/dev/null 2>&1 || unzip -p "$candidate" META-INF/MANIFEST.MF 2>/dev/null | grep -q '^Main-Class:'; then
      APP_JAR=$candidate
    fi
  done
fi
if ! wanted http; then
  :
elif [[ -z $APP_JAR ]]; then
  skip "http" "the example app (rate-limit-example-webapp) has no executable jar yet"
elif ! ensure_tool wrk wrk; then
  skip "http" "wrk not found (Debian: apt-get install wrk)"
elif ! ensure_tool curl curl; then
  skip "http" "curl not found to wait for the app's /health (Debian: apt-get install curl)"
elif ! ensure_tool redis-server redis-server || ! ensure_tool redis-cli redis-tools; then
  skip "http" "redis-server or redis-cli not found for the Redis variant"
else
  # run_http VARIANT ROUND LABEL FILTER CONFIG [REDIS_URL]: starts the app, warms it, measures, stops it.
  run_http() {
    local variant=$1 round=$2 label=$3 filter=$4 config=$5 redis_url=${6:-} port app_pid
    port=$(free_port)
    log "http: $label, round $round of $HTTP_ROUNDS"
    PORT=$port RATE_LIMIT_HOST=127.0.0.1 RATE_LIMIT_FILTER=$filter RATE_LIMIT_CONFIG=$config REDIS_URL=$redis_url \
      java -Xms1g -Xmx1g -jar "$APP_JAR" > "$OUT/http-$variant.log" 2>&1 &
    app_pid=$!
    PIDS+=("$app_pid")
    for _ in $(seq 1 150); do
      curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
      sleep 0.2
    done
    if ! curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
      skip "http" "the example app did not answer /health; see $OUT/http-$variant.log"
      stop_pid "$app_pid"
      return 1
    fi
    wrk -t2 -c32 -d"${WRK_WARMUP_SECONDS}s" -s rate-limit-bench/http/keys.lua "http://127.0.0.1:$port" >/dev/null
    if ! { echo "# label: $label"; wrk -t2 -c32 -d"${WRK_SECONDS}s" --latency -s rate-limit-bench/http/keys.lua "http://127.0.0.1:$port"; } \
      > "$OUT/http-$variant-$round.txt"; then
      skip "http" "wrk failed in round $round of $variant"
    fi
    # Decisions the store did not make over the app's life (warm-up and measurement): a failing Redis
    # under LOCAL_FALLBACK (the example's default) still answers 2xx, so wrk alone would not show it.
    curl -fs "http://127.0.0.1:$port/metrics" 2>/dev/null | awk '
      /^ratelimit_decisions_total[{]/ {
        if ($0 ~ /outcome="(failed_open|fallback_allowed|fallback_rejected|unavailable)"/) without += $NF; else by += $NF
      }
      END { if (by + without > 0) printf "# decisions by the store: %d, without it: %d\n", by, without }' \
      >> "$OUT/http-$variant-$round.txt" || true
    grep -E 'Requests/sec|^ +99%|^# decisions' "$OUT/http-$variant-$round.txt" || true
    stop_pid "$app_pid"
  }
  cat > "$OUT/http-setup.txt" <<EOF
\`wrk -t2 -c32 -d${WRK_SECONDS}s --latency\` (after ${WRK_WARMUP_SECONDS} s of the same load to warm the JIT) against \`GET /api/scan\` of the example app's
executable jar (\`java -Xms1g -Xmx1g -jar $APP_JAR\`), each request with one of 10,000 pro API keys in turn
(rate-limit-bench/http/keys.lua), under a token bucket of 1,000,000 per key refilled at 1 per hour so every request is
allowed (rate-limit-bench/http/limits.json). "No filter" runs the same jar with \`RATE_LIMIT_FILTER=off\`:
the same servlets, no rate-limit filter installed. wrk, the app and Redis share the machine's cores. The
variants take turns for $HTTP_ROUNDS rounds (a fresh app each time); each row is the variant's median round.
"Decided without the store" counts, from the app's \`/metrics\` after each round (warm-up and measurement), the
decisions its store did not make (failed open, local fallback, unavailable): the Redis variant runs the example's
\`LOCAL_FALLBACK\`, under which a failing Redis would still answer 2xx.
EOF
  # The variants take turns, round after round, so that a slow spell of the machine falls on all of them;
  # the report shows each variant's median round.
  start_redis
  for round in $(seq 1 "$HTTP_ROUNDS"); do
    run_http nofilter "$round" "no filter (RATE_LIMIT_FILTER=off)" off "$ROOT/rate-limit-bench/http/limits.json" || true
    run_http memory "$round" "in-memory store" on "$ROOT/rate-limit-bench/http/limits.json" || true
    run_http redis "$round" "Redis store (local redis-server)" on "$ROOT/rate-limit-bench/http/limits.json" \
      "redis://127.0.0.1:$REDIS_PORT" || true
  done
  stop_pid "$REDIS_PID"
fi

# ---------------------------------------------------------------------------------------------
log "writing BENCHMARKS.md"
java -cp "$JAR" dev.ratelimit.bench.report.BenchmarksReport --results "$OUT" --out "$ROOT/BENCHMARKS.md" \
  --command "$COMMAND" --date "$STARTED" --mode "$MODE" --commit "$COMMIT"
log "done"
