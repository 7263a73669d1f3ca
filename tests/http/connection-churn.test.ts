/**
 * Connection churn at the server's cap (issue 32), against the built server with two workers in
 * a network namespace of the test's own. 12 addresses keep tunnel posts open whose header line
 * never ends, past the server's cap, and reopen each one 200 ms after the server closes it (past
 * a client's 8 such posts a worker, at once, with a 429): a process of their own
 * (tests/fixtures/churning-attacker.ts), sized by the descriptors it may have.
 *
 * node:cluster's primary accepted them all into one first-come line and handed them to the
 * workers one answer at a time: a newcomer's connection waited behind every attacker's, 5.6–10.6 s
 * at 12 × 850 (the review: answered 7%, 92%, 71% within 10 s), and under a descriptor limit the
 * primary ran out of descriptors and libuv closed what waited in the kernel's backlog, a
 * newcomer's connections too (pairs of "socket hang up"; here 44 of 48 and, under a hard limit of
 * 1,024, 29 of 33 answered before the test gave up, on a machine loaded by other builds). Now
 * clients take turns in the primary's line, bounded below its descriptors
 * (`handOffConnectionsFairly` in app/server/cluster/primary.server.ts). On a quiet machine the
 * workers refuse fast enough that node:cluster's own line stays short, and this test passes without the primary's
 * line too: it holds the bar; the line's policy is pinned by
 * tests/unit/server/cluster/primary.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type BuiltServer, startBuiltServer, stopChild } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';
import { createNetworkNamespace, type NetworkNamespace } from '#tests/support/network-namespace';
import { rawRequest } from '#tests/support/raw-request';
import { until } from '#tests/support/wait-for';

const ATTACKERS = Array.from({ length: 12 }, (_, i) => `198.18.4.${11 + i}`);
const NEWCOMER = '198.18.4.100';
const ATTACKER = resolve(import.meta.dirname, '../fixtures/churning-attacker.ts');
/**
 * The most descriptors the attacker's process may have: this process's hard limit (a CI's may
 * be 1,024), at most 4,096.
 */
const HARD_LIMIT = Math.min(
  4_096,
  Number(
    /^Max open files\s+\S+\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 4_096,
  ),
);
/** 125 an address (1,500) where descriptors allow; fewer under a hard limit near 1,024. */
const PER_ATTACKER = Math.min(125, Math.floor((HARD_LIMIT - 100) / ATTACKERS.length));
/**
 * The server's descriptor limit: half the attack's connections (750 for 12 × 125). Its cap
 * (2 workers × (limit − 256) × 0.9, server-limits.server.ts: 888) is well below the attack, and
 * the primary has fewer descriptors than the connections waiting in it.
 */
const SERVER_DESCRIPTORS = Math.floor((PER_ATTACKER * ATTACKERS.length) / 2);
const ANSWERS = 60;
/** The bar: a newcomer's connections answered during the flood. */
const SHARE = 0.95;

let namespace: NetworkNamespace;
let server: BuiltServer;
let port: number;

beforeAll(async () => {
  namespace = await createNetworkNamespace([...ATTACKERS, NEWCOMER]);
  server = await startBuiltServer(
    { HOST: '::', WEB_CONCURRENCY: '2' },
    { namespace, descriptorLimit: SERVER_DESCRIPTORS },
  );
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  await namespace?.close();
});

/** The attackers, running inside the namespace: what they last reported. */
async function startAttack() {
  const child: ChildProcess = spawn(
    namespace.enter()[0] as string,
    [
      ...namespace.enter().slice(1),
      'prlimit',
      `--nofile=${HARD_LIMIT}`,
      process.execPath,
      '--import',
      'tsx',
      ATTACKER,
      String(port),
      String(PER_ATTACKER),
      '200',
      ...ATTACKERS,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((done) => child.once('close', done));
  let last = { open: 0, closed: 0, refused: 0 };
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() as string;
    const line = lines.pop();
    if (line) last = JSON.parse(line);
  });
  return { last: () => last, stop: () => stopChild(child, exited) };
}

/** The newcomer's request on a new connection: its status, or how it failed. */
async function newcomer(path: string, body?: Buffer): Promise<number | string> {
  try {
    const answer = await rawRequest(`http://127.0.0.1:${port}${path}`, {
      ...(body ? { method: 'POST', body } : {}),
      connect: () => namespace.connect(NEWCOMER, '127.0.0.1', port),
      timeoutMs: 5_000,
    });
    return answer.status;
  } catch (error) {
    return (error as Error).message;
  }
}

it(`answers a newcomer's connections (${SHARE * 100}% or more) while 12 addresses churn tunnel posts at the server's cap`, async () => {
  const attack = await startAttack();
  try {
    // The churn under way: every post tried, twice over, past a client's share refused and
    // reopened. (How many stay open at once depends on how fast the server refuses: under load
    // nearly all of them wait in the primary's line, on a quiet machine half are already gone.)
    await until(
      "the attackers' posts past their share to be refused, twice over",
      () => attack.last().refused >= 2 * PER_ATTACKER * ATTACKERS.length,
      { timeoutMs: 60_000 },
    );
    const refusedBefore = attack.last().refused;
    const answers: Array<number | string> = [];
    const allowedFailures = ANSWERS - Math.ceil(ANSWERS * SHARE);
    // Stops once the bar is lost: a failing run ends in seconds, not minutes of timeouts.
    while (
      answers.length < ANSWERS &&
      answers.filter((answer) => answer !== 200).length <= allowedFailures
    ) {
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
      Math.ceil(ANSWERS * SHARE),
    );
    // The churn went on throughout: posts past a client's share were refused and reopened.
    expect(attack.last().refused - refusedBefore).toBeGreaterThan(PER_ATTACKER * ATTACKERS.length);
  } finally {
    await attack.stop();
  }
}, 120_000);
