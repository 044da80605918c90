#!/usr/bin/env bash
# Cold catch-up as a user meets it (issue #17's "≥ 0.3× cold from a restart"): the packaged server, stopped, comes back
# over a backlog of RECORDS JSON records (default 1,000,000) on 6 partitions of its stream's topic; printed: the time
# from its readiness (/q/health/ready) to the last committed offset, and the ratio to a plain KafkaConsumer reading the
# same backlog in a fresh JVM in the same run. The broker is the server's embedded Kafka in a process of its own; the
# registry a fresh database of the machine's PostgreSQL (PGHOSTPORT, user postgres).
#   bench/ingest/restart.sh [--no-build]   env: RECORDS, SERVER_HEAP (512m), SERVER_JAVA_OPTS, PORT (18096),
#   BROKER_REBALANCE_DELAY_MS (the broker's group.initial.rebalance.delay.ms: 0 as in local mode; Kafka's default,
#   which most clusters keep, is 3000, and a restarted server's consumer group waits that long before it reads)
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-1000000}
PORT=${PORT:-18096}
PGHOSTPORT=${PGHOSTPORT:-127.0.0.1:5432}
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=$(mktemp -d /tmp/tributary-restart.XXXXXX)
source bench/lib/broker.sh
start_broker "$WORK"
SERVER=
DB=restart_bench_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
cleanup() {
  [[ -n "$SERVER" ]] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  kill $KAFKA 2>/dev/null || true
  wait $KAFKA 2>/dev/null || true
  psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" postgres || true
}
trap cleanup EXIT
psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "CREATE DATABASE $DB" postgres
TOKEN=restart-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
SECRETS_KEY="$(head -c 32 /dev/urandom | base64)"
echo "server data and log in $WORK, database $DB, broker $BOOTSTRAP"
start_server() {
  (cd "$WORK" && exec env TRIBUTARY_LOCAL=false TRIBUTARY_AUTH_TOKENS="bench=$TOKEN" TRIBUTARY_ADMINS=bench \
    TRIBUTARY_SECRETS_KEY="$SECRETS_KEY" \
    QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://$PGHOSTPORT/$DB" QUARKUS_DATASOURCE_USERNAME=postgres \
    QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$WORK/warehouse" \
    java "-Xmx${SERVER_HEAP:-512m}" ${SERVER_JAVA_OPTS:-} -jar "$OLDPWD/target/quarkus-app/quarkus-run.jar" \
    >> "$WORK/server.log" 2>&1) &
  SERVER=$!
}
CP=$(ls target/quarkus-app/lib/main/org.apache.kafka.kafka-clients-*.jar target/quarkus-app/lib/main/org.slf4j.slf4j-api-*.jar \
  | paste -sd:)
BASE="http://127.0.0.1:$PORT"
start_server
source bench/lib/server.sh
wait_ready "$BASE" "$WORK/server.log"
java -cp "$CP" bench/ingest/RestartBench.java setup "$BASE" "$TOKEN" "$BOOTSTRAP" restart-bench
sleep 5 # the stream's pipeline starts and joins its group over the empty topic
kill -TERM "$SERVER"
wait "$SERVER" || true
SERVER=
java -cp "$CP" bench/ingest/RestartBench.java fill "$BOOTSTRAP" restart-bench "$RECORDS"
PLAIN=$(java -cp "$CP" bench/ingest/RestartBench.java plain "$BOOTSTRAP" restart-bench "$RECORDS" | tee /dev/stderr | tail -1)
export SERVER_STARTED_MS=$(date +%s%3N)
start_server
java -cp "$CP" bench/ingest/RestartBench.java measure "$BASE" "$TOKEN" "$RECORDS" "$PLAIN"
echo "machine load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server errors logged: $(grep -c ' ERROR ' "$WORK/server.log" || true)"
