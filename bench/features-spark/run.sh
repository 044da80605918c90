#!/usr/bin/env bash
# Feature views against Spark SQL (issue #16): the ingestion core writes an ingestion table and the real Materializer
# turns it into an offline feature table in rounds (FeatureSparkCheckWriter, main project's test classpath; online state
# in a fresh database of the machine's PostgreSQL), then Spark SQL computes every feature from the ingestion table alone
# and compares it value by value with the offline table (bench/spark-check/reader's FeatureViewCheck).
# Exits non-zero on any difference. Needs the Spark jars in ~/.m2 (run once with MAVEN_FLAGS=-q online).
#   bench/features-spark/run.sh        env: PGHOSTPORT (127.0.0.1:5432, user postgres), MAVEN_FLAGS (-o -q)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
mvn_flags="${MAVEN_FLAGS:--o -q}"
out="$root/target/features-spark"

./mvnw $mvn_flags test-compile
./mvnw $mvn_flags dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$root/target/spark-check.classpath"
java -cp "target/test-classes:target/classes:$(cat target/spark-check.classpath)" \
    io.tributary.bench.FeatureSparkCheckWriter "$out" "${PGHOSTPORT:-127.0.0.1:5432}"

reader="$root/bench/spark-check/reader"
./mvnw $mvn_flags -f "$reader/pom.xml" compile dependency:build-classpath \
    -Dmdep.outputFile="$reader/target/reader.classpath"
# The flags Spark needs on Java 17 (as in bench/spark-check/run.sh).
java \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED \
    --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/java.net=ALL-UNNAMED \
    --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED \
    --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.cs=ALL-UNNAMED \
    --add-opens=java.base/sun.security.action=ALL-UNNAMED \
    --add-opens=java.base/sun.util.calendar=ALL-UNNAMED \
    -Djdk.reflect.useDirectMethodHandle=false \
    -Duser.timezone=UTC \
    -cp "$reader/target/classes:$(cat "$reader/target/reader.classpath")" \
    io.tributary.sparkcheck.FeatureViewCheck "$out"
