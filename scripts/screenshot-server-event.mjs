// Refreshes docs/images/server-event.png, the README's picture of a server failure in the local
// inbox: the production build with the example routes, a press of "Call failing server function"
// in Debian's Chromium, then the event's own page (`/errors/<eventId>` from the failure's log
// line), its request and its stack with our source lines. Run: node scripts/screenshot-server-event.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { ensureBuild } from './ensure-build.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const OUTPUT = join(ROOT, 'docs/images/server-event.png');
const WAIT_MS = 60_000;

ensureBuild();

const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.startsWith('SENTRY_')),
);
const server = spawn(process.execPath, [join(ROOT, '.output/server/index.mjs')], {
  cwd: ROOT,
  env: {
    ...env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    WEB_CONCURRENCY: '1',
    ENABLE_EXAMPLE_ROUTES: 'true',
    MONITORING_INBOX_DIR: join(mkdtempSync(join(tmpdir(), 'screenshot-inbox-')), 'inbox'),
    // The operator on this machine, no proxy in front: no sign-in for the picture.
    MONITORING_INBOX_TRUST_LOOPBACK: 'true',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});

let output = '';
const waiters = new Set();
for (const stream of [server.stdout, server.stderr]) {
  stream.on('data', (chunk) => {
    output += chunk;
    for (const wake of waiters) wake();
  });
}

/** The first match of `pattern` in the server's output, within WAIT_MS. */
function printed(pattern) {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      waiters.delete(check);
      fail(new Error(`the server never printed ${pattern}:\n${output}`));
    }, WAIT_MS);
    const check = () => {
      const match = pattern.exec(output);
      if (!match) return;
      clearTimeout(timer);
      waiters.delete(check);
      done(match);
    };
    waiters.add(check);
    check();
  });
}

let browser;
try {
  const [, origin] = await printed(/Listening on (http:\/\/\S+)/);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${origin}/sentry-example-page`);
  await page.getByRole('button', { name: 'Call failing server function' }).click();
  await page.getByText(/The server function failed, digest/).waitFor({ timeout: WAIT_MS });
  const [, eventId] = await printed(/"eventId":"([0-9a-f]{32})"[^\n]*"phase":"server-function"/);
  // The inbox stores the event a moment after the log line: until then its address is not found.
  const event = page.locator('section.event');
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    await page.goto(`${origin}/errors/${eventId}`);
    if (await event.getByRole('heading', { name: 'Request' }).isVisible()) break;
    if (Date.now() > deadline) throw new Error(`/errors/${eventId} never showed the event`);
    await page.waitForTimeout(250);
  }
  // The event's facts, its request and its stack: breadcrumbs and tags are for another picture.
  await page
    .locator('section:has(> #breadcrumbs-heading), section:has(> #event-tags-heading)')
    .evaluateAll((sections) => {
      for (const section of sections) section.style.display = 'none';
    });
  await event.screenshot({ path: OUTPUT });
  console.log(`wrote ${OUTPUT}`);
} finally {
  await browser?.close();
  server.kill('SIGTERM');
}
