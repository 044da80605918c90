#!/usr/bin/env bash
# Synced tables bench (issue #15): the packaged server (a broker of its own on a free port, the server's embedded
# Kafka started apart; the registry and online database a fresh database of the machine's PostgreSQL) with a stream whose CONTINUOUS
# synced table covers KEYS keys. RATE records/s are produced for the whole run; printed: the sync delay (record
# produced -> row visible in PostgreSQL) p50/p99, and lookup latency p50/p99 for 1 and 100 keys at LOOKUP_RATE
# requests/s over loopback HTTP, next to a plain primary-key SELECT over JDBC at the same rate on the same table.
# Then, with production stopped and the sync caught up, the 1-key lookups and the SELECT once more (the serving
# path without ingestion competing for the CPUs), and the server's GC pauses during both 1-key phases.
#   bench/online/run.sh [--no-build]   env: RATE (5000), KEYS (100000), LOOKUP_SECONDS (20), LOOKUP_RATE (1000),
#   PORT (18095), PGURL (postgresql://127.0.0.1:5432, user postgres)
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE=${RATE:-5000}
KEYS=${KEYS:-100000}
LOOKUP_SECONDS=${LOOKUP_SECONDS:-20}
LOOKUP_RATE=${LOOKUP_RATE:-1000}
PORT=${PORT:-18095}
PGHOSTPORT=${PGHOSTPORT:-127.0.0.1:5432}
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=$(mktemp -d /tmp/tributary-online.XXXXXX)
source bench/lib/broker.sh
start_broker "$WORK"
DB=online_bench_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "CREATE DATABASE $DB" postgres
TOKEN=online-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "server data and log in $WORK, database $DB, broker $BOOTSTRAP"
(cd "$WORK" && exec env TRIBUTARY_LOCAL=false TRIBUTARY_AUTH_TOKENS="bench=$TOKEN" TRIBUTARY_ADMINS=bench \
  TRIBUTARY_SECRETS_KEY="$(head -c 32 /dev/urandom | base64)" \
  QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://$PGHOSTPORT/$DB" QUARKUS_DATASOURCE_USERNAME=postgres \
  QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$WORK/warehouse" \
  java -Xmx2g ${SERVER_JAVA_OPTS:-} -jar "$OLDPWD/target/quarkus-app/quarkus-run.jar" >> "$WORK/server.log" 2>&1) &
SERVER=$!
cleanup() {
  kill $SERVER 2>/dev/null || true
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
java ${BENCH_CLIENT_OPTS:-} -cp "$CP" bench/online/OnlineBench.java "http://127.0.0.1:$PORT" "$TOKEN" "$BOOTSTRAP" \
  "jdbc:postgresql://$PGHOSTPORT/$DB?user=postgres" "$RATE" "$KEYS" "$LOOKUP_SECONDS" "$LOOKUP_RATE" "$SERVER"
rc=$?
echo "server errors logged: $(grep -c ' ERROR ' "$WORK/server.log" || true)"
exit $rc
