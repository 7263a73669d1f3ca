import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';
import { waitFor } from '#tests/support/wait-for';
import packageJson from '../../package.json';

describe('GET /health', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer();
  });
  afterAll(() => server?.stop());

  it('answers 200 with a small JSON body', async () => {
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toEqual({
      status: 'ok',
      reasons: [],
      workers: { up: 1, of: 1 },
      version: packageJson.version,
      uptimeSeconds: expect.any(Number),
      monitoring: 'local-inbox',
      eventLoopLagMs: expect.any(Number),
    });
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('accepts a query string', async () => {
    expect((await fetch(`${server.url}/health?probe=1`)).status).toBe(200);
  });

  it('logs nothing per request', async () => {
    const mark = server.output().length;
    for (let i = 0; i < 5; i++) await (await fetch(`${server.url}/health`)).text();
    expect(await server.printedSince(mark)).toBe('');
  });

  it('refuses other methods with 405 and Allow', async () => {
    const response = await fetch(`${server.url}/health`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it.each(['/health/x', '/healthz'])('leaves %s to the app (its 404 page)', async (path) => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('GET /health when reports go nowhere', () => {
  it('says degraded, with the reason, from the start while the local inbox cannot be opened, and logs it once', async () => {
    // A directory under a regular file: every open fails with ENOTDIR, even for root.
    const parent = mkdtempSync(join(tmpdir(), 'health-store-'));
    writeFileSync(join(parent, 'file'), '');
    const server = await startBuiltServer({ MONITORING_INBOX_DIR: join(parent, 'file', 'inbox') });
    try {
      const before = await (await fetch(`${server.url}/health`)).json();
      expect(before).toMatchObject({
        status: 'degraded',
        reasons: ['reports-not-stored: the inbox database cannot be opened (ENOTDIR)'],
      });
      for (let i = 0; i < 3; i++) {
        const post = await fetch(`${server.url}/monitoring?o=0&p=1`, {
          method: 'POST',
          body: new Uint8Array(textEnvelope(LOCAL_INBOX_DSN)),
        });
        expect(post.status).toBe(500);
        await post.text();
      }
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      expect((await health.json()).status).toBe('degraded');
      const printed = await server.printedSince(0);
      expect(printed.match(/\[health\] degraded: reports-not-stored/g)).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });

  it('says degraded while server events cannot reach Sentry, with one line saying so', async () => {
    const closedPort = await freePort();
    const server = await startBuiltServer({
      ENABLE_EXAMPLE_ROUTES: '1',
      SENTRY_DSN: `http://public@127.0.0.1:${closedPort}/42`,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const page = await fetch(`${server.url}/sentry-example-page/ssr-error`);
        expect(page.status).toBe(500);
        await page.text();
      }
      const health = await waitForHealth(server, 'degraded');
      expect(health.reasons).toEqual(['sentry-unreachable: ECONNREFUSED']);
      await server.waitForOutput(
        /\[monitoring\] a server event could not be sent to Sentry: ECONNREFUSED/,
      );
      const printed = await server.printedSince(0);
      expect(printed.match(/\[health\] degraded: sentry-unreachable/g)).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });
});

/** /health's answer, once it says `status`. */
function waitForHealth(
  server: BuiltServer,
  status: string,
): Promise<{ status: string; reasons: string[] }> {
  return waitFor(`/health to say ${status}`, async () => {
    const body = await (await fetch(`${server.url}/health`)).json();
    return body.status === status ? body : undefined;
  });
}

/** A port nothing listens on: bound once to learn it, then closed. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
