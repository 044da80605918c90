#!/usr/bin/env bash
# Load bench (issue #12): the packaged server in local mode (embedded PostgreSQL and Kafka under a temporary data
# directory; port 9092 must be free) gets RATE requests/s of mixed reads and writes for BENCH_SECONDS while STREAMS
# streams ingest at once (RECORDS_PER_SECOND in all), against a GET /q/health/ready baseline at the same rate.
# A warm-up of WARMUP_SECONDS of the same traffic comes first and is not counted (0 measures the cold server).
#   bench/load/run.sh [--no-build]   env: RATE (500), BENCH_SECONDS (60), STREAMS (20), RECORDS_PER_SECOND (2000),
#   WARMUP_SECONDS (30), PORT (18091)
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE=${RATE:-500}
SECONDS_PER_RUN=${BENCH_SECONDS:-60}
STREAMS=${STREAMS:-20}
RECORDS_PER_SECOND=${RECORDS_PER_SECOND:-2000}
PORT=${PORT:-18091}
WARMUP=${WARMUP_SECONDS:-30}
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=$(mktemp -d /tmp/tributary-load.XXXXXX)
TOKEN=load-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "server data and log in $WORK"
(cd "$WORK" && exec env TRIBUTARY_LOCAL=true TRIBUTARY_AUTH_TOKENS="load=$TOKEN" TRIBUTARY_ADMINS=load \
  QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$WORK/warehouse" \
  java -Xmx2g ${SERVER_JAVA_OPTS:-} -jar "$OLDPWD/target/quarkus-app/quarkus-run.jar" >> "$WORK/server.log" 2>&1) &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null' EXIT
source bench/lib/server.sh
wait_ready "http://127.0.0.1:$PORT" "$WORK/server.log"
CP=$(ls target/quarkus-app/lib/main/org.apache.kafka.kafka-clients-*.jar target/quarkus-app/lib/main/org.slf4j.slf4j-api-*.jar \
  target/quarkus-app/lib/main/io.vertx.vertx-core-*.jar target/quarkus-app/lib/main/io.netty.netty-*.jar | paste -sd:)
java -cp "$CP" bench/load/LoadBench.java "http://127.0.0.1:$PORT" "$TOKEN" localhost:9092 "$STREAMS" "$RATE" \
  "$SECONDS_PER_RUN" "$RECORDS_PER_SECOND" "$WARMUP"
rc=$?
echo "server errors logged: $(grep -c ' ERROR ' "$WORK/server.log" || true)"
exit $rc
