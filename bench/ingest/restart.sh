#!/usr/bin/env bash
# Cold catch-up as a user meets it (issue #17's "≥ 0.3× cold from a restart"): the packaged server, stopped, comes back
# over a backlog of RECORDS JSON records (default 1,000,000) on 6 partitions of its stream's topic; printed: the time
# from its readiness (/q/health/ready) to the last committed offset, and the ratio to a plain KafkaConsumer reading the
# same backlog in a fresh JVM in the same run. The broker is the server's embedded Kafka in a process of its own; the
# registry a fresh database of the machine's PostgreSQL (PGHOSTPORT, user postgres).
#   bench/ingest/restart.sh [--no-build]   env: RECORDS, SERVER_HEAP (512m), SERVER_JAVA_OPTS, PORT (18096),
#   BROKER_REBALANCE_DELAY_MS (the broker's group.initial.rebalance.delay.ms: 0 as in local mode; Kafka's default,
#   which most clusters keep, is 3000, and a restarted server's consumer group waits that long before it reads),
#   JAVA (the server's java; default: java on the PATH),
#   AOT=1 (JDK 25 or later, README "Faster cold starts"): three passes, each on a topic and database of its own: a
#   training pass whose server writes an AOT cache (-XX:AOTCacheOutput) as it stops, then the measured restart without
#   the cache and with it (-XX:AOTCache), each against its own plain consumer.
#   CDS=1 (any JDK, Java 17 included; README "Faster cold starts"): the same three passes with a dynamic AppCDS archive
#   instead (-XX:ArchiveClassesAtExit as the training server stops, then -XX:SharedArchiveFile).
#   COMPARE_OPTS="<JVM options>": two passes, the restarted server without those options and with them (with them
#   first when COMPARE_REVERSE=1), each on a topic and database of its own against its own plain consumer.
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-1000000}
PORT=${PORT:-18096}
PGHOSTPORT=${PGHOSTPORT:-127.0.0.1:5432}
JAVA=${JAVA:-java}
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
if [[ "${AOT:-}" == 1 ]]; then
  version=$("$JAVA" -XX:+PrintFlagsFinal -version 2>/dev/null | grep -c ' AOTCacheOutput ' || true)
  [[ "$version" -ge 1 ]] || { echo "AOT=1 needs a JDK 25 or later as JAVA (-XX:AOTCacheOutput); $JAVA is not"; exit 1; }
fi
WORK=$(mktemp -d /tmp/tributary-restart.XXXXXX)
source bench/lib/broker.sh
start_broker "$WORK"
source bench/lib/server.sh
SERVER=
DBS=()
cleanup() {
  [[ -n "$SERVER" ]] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  kill $KAFKA 2>/dev/null || true
  wait $KAFKA 2>/dev/null || true
  for db in "${DBS[@]}"; do
    psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
      postgres || true
  done
}
trap cleanup EXIT
TOKEN=restart-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
SECRETS_KEY="$(head -c 32 /dev/urandom | base64)"
CP=$(ls target/quarkus-app/lib/main/org.apache.kafka.kafka-clients-*.jar target/quarkus-app/lib/main/org.slf4j.slf4j-api-*.jar \
  | paste -sd:)
BASE="http://127.0.0.1:$PORT"
echo "server data and logs under $WORK, broker $BOOTSTRAP"

# start_server DIR DB OPTS: the packaged server on DIR's warehouse and the database DB, with OPTS for its JVM.
start_server() {
  (cd "$1" && exec env TRIBUTARY_LOCAL=false TRIBUTARY_AUTH_TOKENS="bench=$TOKEN" TRIBUTARY_ADMINS=bench \
    TRIBUTARY_SECRETS_KEY="$SECRETS_KEY" \
    QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://$PGHOSTPORT/$2" QUARKUS_DATASOURCE_USERNAME=postgres \
    QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_WAREHOUSE="$1/warehouse" \
    "$JAVA" "-Xmx${SERVER_HEAP:-512m}" ${SERVER_JAVA_OPTS:-} $3 -jar "$OLDPWD/target/quarkus-app/quarkus-run.jar" \
    >> "$1/server.log" 2>&1) &
  SERVER=$!
}

# pass NAME OPTS: a stream over an empty topic, the server stopped, the backlog filled and read by the plain consumer,
# the server started again with OPTS and timed from its readiness to the backlog's last committed offset.
pass() {
  local dir="$WORK/$1" topic="restart-bench-$1"
  local db=restart_bench_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
  mkdir -p "$dir"
  DBS+=("$db")
  psql -h "${PGHOSTPORT%:*}" -p "${PGHOSTPORT#*:}" -U postgres -qc "CREATE DATABASE $db" postgres
  echo "== pass $1${2:+ (server JVM: $2)}"
  start_server "$dir" "$db" ""
  wait_ready "$BASE" "$dir/server.log"
  java -cp "$CP" bench/ingest/RestartBench.java setup "$BASE" "$TOKEN" "$BOOTSTRAP" "$topic"
  sleep 5 # the stream's pipeline starts and joins its group over the empty topic
  kill -TERM "$SERVER"
  wait "$SERVER" || true
  SERVER=
  java -cp "$CP" bench/ingest/RestartBench.java fill "$BOOTSTRAP" "$topic" "$RECORDS"
  local plain
  plain=$(java -cp "$CP" bench/ingest/RestartBench.java plain "$BOOTSTRAP" "$topic" "$RECORDS" | tee /dev/stderr \
    | tail -1)
  export SERVER_STARTED_MS=$(date +%s%3N)
  start_server "$dir" "$db" "$2"
  java -cp "$CP" bench/ingest/RestartBench.java measure "$BASE" "$TOKEN" "$RECORDS" "$plain"
  # Stopped here rather than at the end: a training server writes its cache as it exits.
  kill -TERM "$SERVER"
  wait "$SERVER" || true
  SERVER=
  echo "server errors logged: $(grep -c ' ERROR ' "$dir/server.log" || true)"
}

# trained WHAT FILE WRITE_OPT USE_OPT NAME: a training pass whose server writes FILE as it stops, then the restart
# without it and with it (the pass named NAME).
trained() {
  pass training "$3=$WORK/$2"
  [[ -s "$WORK/$2" ]] || { echo "the training pass wrote no $1; see $WORK/training/server.log"; exit 1; }
  echo "$1: $(du -h "$WORK/$2" | cut -f1)"
  pass plain-jvm ""
  pass "$5" "$4=$WORK/$2"
}

if [[ "${CDS:-}" == 1 ]]; then
  trained "CDS archive" app.jsa -XX:ArchiveClassesAtExit -XX:SharedArchiveFile cds-archive
elif [[ -n "${COMPARE_OPTS:-}" ]]; then
  if [[ "${COMPARE_REVERSE:-}" == 1 ]]; then
    pass with-opts "$COMPARE_OPTS"
    pass without ""
  else
    pass without ""
    pass with-opts "$COMPARE_OPTS"
  fi
elif [[ "${AOT:-}" == 1 ]]; then
  trained "AOT cache" app.aot -XX:AOTCacheOutput -XX:AOTCache aot-cache
else
  pass restart ""
fi
echo "machine load average: $(cut -d' ' -f1-3 /proc/loadavg)"
