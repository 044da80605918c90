#!/usr/bin/env bash
# Several servers on one warehouse (issue #12, item 5): three server processes share a 6-partition stream at
# 3,000 records/s through its consumer group, one is killed with SIGKILL, and the table must hold exactly the produced
# records. Prints how soon the partitions were spread over joining servers, how soon the survivors held a killed
# server's partitions, and the records each server committed. Exits non-zero when any check fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -B -q -o test-compile
./mvnw -B -o surefire:test -Dtest=MultiServerIngestionCheck -Dsurefire.failIfNoSpecifiedTests=false \
  | tee "${TMPDIR:-/tmp}/tributary-multi-server.log" | grep -E "partitions spread|killed a server|records, committed|Tests run:|FAIL|no .* within"
