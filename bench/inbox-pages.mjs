// Figures for /errors with a full local inbox (1,000 envelopes): first view (cold cache)
// and sustained requests. Prints numbers; asserts nothing. Run after `npm run build`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const COUNT = 1000;
const dir = join(mkdtempSync(join(tmpdir(), 'inbox-bench-')), 'inbox');
mkdirSync(dir, { recursive: true });
const start = Date.now() - COUNT * 1000;
for (let n = 0; n < COUNT; n++) {
  const event = {
    event_id: n.toString(16).padStart(32, '0'),
    timestamp: (start + n * 1000) / 1000,
    level: 'error',
    request: { url: 'http://localhost:3000/sentry-example-page' },
    exception: { values: [{ type: 'Error', value: `event ${n}`, stacktrace: { frames: [] } }] },
    breadcrumbs: Array.from({ length: 30 }, (_, i) => ({ message: `crumb ${i}`, timestamp: 1 })),
  };
  const bytes = `${JSON.stringify({ event_id: event.event_id })}\n{"type":"event"}\n${JSON.stringify(event)}\n`;
  // The store's naming: <ms, 15 digits>-<sequence, 6 base36>-<random, 8 hex>.envelope
  const name = `${String(start + n * 1000).padStart(15, '0')}-${n.toString(36).padStart(6, '0')}-00000000.envelope`;
  writeFileSync(join(dir, name), bytes);
}

const server = spawn(process.execPath, ['.output/server/index.mjs'], {
  env: {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    MONITORING_INBOX_DIR: dir,
    // Read from 127.0.0.1 with no proxy in front: the operator's case (decision 0306).
    MONITORING_INBOX_TRUST_LOOPBACK: 'true',
    SENTRY_DSN: '',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /Listening on (http:\/\/\S+)/.exec(out);
    if (match) resolve(new URL(match[1]).origin);
  });
});

let t = performance.now();
await (await fetch(`${url}/errors`)).text();
console.log(
  `/errors first view with ${COUNT} envelopes (reads and parses all): ${(performance.now() - t).toFixed(0)} ms`,
);
t = performance.now();
await (await fetch(`${url}/errors`)).text();
console.log(`/errors second view (cached summaries): ${(performance.now() - t).toFixed(0)} ms`);

const result = await autocannon({ url: `${url}/errors`, connections: 10, duration: 5 });
console.log(
  `/errors sustained: ${result.requests.average} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
);
server.kill('SIGTERM');
