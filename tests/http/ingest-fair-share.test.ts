/**
 * The local inbox's ingest queue shared fairly (issue 32), against the built server with two
 * workers in a network namespace of the test's own. 30 addresses, each under its own rate,
 * post envelopes without pause, each a new issue with 10 tags and a release of its own, 80 at
 * a time each (tests/fixtures/ingest-flood.ts): more than the 1,024 that may wait in each worker, and more
 * than the store keeps up with. One queue, first come first served, made a visitor's report
 * wait behind all of them or refused it (503): 23 of 40 stored here (48% in the review).
 * Shared fairly, a visitor posting a small report every 250 ms has it stored, and its id back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type BuiltServer, startBuiltServer, watchOutput } from '#tests/support/built-server';
import { eventId, textEnvelope } from '#tests/support/envelopes';
import { createNetworkNamespace, type NetworkNamespace } from '#tests/support/network-namespace';
import { rawRequest } from '#tests/support/raw-request';
import { until } from '#tests/support/wait-for';

const FLOOD = resolve(import.meta.dirname, '../fixtures/ingest-flood.ts');
const ATTACKERS = Array.from({ length: 30 }, (_, i) => `198.18.1.${i + 1}`);
const VISITOR = '198.18.1.100';
const PER_ATTACKER = 80;
const REPORTS = 40;
const EVERY_MS = 250;

let namespace: NetworkNamespace;
let server: BuiltServer;
let port: number;

beforeAll(async () => {
  namespace = await createNetworkNamespace([...ATTACKERS, VISITOR]);
  server = await startBuiltServer({ HOST: '::', WEB_CONCURRENCY: '2' }, { namespace });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  await namespace?.close();
});

/** The flood, from inside the namespace; its output is its counts of answers by status. */
function startFlood(): { child: ChildProcess; sent: () => number; counts: () => string } {
  const [command = 'nsenter', ...prefix] = namespace.enter();
  const child = spawn(
    command,
    [
      ...prefix,
      process.execPath,
      '--import',
      'tsx',
      FLOOD,
      `http://127.0.0.1:${port}/monitoring?o=0&p=1`,
      String(PER_ATTACKER),
      ...ATTACKERS,
    ],
    { cwd: resolve(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { output } = watchOutput(child);
  const last = () =>
    output()
      .trim()
      .split('\n')
      .findLast((line) => line.startsWith('flood ')) ?? '';
  return {
    child,
    counts: last,
    sent: () => Number(/^flood sent (\d+)/.exec(last())?.[1] ?? 0),
  };
}

/** One small report from the visitor on a connection of its own: its status and answer. */
async function report(): Promise<{ status: number | string; stored: boolean }> {
  const id = eventId();
  try {
    const answer = await rawRequest(`http://127.0.0.1:${port}/monitoring?o=0&p=1`, {
      method: 'POST',
      body: textEnvelope(LOCAL_INBOX_DSN, id),
      connect: () => namespace.connect(VISITOR, '127.0.0.1', port),
      timeoutMs: 20_000,
    });
    return { status: answer.status, stored: answer.text === JSON.stringify({ id }) };
  } catch (error) {
    return { status: (error as Error).message, stored: false };
  }
}

it('stores a visitor’s reports (95% or more) while 30 addresses flood the ingest queue', async () => {
  const flood = startFlood();
  try {
    // Under way: every connection of the flood has posted.
    await until(
      () => `every connection of the flood to post: ${flood.counts()}`,
      () => flood.sent() >= ATTACKERS.length * PER_ATTACKER,
      { timeoutMs: 30_000 },
    );
    const reports: Array<Promise<{ status: number | string; stored: boolean }>> = [];
    for (let i = 0; i < REPORTS; i += 1) {
      reports.push(report());
      await new Promise((done) => setTimeout(done, EVERY_MS));
    }
    const answers = await Promise.all(reports);
    const stored = answers.filter((answer) => answer.stored).length;
    expect(
      stored,
      `statuses ${JSON.stringify(answers.map((answer) => answer.status))}; flood ${flood.counts()}`,
    ).toBeGreaterThanOrEqual(Math.ceil(REPORTS * 0.95));
  } finally {
    flood.child.kill('SIGTERM');
  }
}, 120_000);
