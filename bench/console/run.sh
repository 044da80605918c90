#!/usr/bin/env bash
# Console list rendering: the web console's stream list with 1,000 streams in headless Chromium (Debian's chromium),
# against the baseline of the same rows laid out as a plain table (the console's CSS with the rows turned back into
# table rows), in the same run. No server: Playwright serves the console's files from src/console and the list API's
# answer from 1,000 copies of the streams in streams.json (a list response captured from the server by
# ConsoleBrowserTest), so the figure is the browser's work alone. Goal (issue 13): under 1 s.
#   bench/console/run.sh [rounds]      env: CHROMIUM (/usr/bin/chromium), STREAMS (1000)
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=target/console-bench
mkdir -p "$WORK"
cp src/test/console/package.json src/test/console/package-lock.json bench/console/render-bench.mjs "$WORK/"
if [ ! -f "$WORK/node_modules/playwright-core/package.json" ]; then
  (cd "$WORK" && npm ci --no-audit --no-fund > npm.log 2>&1) || { cat "$WORK/npm.log"; exit 1; }
fi
cd "$WORK"
exec env CONSOLE_FILES="$OLDPWD/src/console/resources/META-INF/resources/console" \
  CONSOLE_STREAMS_JSON="$OLDPWD/bench/console/streams.json" ROUNDS="${1:-7}" node render-bench.mjs
