// Figures for /errors when the inbox is full of large events: 1,000 envelopes of ~1 MiB each
// (the tunnel's limit), seeded into a temp inbox as an older server would have stored them.
// Prints the first /errors (the one load of every file), a second one (the index), then the
// time of 4 concurrent /errors after a fresh burst of 1 MiB envelopes through the tunnel.
// Prints numbers; asserts nothing. Run after `npm run build`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COUNT = 1000;
const BURST = 100;
const LOCAL_DSN = 'http://localinbox@localhost/1';
const root = mkdtempSync(join(tmpdir(), 'inbox-adversarial-'));
const dir = join(root, 'inbox');
mkdirSync(dir, { recursive: true });

/** ~1 MiB: a stack of empty frames and a page of breadcrumbs, what stalled the pages before. */
function bigEnvelope(n) {
  const event = {
    event_id: n.toString(16).padStart(32, '0'),
    timestamp: Date.now() / 1000,
    level: 'error',
    request: { url: 'http://localhost:3000/sentry-example-page' },
    exception: {
      values: [
        {
          type: 'Error',
          value: `event ${n}`,
          stacktrace: { frames: Array.from({ length: 210_000 }, () => ({})) },
        },
      ],
    },
    breadcrumbs: Array.from({ length: 13_000 }, (_, i) => ({ message: `crumb ${i}` })),
  };
  const payload = JSON.stringify(event);
  return `${JSON.stringify({ event_id: event.event_id, dsn: LOCAL_DSN })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`;
}

const start = Date.now() - COUNT * 1000;
for (let n = 0; n < COUNT; n++) {
  // The store's naming: <ms, 15 digits>-<sequence, 6 base36>-<random, 8 hex>.envelope
  const name = `${String(start + n * 1000).padStart(15, '0')}-${n.toString(36).padStart(6, '0')}-00000000.envelope`;
  writeFileSync(join(dir, name), bigEnvelope(n));
}
const size = Buffer.byteLength(bigEnvelope(0));
console.log(`seeded ${COUNT} envelopes of ${(size / 1024 / 1024).toFixed(2)} MiB in ${dir}`);

const server = spawn(process.execPath, ['.output/server/index.mjs'], {
  env: {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    MONITORING_INBOX_DIR: dir,
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

async function timed(label, run) {
  const t = performance.now();
  const result = await run();
  console.log(`${label}: ${(performance.now() - t).toFixed(0)} ms`);
  return result;
}

const view = async (path = '/errors') => {
  const response = await fetch(`${url}${path}`);
  const body = await response.text();
  return { status: response.status, bytes: body.length };
};

try {
  const first = await timed('/errors first view (loads every file once)', () => view());
  console.log(`  status ${first.status}, ${first.bytes} bytes of HTML`);
  await timed('/errors second view (from the index)', () => view());
  const detail = await timed('/errors/<id> of a seeded 1 MiB event', () =>
    view(`/errors/${(COUNT - 1).toString(16).padStart(32, '0')}`),
  );
  console.log(`  status ${detail.status}, ${detail.bytes} bytes of HTML`);

  await timed(
    `a burst of ${BURST} envelopes of ~1 MiB through the tunnel, 4 at a time`,
    async () => {
      for (let n = 0; n < BURST; n += 4) {
        await Promise.all(
          [0, 1, 2, 3].map(async (k) => {
            const response = await fetch(`${url}/monitoring?o=0&p=1`, {
              method: 'POST',
              body: bigEnvelope(COUNT + n + k),
            });
            await response.text();
          }),
        );
      }
    },
  );
  await timed('4 concurrent /errors after the burst (all 4 done)', () =>
    Promise.all([0, 1, 2, 3].map(() => view())),
  );
  const stored = await timed('/errors/<id> of an event stored by the burst', () =>
    view(`/errors/${(COUNT + 1).toString(16).padStart(32, '0')}`),
  );
  console.log(`  status ${stored.status}, ${stored.bytes} bytes of HTML`);
} finally {
  server.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
