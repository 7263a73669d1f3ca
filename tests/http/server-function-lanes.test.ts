/**
 * Server-function places under slow bodies (issue 32), against the built server with two
 * workers in a network namespace of the test's own. 3 addresses × 8 calls whose bodies trickle
 * a byte a second (`Content-Length: 10000`), at the sign-in function and at clearing the inbox: each body
 * held a place for up to the 30 s request timeout, 8 places a worker, and the operator's
 * sign-in failed 8 of 9 with 503. Bodies are now read before a place is taken, and sign-in has
 * places of its own: the operator signs in, and another visitor's call is answered.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { createNetworkNamespace, type NetworkNamespace } from '#tests/support/network-namespace';
import { rawRequest } from '#tests/support/raw-request';
import {
  CLEAR_INBOX_FN,
  GET_APP_OVERVIEW_FN,
  SIGN_IN_TO_INBOX_FN,
} from '#tests/support/server-function-paths';
import { until } from '#tests/support/wait-for';

const ATTACKERS = ['198.18.3.11', '198.18.3.12', '198.18.3.13'];
const OPERATOR = '198.18.3.100';
const VISITOR = '198.18.3.101';
const PER_ATTACKER = 8;
const TOKEN = 'the-operators-token-for-the-lanes-test';

let namespace: NetworkNamespace;
let server: BuiltServer;
let port: number;

beforeAll(async () => {
  namespace = await createNetworkNamespace([...ATTACKERS, OPERATOR, VISITOR]);
  server = await startBuiltServer(
    {
      HOST: '::',
      WEB_CONCURRENCY: '2',
      MONITORING_INBOX_TOKEN: TOKEN,
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
    },
    { namespace },
  );
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  await namespace?.close();
});

/** Calls from `from` whose bodies trickle a byte a second, half to sign-in, half elsewhere. */
function slowBodies(from: string, count: number) {
  const sockets = new Set<Socket>();
  let written = 0;
  for (let i = 0; i < count; i += 1) {
    const path = i % 2 === 0 ? SIGN_IN_TO_INBOX_FN : CLEAR_INBOX_FN;
    const socket = namespace.connect(from, '127.0.0.1', port);
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
    socket.write(
      `POST ${path}?createServerFn HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\ntoken=',
      () => {
        written += 1;
      },
    );
  }
  const trickle = setInterval(() => {
    for (const socket of sockets) if (socket.writable) socket.write('a');
  }, 1_000);
  return {
    written: () => written,
    stop() {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A request from `from` on a connection of its own (a POST with `form`): its answer. */
async function call(from: string, path: string, form?: string): Promise<number | string> {
  try {
    const answer = await rawRequest(`http://127.0.0.1:${port}${path}`, {
      ...(form === undefined
        ? {}
        : {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
          }),
      connect: () => namespace.connect(from, '127.0.0.1', port),
      timeoutMs: 10_000,
    });
    const signedIn =
      answer.status === 303 && String(answer.headers['set-cookie']).startsWith('inbox_session=');
    return signedIn ? 'signed in' : answer.status;
  } catch (error) {
    return (error as Error).message;
  }
}

it('signs the operator in (9 of 10) and answers another caller while 3 addresses trickle 8 bodies each', async () => {
  const attackers = ATTACKERS.map((address) => slowBodies(address, PER_ATTACKER));
  try {
    await until(
      "every attacker's calls written",
      () => attackers.every((a) => a.written() === PER_ATTACKER),
      { timeoutMs: 10_000 },
    );
    // Every body has reached the server and waits for its next byte.
    await server.stderrBarrier();
    const signIns: Array<number | string> = [];
    const others: Array<number | string> = [];
    for (let attempt = 0; attempt < 10; attempt += 1) {
      signIns.push(
        await call(
          OPERATOR,
          `${SIGN_IN_TO_INBOX_FN}?createServerFn`,
          new URLSearchParams({ token: TOKEN }).toString(),
        ),
      );
      // A call the way Start's client makes it: the payload in the query.
      const payload = encodeURIComponent(JSON.stringify({ data: {}, context: {} }));
      others.push(await call(VISITOR, `${GET_APP_OVERVIEW_FN}?createServerFn&payload=${payload}`));
    }
    expect(
      signIns.filter((answer) => answer === 'signed in').length,
      `sign-ins ${JSON.stringify(signIns)}`,
    ).toBeGreaterThanOrEqual(9);
    expect(
      others.filter((answer) => answer === 200).length,
      `calls ${JSON.stringify(others)}`,
    ).toBeGreaterThanOrEqual(9);
  } finally {
    for (const attacker of attackers) attacker.stop();
  }
}, 90_000);
