#!/usr/bin/env bash
# API latency benchmark: builds the all-in-one server (unless --no-build), starts it in local mode (embedded
# PostgreSQL and Kafka under a temporary data directory; port 9092 must be free), registers STREAMS streams through
# the API, then measures GET and list latency at RATE requests/s against a GET /q/health/ready baseline.
#   bench/api/run.sh [--no-build]      env: STREAMS (10000), RATE (200), BENCH_SECONDS (30), PORT (18090),
#   BENCH_DATA (a data directory of an earlier run to reuse: its streams are not registered again, and the server
#   starts with them all registered, as after a restart), BENCH_SETTLE (seconds to wait after the server is ready)
set -euo pipefail
cd "$(dirname "$0")/../.."
STREAMS=${STREAMS:-10000}
RATE=${RATE:-200}
# Not SECONDS: bash keeps its own counter under that name.
SECONDS_PER_RUN=${BENCH_SECONDS:-30}
PORT=${PORT:-18090}
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=${BENCH_DATA:-$(mktemp -d /tmp/tributary-bench.XXXXXX)}
TOKEN=bench-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "server data and log in $WORK"
(cd "$WORK" && exec env TRIBUTARY_LOCAL=true TRIBUTARY_AUTH_TOKENS="bench=$TOKEN" QUARKUS_HTTP_PORT="$PORT" \
  QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$WORK/warehouse" \
  java -Xmx2g -jar "$OLDPWD/target/quarkus-app/quarkus-run.jar" >> "$WORK/server.log" 2>&1) &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null' EXIT
source bench/lib/server.sh
wait_ready "http://127.0.0.1:$PORT" "$WORK/server.log"
# A restarted server first reads every table's position in the background; BENCH_SETTLE seconds let that finish.
sleep "${BENCH_SETTLE:-0}"
# The client uses the packaged Kafka client to create the streams' topic on the embedded broker.
CP=$(ls target/quarkus-app/lib/main/org.apache.kafka.kafka-clients-*.jar target/quarkus-app/lib/main/org.slf4j.slf4j-api-*.jar | paste -sd:)
java -cp "$CP" bench/api/ApiBench.java "http://127.0.0.1:$PORT" "$TOKEN" "$STREAMS" localhost:9092 "$RATE" "$SECONDS_PER_RUN"
