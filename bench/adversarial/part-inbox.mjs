// Part 3: /errors when the inbox is full of large events: 1,000 envelopes of ~1 MiB each (the
// tunnel's limit), seeded into a temp inbox as an older server would have stored them. The first
// /errors (the one load of every file, /health probed meanwhile), a second one (the index), a
// detail view; then a burst of 1 MiB envelopes through the tunnel and 4 concurrent /errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { latencies, probe, probeEvery, summarise } from './probe.mjs';
import { printComplaints, startServer } from './server.mjs';
import { makeTempDir, removeTempDir } from './temp-dirs.mjs';

const COUNT = 1000;
const BURST = 100;
const LOCAL_DSN = 'http://localinbox@localhost/1';
// The first view reads ~1 GB: far past a probe's timeout, still bounded.
const VIEW_TIMEOUT_MS = 180_000;

// ~1 MiB: a stack of empty frames and a page of breadcrumbs, what stalled the pages before.
// Serialised once: a JSON.stringify of 210,000 frames per envelope took a minute of seeding,
// and inside the timed burst it would have measured the client's CPU.
const FRAMES = JSON.stringify(Array.from({ length: 210_000 }, () => ({})));
const CRUMBS = JSON.stringify(
  Array.from({ length: 13_000 }, (_, i) => ({ message: `crumb ${i}` })),
);

/** The same bytes as JSON.stringify of the event, keys in the same order. */
function bigEnvelope(n) {
  const eventId = n.toString(16).padStart(32, '0');
  const payload =
    `{"event_id":"${eventId}","timestamp":${Date.now() / 1000},"level":"error",` +
    `"request":{"url":"http://localhost:3000/sentry-example-page"},` +
    `"exception":{"values":[{"type":"Error","value":"event ${n}","stacktrace":{"frames":${FRAMES}}}]},` +
    `"breadcrumbs":${CRUMBS}}`;
  return `${JSON.stringify({ event_id: eventId, dsn: LOCAL_DSN })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`;
}

export async function inboxPart() {
  const root = makeTempDir('adversarial-inbox-');
  const dir = join(root, 'inbox');
  let server;
  try {
    mkdirSync(dir, { recursive: true });
    const start = Date.now() - COUNT * 1000;
    for (let n = 0; n < COUNT; n++) {
      // The store's naming: <ms, 15 digits>-<sequence, 6 base36>-<random, 8 hex>.envelope
      const name = `${String(start + n * 1000).padStart(15, '0')}-${n.toString(36).padStart(6, '0')}-00000000.envelope`;
      writeFileSync(join(dir, name), bigEnvelope(n));
    }
    const size = Buffer.byteLength(bigEnvelope(0));
    console.log(
      `Part 3. /errors with ${COUNT} stored envelopes of ${(size / 1024 / 1024).toFixed(2)} MiB (local inbox mode).\n`,
    );
    // Read from 127.0.0.1 with no proxy in front: the operator's case (decision 0306).
    server = await startServer({
      env: { SENTRY_DSN: '', MONITORING_INBOX_DIR: dir, MONITORING_INBOX_TRUST_LOOPBACK: 'true' },
    });
    await views(server.origin);
  } finally {
    if (server) printComplaints('inbox', server, await server.stop());
    removeTempDir(root);
  }
}

async function timed(label, run) {
  const t = performance.now();
  const result = await run();
  console.log(`${label}: ${(performance.now() - t).toFixed(0)} ms`);
  return result;
}

async function views(origin) {
  const view = async (path = '/errors') => {
    const response = await fetch(`${origin}${path}`, {
      signal: AbortSignal.timeout(VIEW_TIMEOUT_MS),
    });
    const body = await response.text();
    return { status: response.status, bytes: body.length };
  };

  // The probes stop when the view is done: they say whether the server stayed up meanwhile.
  let viewing = true;
  const healthDuring = probeEvery(() => probe(`${origin}/health`), {
    durationMs: VIEW_TIMEOUT_MS,
    until: () => !viewing,
  });
  const first = await timed('/errors first view (loads every file once)', () =>
    view().finally(() => {
      viewing = false;
    }),
  );
  console.log(`  status ${first.status}, ${first.bytes} bytes of HTML`);
  const health = summarise(await healthDuring);
  console.log(
    `  /health meanwhile, every 200 ms on a new connection: ${latencies(health)} ms (p50 / p99 / max), ${health.answers}`,
  );
  await timed('/errors second view (from the index)', () => view());
  const detail = await timed('/errors/<id> of a seeded 1 MiB event', () =>
    view(`/errors/${(COUNT - 1).toString(16).padStart(32, '0')}`),
  );
  console.log(`  status ${detail.status}, ${detail.bytes} bytes of HTML`);

  const bodies = Array.from({ length: BURST }, (_, n) => bigEnvelope(COUNT + n));
  const statuses = new Map();
  await timed(
    `a burst of ${BURST} envelopes of ~1 MiB through the tunnel, 4 at a time`,
    async () => {
      for (let n = 0; n < BURST; n += 4) {
        await Promise.all(
          bodies.slice(n, n + 4).map(async (body) => {
            const response = await fetch(`${origin}/monitoring?o=0&p=1`, {
              method: 'POST',
              body,
              signal: AbortSignal.timeout(60_000),
            });
            await response.text();
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          }),
        );
      }
    },
  );
  console.log(
    `  answers: ${[...statuses].map(([status, count]) => `${status}×${count}`).join(' ')}`,
  );
  await timed('4 concurrent /errors after the burst (all 4 done)', () =>
    Promise.all([0, 1, 2, 3].map(() => view())),
  );
  const stored = await timed('/errors/<id> of an event stored by the burst', () =>
    view(`/errors/${(COUNT + 1).toString(16).padStart(32, '0')}`),
  );
  console.log(`  status ${stored.status}, ${stored.bytes} bytes of HTML`);
}
