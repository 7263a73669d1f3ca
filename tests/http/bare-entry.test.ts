/**
 * `node the built server entry` with no NODE_ENV at all, as nitro's build line suggests and
 * docs/production.md promises runs as production: the libraries must think so too. React's
 * development server renderer writes a failed render's message and server stack into the HTML
 * (`data-msg`, `data-stck`), which the production one never does.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { BUILT_ENTRY, stopChild, testEnv, watchOutput } from '#tests/support/built-server';

let url: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  const { NODE_ENV: _, ...env } = testEnv({ ENABLE_EXAMPLE_ROUTES: 'true' });
  const child = spawn(process.execPath, [BUILT_ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const { waitForOutput, exited } = watchOutput(child);
  stop = () => stopChild(child, exited);
  const listening = await waitForOutput(/Listening on (http:\/\/\S+)/, 60_000);
  url = new URL(listening.replace('Listening on ', '')).origin;
});
afterAll(() => stop?.());

it('a render failure leaves the server as a digest only, without NODE_ENV set', async () => {
  const response = await fetch(`${url}/sentry-example-page?example-failure=render`, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  const html = await response.text();
  expect(response.status).toBe(500);
  expect(html).toMatch(/data-dgst="[0-9a-f]{10}"/);
  expect(html).not.toContain('render-secret-5e7f');
  expect(html).not.toContain('data-stck');
  expect(html).not.toContain('data-msg');
});
