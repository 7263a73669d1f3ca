/** The tunnel is exactly /monitoring, and survives a flood of bad requests. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { chunkedBody, eventId, send, textEnvelope } from '#tests/support/envelopes';

let fake: FakeSentry;
let server: BuiltServer;

beforeAll(async () => {
  fake = await startFakeSentry();
  server = await startBuiltServer({ SENTRY_DSN: fake.dsn('1'), SENTRY_TUNNEL_MAX_BYTES: '4096' });
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});
beforeEach(() => fake.reset());

describe('only /monitoring is the tunnel', () => {
  it.each(['/monitoringX', '/monitoring/x', '/monitoring/', '/monitoring/package.json'])(
    'POST %s is the app’s not-found page, not the tunnel',
    async (path) => {
      const answer = await send(`${server.url}${path}?o=0&p=1`, {
        body: textEnvelope(fake.dsn('1')),
      });
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
      expect(fake.started()).toBe(0);
    },
  );

  it.each(['/monitoringX', '/monitoring/x'])('GET %s is the app’s not-found page', async (path) => {
    const answer = await send(`${server.url}${path}`, { method: 'GET' });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('allow')).toBeNull();
  });
});

describe('robustness', () => {
  it('rejects a header line longer than 64 KiB with 400', async () => {
    const restart = await startBuiltServer({ SENTRY_DSN: fake.dsn('1') });
    try {
      const answer = await send(`${restart.url}/monitoring?o=0&p=1`, {
        body: chunkedBody([Buffer.alloc(40_000, 0x20), Buffer.alloc(40_000, 0x20)]),
      });
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/64 KiB/);
      expect(fake.started()).toBe(0);
    } finally {
      await restart.stop();
    }
  });

  it('stays healthy after 300 bad requests (400, 403, 413)', async () => {
    const dsn = fake.dsn('1');
    const bad = [
      () => send(`${server.url}/monitoring?o=x&p=1`, { body: textEnvelope(dsn) }),
      () => send(`${server.url}/monitoring?o=0&p=1`, { body: Buffer.from('garbage\n') }),
      () => send(`${server.url}/monitoring?o=0&p=2`, { body: textEnvelope(dsn) }),
      () =>
        send(`${server.url}/monitoring?o=0&p=1`, {
          body: Buffer.from(`${JSON.stringify({ dsn: 'http://k@evil.example/1' })}\n{}`),
        }),
      () => send(`${server.url}/monitoring?o=0&p=1`, { body: Buffer.alloc(10_000, 0x61) }),
      () =>
        send(`${server.url}/monitoring?o=0&p=1`, {
          body: chunkedBody([textEnvelope(dsn), Buffer.alloc(8_000, 0x62)]),
        }),
    ];
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (bad[i % bad.length] as () => ReturnType<typeof send>)(),
        ),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses).toHaveLength(300);
    expect(new Set(statuses)).toEqual(new Set([400, 403, 413]));

    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    const id = eventId();
    const answer = await send(`${server.url}/monitoring?o=0&p=1`, { body: textEnvelope(dsn, id) });
    expect(answer.status).toBe(200);
    const received = await fake.waitForRequests(1);
    // Only the good envelope arrived; the mid-stream 413s broke off before their end.
    expect(received).toHaveLength(1);
    expect(received[0]?.body.toString()).toContain(id);
  });
});
