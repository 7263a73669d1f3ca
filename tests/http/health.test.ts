import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
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
