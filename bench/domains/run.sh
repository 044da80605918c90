#!/usr/bin/env bash
# Commit time against the number of position domains a table holds (one per Kafka partition or direct-ingest
# producer): for each of DOMAINS (6 2000) and STORAGE (local s3: S3Proxy in a child process), the build's rule (no
# version checksum above 500 domains) against the baseline of a checksum at every commit, each in a JVM of its own.
# Prints each median and the ratio of the rule to the baseline.
#   bench/domains/run.sh        env: DOMAINS ("6 2000"), STORAGE ("local s3")
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -o -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench-classpath.txt)"
echo "load: $(uptime)"
for n in ${DOMAINS:-6 2000}; do
  for storage in ${STORAGE:-local s3}; do
    base=$(java -Dtributary.delta.checksum-max-domains=2147483647 -cp "$CP" io.tributary.delta.DomainsBench "$n" "$storage" 2>/dev/null | grep '^RESULT')
    rule=$(java -cp "$CP" io.tributary.delta.DomainsBench "$n" "$storage" 2>/dev/null | grep '^RESULT')
    echo "baseline (a checksum at every commit): ${base#RESULT }"
    echo "this build:                            ${rule#RESULT }"
    b=$(sed -E 's/.*median ([0-9]+) ms.*/\1/' <<< "$base"); r=$(sed -E 's/.*median ([0-9]+) ms.*/\1/' <<< "$rule")
    awk -v b="$b" -v r="$r" -v n="$n" -v s="$storage" 'BEGIN { printf "domains=%s %s: median %.2fx the baseline\n", n, s, (b > 0 ? r / b : 0) }'
  done
done
echo "load: $(uptime)"
