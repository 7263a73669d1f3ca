/**
 * `npm run dev` with SENTRY_SPOTLIGHT: a server failure reaches a running Spotlight sidecar
 * (the real one, @spotlightjs/spotlight) and the local inbox still gets it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parseSiteConfig, SITE_CONFIG_ELEMENT_ID } from '#app/site-config';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type DevServer, startDevServer } from '#tests/support/dev-server';
import { type SpotlightSidecar, startSpotlightSidecar } from '#tests/support/spotlight-sidecar';

let sidecar: SpotlightSidecar;
let dev: DevServer;
beforeAll(async () => {
  sidecar = await startSpotlightSidecar();
  dev = await startDevServer({ SENTRY_SPOTLIGHT: sidecar.streamUrl });
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
  const line = await dev.waitForOutput(/\{"level":"error".*"phase":"loader".*\}/, 30_000);
  const { digest } = JSON.parse(line) as { digest: string };

  const envelope = await sidecar.waitForEnvelope((received) =>
    received[1].some(([header, item]) => header.type === 'event' && tagsOf(item).digest === digest),
  );
  const event = envelope[1][0]?.[1] as EventLike;
  expect(event.tags).toMatchObject({ digest, phase: 'loader' });
  expect(event.request?.url).toBe('/sentry-example-page/ssr-error');

  // Beside the inbox, not instead of it: /errors lists the same failure by its digest.
  await expect.poll(() => textOf(`${dev.url}/errors`), { timeout: 60_000 }).toContain(digest);
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
