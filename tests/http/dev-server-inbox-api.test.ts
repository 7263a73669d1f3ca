/**
 * `npm run dev` serves the inbox's read API through the SSR router's hook, the same front door as
 * the built server's (app/start-1.120/dev-front-door.server.ts): JSON, open to anyone in
 * development without a token, as /errors is.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DevServer, startDevServer } from '#tests/support/dev-server';

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer();
}, 90_000);
afterAll(() => dev?.stop());

test('answers the issues, an unknown issue and another method as the built server does', async () => {
  const issues = await fetch(`${dev.url}/errors/api/issues`);
  expect(issues.status).toBe(200);
  expect(issues.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(issues.headers.get('cache-control')).toBe('no-store');
  expect(await issues.json()).toEqual({ data: [], next: null });

  const unknown = await fetch(`${dev.url}/errors/api/issues/7`);
  expect(unknown.status).toBe(404);
  expect(await unknown.json()).toEqual({ detail: 'no issue 7' });

  const posted = await fetch(`${dev.url}/errors/api/issues`, { method: 'POST' });
  expect(posted.status).toBe(405);
  expect(posted.headers.get('allow')).toBe('GET, HEAD');
});
