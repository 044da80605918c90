// See run.sh. Prints one FIGURE line per variant and the ratio; exits 1 when the console misses the 1 s goal.
import {chromium} from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FILES = process.env.CONSOLE_FILES;
const ROUNDS = Number(process.env.ROUNDS || 7);
const N = Number(process.env.STREAMS || 1000);
const GOAL_MS = 1000;
// The baseline: the same list as a classic table, every row laid out (the console before its rows became grids).
const TABLE_CSS = 'table.fixed, table.fixed thead, table.fixed tbody, table.fixed tr { display: revert; '
  + 'content-visibility: visible; } table.fixed { table-layout: auto; }';

const captured = JSON.parse(fs.readFileSync(process.env.CONSOLE_STREAMS_JSON, 'utf8')).streams;
const many = [];
for (let i = 0; i < N; i++) {
  const s = structuredClone(captured[i % captured.length]);
  s.name = 'main.bulk.s' + String(i).padStart(4, '0');
  if (i % 97 === 0) { s.state = 'STALLED'; s.state_message = 'no commit for 10 trigger intervals'; }
  many.push(s);
}
const listBody = JSON.stringify({streams: many});

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-console-bench-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: {width: 1400, height: 900}
});
const page = context.pages()[0] || await context.newPage();
let extraCss = '';
await context.route('http://console.test/**', r => {
  const url = new URL(r.request().url());
  if (url.pathname.startsWith('/api/2.0/feature-engineering/streams')) {
    return r.fulfill({status: 200, contentType: 'application/json', body: listBody});
  }
  const file = url.pathname.replace(/^\/console\/?/, '') || 'index.html';
  let body = fs.readFileSync(path.join(FILES, path.basename(file)));
  if (file === 'console.css') body = Buffer.concat([body, Buffer.from('\n' + extraCss)]);
  const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html';
  return r.fulfill({status: 200, contentType: type, body});
});

async function measure(css) {
  extraCss = css;
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) {
    await page.goto('about:blank');
    await page.goto('http://console.test/console/#/');
    await page.waitForFunction(n => document.querySelectorAll('#streams tr').length === n, N);
    runs.push(await page.evaluate(() => window.consoleRender.totalMs));
  }
  const sorted = runs.slice().sort((a, b) => a - b);
  return {median: sorted[Math.floor(sorted.length / 2)], runs};
}

try {
  await measure(''); // warm-up: the browser's caches and JIT
  const baseline = await measure(TABLE_CSS);
  const console_ = await measure('');
  const fmt = r => 'median ' + r.median.toFixed(1) + ' ms (' + r.runs.map(x => x.toFixed(0)).join(', ') + ')';
  console.log('FIGURE baseline, ' + N + ' streams as a plain table: render ' + fmt(baseline));
  console.log('FIGURE console, ' + N + ' streams: render ' + fmt(console_));
  console.log('RATIO console / plain table: ' + (console_.median / baseline.median).toFixed(2) + 'x; goal '
    + GOAL_MS + ' ms: ' + (console_.median < GOAL_MS ? 'met' : 'NOT met'));
  process.exitCode = console_.median < GOAL_MS ? 0 : 1;
} finally {
  await context.close();
  fs.rmSync(userDataDir, {recursive: true, force: true});
}
