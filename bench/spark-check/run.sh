#!/usr/bin/env bash
# Independent check that Spark + delta-spark read an ingestion table exactly as Tributary meant it (issue #3):
# the ingestion core writes a table and the rows it expects (SparkCheckTableWriter, main project's test classpath),
# then Spark reads the table with both of its Parquet readers and compares rows and schema (reader/ReadAndCompare).
# Exits non-zero on any mismatch or read failure. Needs the Spark jars in ~/.m2 (run once with MAVEN_FLAGS=-q online).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
mvn_flags="${MAVEN_FLAGS:--o -q}"
out="$root/target/spark-check"

./mvnw $mvn_flags test-compile
./mvnw $mvn_flags dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$root/target/spark-check.classpath"
java -cp "target/test-classes:target/classes:$(cat target/spark-check.classpath)" \
    io.tributary.bench.SparkCheckTableWriter "$out"

reader="$root/bench/spark-check/reader"
./mvnw $mvn_flags -f "$reader/pom.xml" compile dependency:build-classpath \
    -Dmdep.outputFile="$reader/target/reader.classpath"
# The flags Spark needs on Java 17 (as in bench/backfill/fixtures/pom.xml).
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
    io.tributary.sparkcheck.ReadAndCompare "$out"
