/**
 * Tunnel posts whose header line never ends (issue 32), against the built server with two
 * workers in a network namespace of the test's own. 12 addresses each keep 120 posts open
 * (`Content-Length: 60000`, then `{"dsn":"` and a byte a second), reopening each as soon as
 * the server closes it, past the server's cap (a descriptor limit of 1,024: 691 connections a
 * worker). The header line was read before the client's slot was taken, and a connection
 * serving a request is never closed for a newcomer: every connection served one, and a new
 * client's connections were refused ("every one serving a request"), 42% got through. Read
 * under the slot, a client has 8 such posts a worker; the rest are 429 and closed, and a new
 * client's /health, page and report get through.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';
import { createNetworkNamespace, type NetworkNamespace } from '#tests/support/network-namespace';
import { rawRequest } from '#tests/support/raw-request';
import { until } from '#tests/support/wait-for';

const ATTACKERS = Array.from({ length: 12 }, (_, i) => `198.18.2.${11 + i}`);
const NEWCOMER = '198.18.2.100';
const PER_ATTACKER = 120;
const RECONNECT_MS = 20;

let namespace: NetworkNamespace;
let server: BuiltServer;
let port: number;

beforeAll(async () => {
  namespace = await createNetworkNamespace([...ATTACKERS, NEWCOMER]);
  server = await startBuiltServer(
    { HOST: '::', WEB_CONCURRENCY: '2' },
    { namespace, descriptorLimit: 1024 },
  );
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  await namespace?.close();
});

/** Tunnel posts from `from` whose header line trickles a byte a second, reopened when closed. */
function endlessHeaderLines(from: string, count: number) {
  const sockets = new Set<Socket>();
  let refused = 0;
  let stopped = false;
  const open = () => {
    const socket = namespace.connect(from, '127.0.0.1', port);
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 429 ')) refused += 1;
    });
    socket.write(
      `POST /monitoring?o=0&p=1 HTTP/1.1\r\nHost: localhost:${port}\r\n` +
        'Content-Type: application/x-sentry-envelope\r\nContent-Length: 60000\r\n\r\n{"dsn":"',
    );
    socket.once('close', () => {
      sockets.delete(socket);
      if (!stopped) setTimeout(() => stopped || open(), RECONNECT_MS);
    });
  };
  for (let i = 0; i < count; i += 1) open();
  const trickle = setInterval(() => {
    for (const socket of sockets) if (socket.writable) socket.write('a');
  }, 1_000);
  return {
    open: () => sockets.size,
    refused: () => refused,
    stop() {
      stopped = true;
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * The newcomer's request on a new connection: its status, or how it failed. The relay into the
 * namespace (tests/support/network-namespace.ts) is one process for the attackers' churn too:
 * when its own socket refuses (EAGAIN), the connection never reached the server, and is tried
 * again; anything the server does (a reset, a timeout) counts.
 */
async function newcomer(path: string, body?: Buffer): Promise<number | string> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const answer = await rawRequest(`http://127.0.0.1:${port}${path}`, {
        ...(body ? { method: 'POST', body } : {}),
        connect: () => namespace.connect(NEWCOMER, '127.0.0.1', port),
        timeoutMs: 5_000,
      });
      return answer.status;
    } catch (error) {
      const message = (error as Error).message;
      if (!/EAGAIN .*relay\.sock/.test(message) || attempt === 20) return message;
      await new Promise((done) => setTimeout(done, 50));
    }
  }
}

const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);

it('lets a new client in (95% or more) while 12 addresses hold tunnel posts whose header line never ends', async () => {
  const attackers = ATTACKERS.map((address) => endlessHeaderLines(address, PER_ATTACKER));
  try {
    // 1,440 posts for 1,382 places: all of them opened at least once.
    await until(
      "1,000 of the attackers' posts open",
      () => sum(attackers.map((a) => a.open())) >= 1_000,
      { timeoutMs: 15_000 },
    );
    const answers: Array<number | string> = [];
    // 60 answers: 24 made one episode of two unanswered read as 92%. Those episodes were the
    // cluster's primary out of descriptors under this limit, libuv closing what waited in the
    // kernel's backlog; its line is now bounded below them (decision 1013).
    for (let round = 0; round < 20; round += 1) {
      answers.push(
        await newcomer('/health'),
        await newcomer('/about'),
        await newcomer('/monitoring?o=0&p=1', textEnvelope(LOCAL_INBOX_DSN)),
      );
      // Meanwhile the attackers reopen what the server closed.
      await new Promise((done) => setTimeout(done, 250));
    }
    const ok = answers.filter((answer) => answer === 200).length;
    expect(ok, `answers ${JSON.stringify(answers)}`).toBeGreaterThanOrEqual(
      Math.ceil(answers.length * 0.95),
    );
    // Each attacker was held to its share: the posts past it were refused, not kept.
    expect(attackers.every((attacker) => attacker.refused() > 0)).toBe(true);
  } finally {
    for (const attacker of attackers) attacker.stop();
  }
}, 90_000);
