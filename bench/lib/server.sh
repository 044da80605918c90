# Sourced by the benches that start the packaged server: wait_ready BASE_URL LOG waits up to 3 minutes for
# BASE_URL/q/health/ready and exits the bench, naming LOG, if the server is not ready by then.
wait_ready() {
  for _ in $(seq 1 180); do
    if curl -sf "$1/q/health/ready" > /dev/null; then return 0; fi
    sleep 1
  done
  echo "server did not start; see $2"
  exit 1
}
