#!/usr/bin/env bash
# Lambda cold-start bench (issue 11): for each function, the JVM-mode cold start (process start to the first answered
# invocation through the Lambda Runtime API) of its function.zip, started as the integration tests start it
# (PackagedFunction), against a trivial JVM runtime client measured the same way in the same run; for ingest also
# the warm time of a 6 MB MSK batch; and the zip sizes; each against issue 11's goal (zip <= 80 MB, cold start <= 2 s,
# warm 6 MB batch <= 1 s). Needs no AWS: PostgreSQL and Kafka are the tests' embedded ones. Maven and every JVM run
# at nice 19 (the machine is shared): the figures move with the load, which is printed before and after.
#   bench/lambda/run.sh [--no-build] [rounds=3]
#   env: BENCH_KEEP_LOGS=1 (keep the functions' logs), BENCH_JVM_OPTS (extra JVM options of the functions), BENCH_APPCDS=1 (train a dynamic AppCDS archive per
#   function first, then start every round with it), BENCH_FUNCTIONS (default "stream-api backfill ingest")
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=1
if [[ "${1:-}" == "--no-build" ]]; then BUILD=0; shift; fi
ROUNDS="${1:-3}"
# backfill before ingest: its first tick would otherwise compact the bench stream the ingest rounds wrote.
FUNCTIONS=${BENCH_FUNCTIONS:-stream-api backfill ingest}
WORK="$(mktemp -d /tmp/tributary-lambda-bench.XXXXXX)"
trap '[[ -n "${BENCH_KEEP_LOGS:-}" ]] && echo "logs kept in $WORK/logs" || rm -rf "$WORK"' EXIT

# One build at a time: each takes 1-2 minutes on a 2-core machine. The bench driver lives in the ingest build's tests.
for f in $FUNCTIONS ingest; do
  if [[ $BUILD == 1 || ! -f target/$f/function.zip ]]; then
    nice -n 19 ./mvnw -B -q package -DskipTests -Dfunction="$f"
  fi
done
nice -n 19 ./mvnw -B -q -o test-compile dependency:build-classpath -Dfunction=ingest -Dmdep.outputFile="$WORK/cp.txt" \
  -Dmdep.includeScope=test
CP="target/ingest/classes:target/ingest/test-classes:$(cat "$WORK/cp.txt")"

ARGS=()
for f in $FUNCTIONS; do ARGS+=("$f=target/$f"); done
PROPS=(-Dbench.log-dir="$WORK/logs" -Dbench.jvm-options="${BENCH_JVM_OPTS:-}")
if [[ "${BENCH_APPCDS:-0}" == 1 ]]; then PROPS+=(-Dbench.appcds-dir="$WORK"); fi

echo "machine: $(nproc) cores, shared with other work; uptime: $(uptime)"
for f in $FUNCTIONS; do
  bytes=$(stat -c %s "target/$f/function.zip")
  verdict=$([[ $bytes -le 80000000 ]] && echo met || echo "NOT met")
  printf '%-10s function.zip %6.1f MB; goal <= 80 MB: %s\n' "$f" "$(echo "$bytes / 1000000" | bc -l)" "$verdict"
done
nice -n 19 java -Xmx1g --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
  -Dlogging.configuration="file:$PWD/src/test/resources/logging.properties" "${PROPS[@]}" \
  -cp "$CP" io.tributary.lambda.ingest.LambdaBench "$ROUNDS" "${ARGS[@]}" 2>&1 | grep --line-buffered -E "^(baseline|stream-api|ingest|backfill|FAILED)"
echo "uptime after: $(uptime)"
