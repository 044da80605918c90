#!/usr/bin/env bash
# A stream's GET where this process does not run its pipeline (a direct stream between pushes here; on AWS every GET,
# whose stream-api reads the table on S3): the status comes from the table's log. Starts the packaged server in local
# mode, gives a direct stream COMMITS commits of 100 records, then measures GET of the stream against GET
# /q/health/ready, each closed loop on one connection for 10 s after 5 s of warm-up, with the server's CPU per request.
# Needs wrk (Debian: apt-get install wrk).
#   bench/api/status.sh [--no-build]   env: COMMITS (300), PORT (18091), SERVER_APP (target/quarkus-app: another
#   build's quarkus-app directory, for a before/after pair)
set -euo pipefail
cd "$(dirname "$0")/../.."
COMMITS=${COMMITS:-300}
PORT=${PORT:-18091}
SERVER_APP=$(realpath "${SERVER_APP:-target/quarkus-app}")
command -v wrk > /dev/null || { echo "needs wrk (Debian: apt-get install wrk)"; exit 1; }
if [[ "${1:-}" != "--no-build" ]]; then
  ./mvnw -q -o package -DskipTests
fi
WORK=$(mktemp -d /tmp/tributary-status.XXXXXX)
TOKEN=bench-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "server data and log in $WORK"
(cd "$WORK" && exec env TRIBUTARY_LOCAL=true TRIBUTARY_AUTH_TOKENS="bench=$TOKEN" TRIBUTARY_ADMINS=bench \
  QUARKUS_HTTP_PORT="$PORT" QUARKUS_HTTP_HOST=127.0.0.1 TRIBUTARY_DATA_DIR="$WORK/data" KAFKA_PORT=0 \
  java -Xmx1g -jar "$SERVER_APP/quarkus-run.jar" >> "$WORK/server.log" 2>&1) &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null' EXIT
source bench/lib/server.sh
wait_ready "http://127.0.0.1:$PORT" "$WORK/server.log"
API=http://127.0.0.1:$PORT/api/2.0/feature-engineering/streams
H="Authorization: Bearer $TOKEN"
curl -sf -H "$H" -XPOST "$API" -d '{
  "name": "main.bench.clicks", "source_config": {"direct_source_config": {}},
  "schema_config": {"direct_schemas": {"payload_schema": {"json_schema":
    "{\"type\":\"object\",\"properties\":{\"user\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}}}"}}},
  "ingestion_config": {"ingestion_destination": {"delta_table_name": "main.bench.clicks_ingestion"}}}' > /dev/null
records=$(for i in $(seq 0 99); do printf '{"key":"k%d","value":{"user":"u%d","n":%d}},' "$i" "$i" "$i"; done)
for s in $(seq 0 $((COMMITS - 1))); do
  curl -sf -H "$H" -H 'Content-Type: application/json' -XPOST "$API/main.bench.clicks/records" \
    -d "{\"producer_id\":\"bench\",\"sequence\":$s,\"records\":[${records%,}]}" > /dev/null
done
printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$TOKEN" > "$WORK/auth.lua"
cpu() { awk '{ print $14 + $15 }' "/proc/$(pgrep -P $SERVER java || echo $SERVER)/stat"; }
ms() { echo "$1" | awk '/us$/ { print $1 / 1000; next } /ms$/ { print $1 + 0; next } /s$/ { print $1 * 1000 }'; }
measure() { # label url
  wrk -t1 -c1 -d5s -s "$WORK/auth.lua" "$2" > /dev/null
  local c0 out c1 n
  c0=$(cpu); out=$(wrk -t1 -c1 -d10s --latency -s "$WORK/auth.lua" "$2"); c1=$(cpu)
  n=$(echo "$out" | awk '/requests in/ { print $1 }')
  printf '%-28s %7d requests  p50 %8s  p99 %8s  server CPU %6.0f us/request\n' "$1" "$n" \
    "$(echo "$out" | awk '/ 50%/ { print $2 }')" "$(echo "$out" | awk '/ 99%/ { print $2 }')" \
    "$(echo "($c1 - $c0) * 10000 / $n" | bc -l)"
  P50=$(ms "$(echo "$out" | awk '/ 50%/ { print $2 }')"); P99=$(ms "$(echo "$out" | awk '/ 99%/ { print $2 }')")
}
echo "table: $(curl -sf -H "$H" "$API/main.bench.clicks" | grep -o '"table_version":[0-9]*'), load: $(uptime)"
measure "GET /q/health/ready" "http://127.0.0.1:$PORT/q/health/ready"
BASE50=$P50; BASE99=$P99
measure "GET the stream" "$API/main.bench.clicks"
echo "GET of the stream / readiness: p50 $(echo "$P50 / $BASE50" | bc -l | xargs printf '%.2f')x, p99 $(echo "$P99 / $BASE99" | bc -l | xargs printf '%.2f')x"
