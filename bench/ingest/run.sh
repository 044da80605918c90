#!/usr/bin/env bash
# Ingestion benchmark (issue #3): catch-up throughput against a plain KafkaConsumer, freshness at 5k records/s and
# peak heap. The broker runs in its own JVM so that only the ingesting JVM's heap is measured.
# Usage: bench/ingest/run.sh [records]   (default 1,000,000); BENCH_FORMATS, BENCH_TRIGGERS, BENCH_DIRECT: see below;
# BENCH_COLD=1 measures the first stream of a fresh JVM (the run prints the JIT's time and the classes loaded during it);
# warm: warm-up streams over the same topic run first until one spends under a tenth of its time in the JIT (at most
# BENCH_WARMUP_ROUNDS, default 8); BENCH_WARMUP=<records> sets their size (default: all the records measured);
# BENCH_JAVA_OPTS adds options to the measuring JVM (e.g. a JFR recording), BENCH_NO_FRESHNESS=1 skips freshness,
# BENCH_FENCE=<rounds> then runs the catch-up <rounds> times each without and with the write fence (every commit
# under StreamWriteLocks on an embedded PostgreSQL) and prints both medians, their ratio and the fence's own time.
# BENCH_RESCUE=<rounds> runs the catch-up <rounds> times each into a table without and with rescue_undecodable (the
# _rescued_data column; every bench record decodes) and prints both medians and their ratio (goal: at least 0.95).
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS="${1:-1000000}"
WORK="$(mktemp -d /tmp/tributary-bench.XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
BOOTSTRAP="127.0.0.1:${PORT}"

# The s3proxy jar the S3 tests copy is not needed here (and may be missing from an offline repository).
./mvnw -o -q test-compile -DskipTests
./mvnw -o -q dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" -Dmdep.includeScope=test
CP="target/classes:target/test-classes:$(cat "$WORK/cp.txt")"
JAVA_OPTS=(--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  -Djava.util.logging.manager=org.jboss.logmanager.LogManager
  -Dlogging.configuration="file:$PWD/src/test/resources/logging.properties")

java -Xmx1g "${JAVA_OPTS[@]}" -cp "$CP" io.tributary.server.IngestBench broker "$WORK/kafka" "$PORT" \
  > "$WORK/broker.log" 2>&1 &
BROKER=$!
trap 'kill $BROKER 2>/dev/null || true; wait $BROKER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do
  grep -q "broker ready" "$WORK/broker.log" && break
  sleep 0.5
done
grep -q "broker ready" "$WORK/broker.log" || { cat "$WORK/broker.log"; exit 1; }

# BENCH_FORMATS: the payloads to measure, each on its own topic and against the plain consumer on that topic:
# json (default, ~130 B), avro and protobuf (the same record shape), wide (~1 KB JSON, 30 fields, nested).
# BENCH_TRIGGERS: trigger intervals in ms for the freshness run (default 1000), e.g. BENCH_TRIGGERS=250,1000.
# BENCH_DIRECT=false writes through parquet-avro (the path before issue #17), for comparisons.
for FORMAT in ${BENCH_FORMATS:-json}; do
  java -Xmx512m "${JAVA_OPTS[@]}" -cp "$CP" io.tributary.server.IngestBench fill "$BOOTSTRAP" "bench_$FORMAT" "$RECORDS" \
    "$FORMAT"
  # shellcheck disable=SC2086
  java -Xmx512m "${JAVA_OPTS[@]}" -Dtributary.ingest.direct-write="${BENCH_DIRECT:-true}" ${BENCH_JAVA_OPTS:-} \
    -cp "$CP" io.tributary.server.IngestBench run "$BOOTSTRAP" "bench_$FORMAT" "$RECORDS" \
    "$WORK/warehouse_$FORMAT" "$FORMAT" 2>&1 | grep -v " WARN "
  export BENCH_NO_FRESHNESS=1 # freshness (JSON) once per run
done
