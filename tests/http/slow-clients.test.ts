/**
 * Slow and greedy clients against the built server's own limits: headers that never finish
 * are cut off at the headers timeout, one client cannot hold more than its share of
 * connections, and /health keeps answering others meanwhile. Connections come from 127.0.0.2
 * (still loopback, a different client address); /health is asked from 127.0.0.1.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS } from '#app/server/node/server-limits.server';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';

const PER_CLIENT = 100;

let server: BuiltServer;
let port: number;

beforeAll(async () => {
  server = await startBuiltServer({ MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT) });
  port = Number(new URL(server.url).port);
});
afterAll(() => server?.stop());

interface Held {
  socket: Socket;
  /** Resolves with how long the connection lived, once it closes. */
  closed: Promise<number>;
}

/** A connection from 127.0.0.2 that sends the start of a request and never finishes its headers. */
function slowHeaders(): Promise<Held> {
  return new Promise((done, fail) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    const opened = performance.now();
    const closed = new Promise<number>((resolve) =>
      socket.once('close', () => resolve(performance.now() - opened)),
    );
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.write('GET /about HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      // One more header byte now and then: each keeps the socket busy, none ends the headers.
      const timer = setInterval(() => socket.writable && socket.write('a'), 1_000);
      socket.once('close', () => clearInterval(timer));
      done({ socket, closed });
    });
    socket.once('error', fail);
  });
}

async function health(): Promise<number> {
  const response = await fetch(`${server.url}/health`);
  await response.text();
  return response.status;
}

it(
  'cuts headers that never finish at the headers timeout, holds one client to its share, and keeps /health answering',
  async () => {
    const held = await Promise.all(Array.from({ length: PER_CLIENT + 50 }, slowHeaders));
    const lifetimes = held.map((connection) => connection.closed);

    // Past its share, the client's connections are closed at once; the others wait.
    const early = await Promise.race([
      Promise.all(lifetimes.slice(-1)),
      new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS / 2, 'still open')),
    ]);
    expect(early).not.toBe('still open');
    expect(await health()).toBe(200);

    // All of them are gone by the headers timeout (plus Node's check interval and a margin),
    // with nothing but trickled header bytes ever sent.
    const all = await Promise.all(lifetimes);
    expect(all.filter((ms) => ms < HEADERS_TIMEOUT_MS / 2)).toHaveLength(50);
    expect(Math.max(...all)).toBeLessThan(HEADERS_TIMEOUT_MS + 5_000);
    expect(all.filter((ms) => ms >= HEADERS_TIMEOUT_MS - 1_000)).toHaveLength(PER_CLIENT);
    expect(await health()).toBe(200);

    // The 50 refusals are one episode: one line, the minute's summary says how many more.
    await server.stderrBarrier();
    const refusals = server
      .output()
      .split('\n')
      .filter((line) => line.includes('refused a connection from'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('127.0.0.2');
  },
  HEADERS_TIMEOUT_MS + 20_000,
);
