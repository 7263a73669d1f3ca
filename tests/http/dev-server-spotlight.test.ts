/**
 * `npm run dev` with SENTRY_SPOTLIGHT: a server failure reaches a running Spotlight sidecar
 * (the real one, @spotlightjs/spotlight) and the local inbox still gets it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parseSiteConfig, SITE_CONFIG_ELEMENT_ID } from '#app/site-config';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type DevServer, startDevServer } from '#tests/support/dev-server';
import { readInbox, tagOf } from '#tests/support/inbox-database';
import { type SpotlightSidecar, startSpotlightSidecar } from '#tests/support/spotlight-sidecar';

let sidecar: SpotlightSidecar;
let dev: DevServer;
const inboxDir = join(mkdtempSync(join(tmpdir(), 'dev-inbox-')), 'inbox');
beforeAll(async () => {
  sidecar = await startSpotlightSidecar();
  dev = await startDevServer({
    SENTRY_SPOTLIGHT: sidecar.streamUrl,
    MONITORING_INBOX_DIR: inboxDir,
  });
}, 120_000);
afterAll(async () => {
  await dev?.stop();
  await sidecar?.stop();
});

test('a loader failure in development reaches the Spotlight sidecar and the local inbox', async () => {
  const response = await fetch(`${dev.url}/sentry-example-page/ssr-error`, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  expect(response.status).toBe(500);
  await response.text();
  // Development prints a block, not JSON (app/server/failures/dev-failure-view.ts).
  const line = await dev.waitForOutput(/✖ loader of \S+ .*failed · digest [0-9a-f]+/, 30_000);
  const digest = line.split('digest ')[1] ?? '';

  const envelope = await sidecar.waitForEnvelope((received) =>
    received[1].some(([header, item]) => header.type === 'event' && tagsOf(item).digest === digest),
  );
  const event = envelope[1][0]?.[1] as EventLike;
  expect(event.tags).toMatchObject({ digest, phase: 'loader' });
  // Sentry's request interface: the URL is absolute, on the dev server's origin.
  expect(event.request?.url).toBe(`${dev.url}/sentry-example-page/ssr-error`);

  // Beside the inbox, not instead of it: the inbox stored the same failure, by its digest
  // (through the ingest thread, which runs from source under vinxi dev).
  await expect
    .poll(() => readInbox(inboxDir).events.some(({ event }) => tagOf(event, 'digest') === digest), {
      timeout: 60_000,
    })
    .toBe(true);
}, 120_000);

interface EventLike {
  tags?: Record<string, string>;
  request?: { url?: string };
}

function tagsOf(item: unknown): Record<string, string> {
  return (item as EventLike | null)?.tags ?? {};
}

async function textOf(url: string): Promise<string> {
  const response = await fetch(url, { headers: { 'user-agent': BROWSER_USER_AGENT } });
  return response.text();
}

test("pages tell the browser's SDK where the sidecar is", async () => {
  const html = await textOf(`${dev.url}/about`);
  const config = new RegExp(`<script[^>]*id="${SITE_CONFIG_ELEMENT_ID}"[^>]*>(.*?)</script>`).exec(
    html,
  )?.[1];
  expect(parseSiteConfig(config)?.monitoring.spotlight).toBe(sidecar.streamUrl);
}, 60_000);
