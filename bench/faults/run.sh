#!/usr/bin/env bash
# Fault bench (issue #12): the suite's fault tests at full size. Ten SIGKILLs of the pipeline's process while 200k
# records stream in (ProcessCrashIngestionTest, which the suite runs with 4 kills and 120k records), then the broker
# killed mid-flow, the warehouse made unwritable and the registry database taken away (refused, then partitioned).
# Each test prints what it did; each fails on a lost or doubled record or a 500 / a hang.
# Usage: bench/faults/run.sh [kills] [records]
set -euo pipefail
cd "$(dirname "$0")/../.."
KILLS="${1:-10}"
RECORDS="${2:-200000}"
start=$(date +%s)
./mvnw -B -o test -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest='ProcessCrashIngestionTest,BrokerCrashPipelineTest,WarehouseFaultPipelineTest,RegistryOutageTest' \
  -Dtributary.crash.kills="$KILLS" -Dtributary.crash.records="$RECORDS" > target/fault-bench.log 2>&1 || rc=$?
grep -E "records, [0-9]+ kills|Tests run:|FAIL|ERROR\]" target/fault-bench.log || true
echo "fault bench: $(( $(date +%s) - start )) s, exit ${rc:-0} (full log: target/fault-bench.log)"
exit "${rc:-0}"
