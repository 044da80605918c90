#!/usr/bin/env bash
# Feature views bench (issue #16): the packaged server (a broker of its own on a free port, the server's embedded
# Kafka started apart; the registry and online database a fresh database of the machine's PostgreSQL) with a stream and a
# feature view over KEYS entities (count, sum, avg over tumbling 1s, sliding 1m/10s and rolling 5m windows of the
# records' own event time). RATE records/s are produced for the whole run; printed: the view's lag behind the source
# (status lag_ms, sampled every second) p50/p99, freshness (a probe record produced -> its 1 s window's count visible in
# a lookup; includes the wait for the window to end, up to 1 s) p50/p99, and 1-key lookup latency p50/p99 at
# LOOKUP_RATE requests/s over loopback HTTP, then the same lookups once production has stopped (the serving path alone),
# the server's GC pauses during both and its CPU per lookup.
# MODE=catchup instead: KEYS records, one per entity, produced as a backlog and ingested (the baseline rate), then the
# view created over them: its first round's rate against the ingestion's, e.g. KEYS=1000000 SERVER_HEAP=512m.
# Either way the server's heap is sampled every second (jstat): peak used and peak old generation are printed.
#   bench/features/run.sh [--no-build]   env: RATE (2000), KEYS (10000), LOOKUP_SECONDS (20), LOOKUP_RATE (1000),
#   SETTLE_SECONDS (15: production before anything is measured but the settling freshness), STEADY_SECONDS (5: then
#   freshness and the server's CPU without lookups), MODE (live | catchup), SERVER_HEAP (2g), PORT (18096), PGHOSTPORT (127.0.0.1:5432, user postgres),
#   SERVER_APP (target/quarkus-app: another build's quarkus-app directory, for a before/after pair on one machine state)
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE=${RATE:-2000}
KEYS=${KEYS:-10000}
LOOKUP_SECONDS=${LOOKUP_SECONDS:-20}
LOOKUP_RATE=${LOOKUP_RATE:-1000}
PORT=${PORT:-18096}
PGHOSTPORT=${PGHOSTPORT:-127.0.0.1:5432}
MODE=${MODE:-live}
SERVER_HEAP=${SERVER_HEAP:-2g}
SERVER_APP=$(realpath "${SERVER_APP:-target/quarkus-app}")
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=$(mktemp -d /tmp/tributary-features.XXXXXX)
source bench/lib/broker.sh
start_broker "$WORK"
DB=features_bench_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "CREATE DATABASE $DB" postgres
TOKEN=features-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "server data and log in $WORK, database $DB, broker $BOOTSTRAP"
(cd "$WORK" && exec env TRIBUTARY_LOCAL=false TRIBUTARY_AUTH_TOKENS="bench=$TOKEN" TRIBUTARY_ADMINS=bench \
  TRIBUTARY_SECRETS_KEY="$(head -c 32 /dev/urandom | base64)" \
  QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://$PGHOSTPORT/$DB" QUARKUS_DATASOURCE_USERNAME=postgres \
  QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$WORK/warehouse" \
  java -Xmx"$SERVER_HEAP" ${SERVER_JAVA_OPTS:-} -jar "$SERVER_APP/quarkus-run.jar" >> "$WORK/server.log" 2>&1) &
SERVER=$!
cleanup() {
  kill $JSTAT 2>/dev/null || true
  kill $SERVER 2>/dev/null || true
  # A server thrashing in GC (catch-up mode at a small heap) may not stop on TERM.
  for _ in $(seq 1 20); do kill -0 $SERVER 2>/dev/null || break; sleep 1; done
  kill -9 $SERVER 2>/dev/null || true
  wait $SERVER 2>/dev/null || true
  kill $KAFKA 2>/dev/null || true
  wait $KAFKA 2>/dev/null || true
  psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" postgres || true
}
trap cleanup EXIT
source bench/lib/server.sh
wait_ready "http://127.0.0.1:$PORT" "$WORK/server.log"
CP=$(ls target/quarkus-app/lib/main/org.apache.kafka.kafka-clients-*.jar target/quarkus-app/lib/main/org.slf4j.slf4j-api-*.jar \
  target/quarkus-app/lib/main/io.vertx.vertx-core-*.jar target/quarkus-app/lib/main/io.netty.netty-*.jar \
  target/quarkus-app/lib/main/org.postgresql.postgresql-*.jar | paste -sd:)
# S0U S1U EU OU (KB) each second, with the time, for the peak heap of the whole run and of each phase.
(jstat -gc "$SERVER" 1000 | awk '{ print systime(), $0; fflush() }' > "$WORK/heap.log") &
JSTAT=$!
echo "load: $(uptime)"
set +e
java ${BENCH_CLIENT_OPTS:-} -Dsettle.seconds="${SETTLE_SECONDS:-15}" -Dsteady.seconds="${STEADY_SECONDS:-5}" -cp "$CP" bench/features/FeaturesBench.java "http://127.0.0.1:$PORT" "$TOKEN" "$BOOTSTRAP" \
  "$RATE" "$KEYS" "$LOOKUP_SECONDS" "$LOOKUP_RATE" "$MODE" "$SERVER" | tee "$WORK/bench.out"
rc=${PIPESTATUS[0]}
set -e
echo "load: $(uptime)"
from=$(awk '/^phase view-created/ { print int($3 / 1000) }' "$WORK/bench.out")
awk -v from="${from:-0}" '$2 ~ /^[0-9.]+$/ { used = ($4 + $5 + $7 + $9) / 1024; old = $9 / 1024;
    if (used > peak) peak = used; if (old > peakOld) peakOld = old;
    if ($1 >= from) { if (used > vpeak) vpeak = used; if (old > vpeakOld) vpeakOld = old } }
  END { printf "server heap (-Xmx'"$SERVER_HEAP"'): peak used %.0f MB, peak old generation %.0f MB", peak, peakOld;
    if (from > 0) printf "; from the view'"'"'s creation on: peak used %.0f MB, old %.0f MB", vpeak, vpeakOld;
    printf "\n" }' "$WORK/heap.log"
grep -c 'OutOfMemoryError' "$WORK/server.log" | sed 's/^/OutOfMemoryError lines in the server log: /' || true
echo "server errors logged: $(grep -c ' ERROR ' "$WORK/server.log" || true)"
exit $rc
