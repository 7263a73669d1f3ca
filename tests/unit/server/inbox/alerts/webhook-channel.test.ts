/**
 * The webhook channel against a real HTTP sink on 127.0.0.1: what it posts, and how each
 * answer (or its absence) becomes a Delivery the sender's policy acts on.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookChannel } from '#app/server/inbox/alerts/alert-delivery.server';
import type { Alert } from '#app/server/inbox/alerts/alert-message';
import { startWebhookSink, type WebhookSink } from '#tests/support/webhook-sink';

const alert: Alert = {
  kind: 'new',
  issue: {
    id: 3,
    title: 'TypeError: boom',
    culprit: 'app.js in run',
    level: 'error',
    eventCount: 1,
    userCount: 0,
    firstSeen: 0,
    lastSeen: 0,
    release: null,
    environment: 'production',
    link: '/errors/issues/3',
  },
};

let sink: WebhookSink;
beforeAll(async () => {
  sink = await startWebhookSink();
});
afterAll(() => sink.close());

const send = (path: string, timeoutMs = 2_000) =>
  webhookChannel(new URL(`${sink.origin}${path}`), { timeoutMs }).send(
    alert,
    new AbortController().signal,
  );

describe('the webhook channel', () => {
  it('posts the JSON to the hook and is named by its host only', async () => {
    sink.answerWith(() => ({ status: 200, body: 'ok' }));
    const before = sink.posts.length;
    const channel = webhookChannel(new URL(`${sink.origin}/hooks/T000/SECRET?token=abc`));
    expect(channel.name).toBe(`webhook ${new URL(sink.origin).host}`);
    expect(await channel.send(alert, new AbortController().signal)).toEqual({ outcome: 'sent' });
    const post = sink.posts[before];
    expect(post?.path).toBe('/hooks/T000/SECRET?token=abc');
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.body.text).toContain('New issue: TypeError: boom');
    expect(post?.body.content).toBe(post?.body.text);
    expect(post?.body.issue).toMatchObject({ id: 3, link: '/errors/issues/3' });
  });

  it('takes a 503 as worth another try, with its Retry-After', async () => {
    sink.answerWith(() => ({ status: 503, headers: { 'retry-after': '7' } }));
    expect(await send('/a')).toEqual({
      outcome: 'retry',
      reason: 'answered 503',
      retryAfterMs: 7000,
    });
  });

  it('takes a 429 as worth another try', async () => {
    sink.answerWith(() => ({ status: 429 }));
    expect(await send('/a')).toEqual({ outcome: 'retry', reason: 'answered 429' });
  });

  it('takes a 404 as failed for good', async () => {
    sink.answerWith(() => ({ status: 404, body: 'no_service /hooks/SECRET' }));
    expect(await send('/a')).toEqual({ outcome: 'failed', reason: 'answered 404' });
  });

  it('does not follow a redirect: the place it points to gets nothing', async () => {
    const before = sink.posts.length;
    sink.answerWith((post) =>
      post.path === '/moved'
        ? { status: 308, headers: { location: `${sink.origin}/elsewhere` } }
        : { status: 200 },
    );
    expect(await send('/moved')).toEqual({
      outcome: 'failed',
      reason: 'answered 308, a redirect (not followed)',
    });
    expect(sink.posts.slice(before).map((post) => post.path)).toEqual(['/moved']);
  });

  it('gives up on an answer that never comes within its time-out', async () => {
    sink.answerWith(() => 'hang');
    expect(await send('/a', 300)).toEqual({ outcome: 'retry', reason: 'no answer within 300 ms' });
  });

  it('reads a few KB of an answer that never ends, and counts it sent', async () => {
    sink.answerWith(() => 'endless');
    // Read whole, this answer would run into the time-out.
    expect(await send('/a', 3_000)).toEqual({ outcome: 'sent' });
  });

  it('takes a reset connection as worth another try', async () => {
    sink.answerWith(() => 'reset');
    expect(await send('/a')).toEqual({ outcome: 'retry', reason: 'connection reset' });
  });

  it('takes a refused connection as worth another try', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const channel = webhookChannel(new URL(`http://127.0.0.1:${port}/hook`));
    expect(await channel.send(alert, new AbortController().signal)).toEqual({
      outcome: 'retry',
      reason: 'connection refused',
    });
  });
});
