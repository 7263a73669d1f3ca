/** Hand-built Sentry envelopes and small HTTP helpers for the tunnel tests. */
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';

export function eventId(): string {
  return randomUUID().replaceAll('-', '');
}

/** A text envelope: header line, item header, JSON event. */
export function textEnvelope(dsn: string, id = eventId(), message = 'boom'): Buffer {
  const event = JSON.stringify({ event_id: id, message, level: 'error' });
  return Buffer.from(
    `${JSON.stringify({ event_id: id, dsn, sent_at: new Date().toISOString() })}\n` +
      `${JSON.stringify({ type: 'event', length: Buffer.byteLength(event) })}\n${event}\n`,
  );
}

/** A replay-like envelope: the header line, then random bytes (newlines, invalid UTF-8 and all). */
export function binaryEnvelope(dsn: string, size: number, id = eventId()): Buffer {
  const payload = randomBytes(size);
  const head = Buffer.from(
    `${JSON.stringify({ event_id: id, dsn })}\n${JSON.stringify({ type: 'replay_recording', length: size })}\n`,
  );
  return Buffer.concat([head, payload]);
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export async function send(
  url: string,
  init: {
    method?: string;
    body?: Uint8Array | ReadableStream<Uint8Array>;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    body: init.body,
    headers: init.headers,
    ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A body sent in chunks without Content-Length; `beforeChunk(i)` may wait for a condition. */
export function chunkedBody(
  chunks: Uint8Array[],
  beforeChunk: (index: number) => Promise<void> = async () => {},
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    async pull(controller) {
      if (index === chunks.length) {
        controller.close();
        return;
      }
      await beforeChunk(index);
      controller.enqueue(chunks[index] as Uint8Array);
      index += 1;
    },
  });
}

/**
 * A tunnel POST of `body` to `origin` from `localAddress` (each 127.x.y.z is a client of its own
 * to the server), on a connection of its own. Rejects when no answer came (the connection failed,
 * or `timeoutMs` passed).
 */
export function postFrom(
  origin: string,
  body: Uint8Array,
  localAddress = '127.0.0.1',
  timeoutMs?: number,
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(origin);
  return new Promise((done, fail) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/monitoring?o=0&p=1',
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/x-sentry-envelope' },
        agent: false,
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, text, headers: res.headers }));
        res.on('error', fail);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', fail);
    req.end(body);
  });
}
