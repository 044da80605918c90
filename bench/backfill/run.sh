#!/usr/bin/env bash
# Backfill merge benchmark: N backfill rows into N ingested rows with 10% shared keys, under a fixed heap.
#   bench/backfill/run.sh [rows (default 1000000)] [heap (default 512m)]
# Prints the merge's seconds and sampled peak heap, and its ratio to reading both tables once.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS="${1:-1000000}"
HEAP="${2:-512m}"
./mvnw -o -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test >/dev/null
exec java "-Xmx${HEAP}" -XX:+UseParallelGC \
  -cp "target/test-classes:target/classes:$(cat target/bench-classpath.txt)" \
  io.tributary.backfill.BackfillBench "$ROWS"
