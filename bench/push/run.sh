#!/usr/bin/env bash
# Direct-ingest bench (issue #14): the packaged server in local mode (embedded PostgreSQL and Kafka under a temporary
# data directory; port 9092 must be free); 1, 10 and 100 concurrent producers push RECORDS records each run in
# batches of BATCH over loopback HTTP into one direct stream (records/s, MB/s, acknowledgement p50/p99: the answer
# comes after the commit, so acknowledged = readable), then the same RECORDS records go through Kafka into a Kafka
# stream of the same server (catch-up rate), all in one run. Each level runs over HTTP and over the streaming
# connection (a WebSocket per producer, INFLIGHT batches in flight), each on a stream of its own.
#   bench/push/run.sh [--no-build]   env: RECORDS (200000), BATCH (100), LEVELS (1,10,100), MODES (http,ws),
#   INFLIGHT (4), PORT (18093), SERVER_JAVA_OPTS (e.g. -Dtributary.direct.group-commit-wait=20ms),
#   APP (target/quarkus-app: which packaged server to run, e.g. a copy of an earlier build to compare)
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-200000}
BATCH=${BATCH:-100}
LEVELS=${LEVELS:-1,10,100}
MODES=${MODES:-http,ws}
INFLIGHT=${INFLIGHT:-4}
PORT=${PORT:-18093}
APP=$(realpath "${APP:-target/quarkus-app}")
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=$(mktemp -d /tmp/tributary-push.XXXXXX)
TOKEN=push-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "server data and log in $WORK; load before: $(uptime)"
# shellcheck disable=SC2086
(cd "$WORK" && exec env TRIBUTARY_LOCAL=true TRIBUTARY_AUTH_TOKENS="push=$TOKEN" TRIBUTARY_ADMINS=push \
  QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$WORK/warehouse" \
  java -Xmx2g ${SERVER_JAVA_OPTS:-} -jar "$APP/quarkus-run.jar" >> "$WORK/server.log" 2>&1) &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null' EXIT
source bench/lib/server.sh
wait_ready "http://127.0.0.1:$PORT" "$WORK/server.log"
CP=$(ls "$APP"/lib/main/org.apache.kafka.kafka-clients-*.jar "$APP"/lib/main/org.slf4j.slf4j-api-*.jar | paste -sd:)
set +e
java -cp "$CP" bench/push/PushBench.java "http://127.0.0.1:$PORT" "$TOKEN" localhost:9092 "$RECORDS" "$BATCH" "$LEVELS" "$MODES" "$INFLIGHT"
rc=$?
set -e
echo "load after: $(uptime)"
echo "server errors logged: $(grep -c ' ERROR ' "$WORK/server.log" || true)"
kill $SERVER 2>/dev/null || true
wait $SERVER 2>/dev/null || true
trap - EXIT
exit $rc
