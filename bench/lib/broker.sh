# Sourced by the benches that run the packaged server against a broker of their own (bench/online, bench/features,
# bench/ingest/restart.sh): start_broker DIR starts the server's embedded Kafka on a free port in a process of its
# own (bench/lib/KafkaLauncher.java; BROKER_REBALANCE_DELAY_MS sets its group.initial.rebalance.delay.ms, 0 unless
# set; BROKER_JAVA_OPTS for its JVM), logging to DIR/kafka.log, and sets KAFKA (its pid) and BOOTSTRAP; it exits the
# bench if the broker does not start within 2 minutes.
start_broker() {
  java ${BROKER_JAVA_OPTS:-} -cp "target/quarkus-app/app/*:target/quarkus-app/lib/main/*" bench/lib/KafkaLauncher.java \
    "$1/kafka" > "$1/kafka.log" 2>&1 &
  KAFKA=$!
  for _ in $(seq 1 120); do
    if grep -q '^bootstrap ' "$1/kafka.log"; then break; fi
    sleep 1
  done
  BOOTSTRAP=$(grep '^bootstrap ' "$1/kafka.log" | cut -d' ' -f2)
  [[ -n "$BOOTSTRAP" ]] || { echo "the broker did not start; see $1/kafka.log"; kill "$KAFKA"; exit 1; }
}
