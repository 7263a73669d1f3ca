/**
 * The framework-free tunnel on a bare node:http server, with a local store the test controls:
 * the store's failures that the built server cannot be made to show on demand (a store that
 * throws instead of rejecting, a write queue that is full). Every status a client sees of the
 * built server is proven over HTTP (the tunnel's files in tests/http/, tunnel-forwarding.test.ts
 * and its siblings, and inbox-ingest.test.ts). Then which paths are the tunnel's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dsn, isDsn, LOCAL_INBOX_DSN, parseDsn } from '#app/monitoring/dsn';
import { IngestError } from '#app/server/inbox/store/ingest-protocol';
import { createAllowList } from '#app/server/tunnel/allow-list';
import {
  CLIENT_RATE_LIMITS,
  createByteBudget,
  createClientRate,
  createClientSlots,
} from '#app/server/tunnel/client-limits';
import { createUpstream, type Upstream } from '#app/server/tunnel/forward-to-sentry.server';
import { createTunnel, isTunnelPath } from '#app/server/tunnel/tunnel.server';
import { send, textEnvelope } from '#tests/support/envelopes';

const dsn = (text: string): Dsn => {
  const parsed = parseDsn(text);
  if (!isDsn(parsed)) throw new Error(parsed.error);
  return parsed;
};

let upstream: Upstream;
beforeAll(() => {
  upstream = createUpstream();
});
afterAll(() => upstream?.close());

/** Posts one local-inbox envelope to a tunnel whose store is `storeLocally`. */
async function postWithStore(storeLocally: () => Promise<{ eventId?: string }>) {
  const lines: string[] = [];
  const tunnel = createTunnel({
    allowList: createAllowList([dsn(LOCAL_INBOX_DSN)], LOCAL_INBOX_DSN),
    maxBytes: 4096,
    timeoutMs: 500,
    bodyTimeoutMs: 1000,
    upstream,
    storeLocally,
    localBuffer: createByteBudget({
      total: 1024 * 1024,
      perClient: 1024 * 1024,
      reserve: 0,
      smallEnvelope: 0,
    }),
    localRate: createClientRate(CLIENT_RATE_LIMITS, Date.now),
    streamingForwards: createClientSlots(2),
    log: (line) => lines.push(line),
    logLimited: (_kind, line) => lines.push(line),
    debug: false,
  });
  const local = createServer((req, res) => void tunnel(req, res));
  await new Promise<void>((done) => local.listen(0, '127.0.0.1', done));
  try {
    const port = (local.address() as AddressInfo).port;
    const answer = await send(`http://127.0.0.1:${port}/monitoring?o=0&p=1`, {
      body: textEnvelope(LOCAL_INBOX_DSN),
    });
    return { answer, lines };
  } finally {
    local.closeAllConnections();
    await new Promise((done) => local.close(done));
  }
}

describe('createTunnel when the local inbox fails', () => {
  it('answers 500 without the error text when the store throws instead of rejecting', async () => {
    const { answer, lines } = await postWithStore(() => {
      throw new Error('EACCES: /secret/path/inbox');
    });
    expect(answer.status).toBe(500);
    expect(answer.text).toBe('local inbox failed');
    expect(lines).toEqual(['[tunnel] 500 local inbox failed: EACCES: /secret/path/inbox']);
  });

  it('answers 503 with Retry-After when the store has too many writes waiting', async () => {
    const { answer, lines } = await postWithStore(() =>
      Promise.reject(new IngestError('busy', 'the local inbox has 1024 envelopes waiting already')),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(lines).toEqual(['[tunnel] 503 local inbox busy: too many envelopes being written']);
  });
});

describe('isTunnelPath', () => {
  it.each([
    ['/monitoring', true],
    ['/monitoring?o=1&p=2', true],
    ['/monitoring#x', true],
    ['/monitoringX', false],
    ['/monitoring/', false],
    ['/monitoring/x?o=1&p=2', false],
    ['/Monitoring', false],
    ['/api/monitoring', false],
    ['/', false],
  ])('%s -> %s', (url, expected) => {
    expect(isTunnelPath(url)).toBe(expected);
  });
});
