/**
 * `npm run dev` answers what the built server's entry answers before any router through the SSR
 * router's hook (app/start-1.120/dev-front-door.server.ts), with the same front doors: the inbox's
 * read API (JSON, open to anyone in development without a token, as /errors is) and the tunnel.
 */

import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type DevServer, startDevServer } from '#tests/support/dev-server';
import { chunkedBody, eventId, send, textEnvelope } from '#tests/support/envelopes';

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

test('the tunnel at exactly /monitoring stores an envelope streamed in pieces; other paths are not it', async () => {
  const id = eventId();
  const envelope = textEnvelope(LOCAL_INBOX_DSN, id, 'sent through the dev tunnel');
  const half = Math.floor(envelope.length / 2);
  const answer = await send(`${dev.url}/monitoring?o=0&p=1`, {
    body: chunkedBody([envelope.subarray(0, half), envelope.subarray(half)]),
  });
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.text)).toEqual({ id });
  const issues = await fetch(`${dev.url}/errors/api/issues`);
  expect(JSON.stringify(await issues.json())).toContain('sent through the dev tunnel');

  const got = await send(`${dev.url}/monitoring?o=0&p=1`, { method: 'GET' });
  expect(got.status).toBe(405);
  expect(got.headers.get('allow')).toBe('POST');
  const below = await fetch(`${dev.url}/monitoring/package.json`);
  expect(below.status).toBe(404);
}, 60_000);
