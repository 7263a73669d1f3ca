/**
 * WEB_CONCURRENCY=2 against the built server: one server, not two. Both workers serve and a
 * client's connection cap is the server's, shared between them; the start lines come once; a
 * session signed in on one worker holds on the other; a worker killed with `kill -9` in the
 * middle of a burst of reports loses none that were acknowledged, /health says so while it is
 * down, and the primary starts another. (SIGTERM under load: ./graceful-shutdown.test.ts.)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { envelopeBytes, errorEvent } from '#tests/fixtures/inbox-envelopes';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { freePort } from '#tests/support/dev-server';
import { postFrom } from '#tests/support/envelopes';
import { readInbox } from '#tests/support/inbox-database';
import { generatedTokenIn, postSignIn, sessionCookieOf } from '#tests/support/inbox-sign-in';
import { rawRequest } from '#tests/support/raw-request';
import { slowPost } from '#tests/support/slow-client';
import { until } from '#tests/support/wait-for';

const PER_CLIENT = 4;

interface Health {
  status: string;
  reasons: string[];
  workers: { up: number; of: number };
}

/**
 * /health on a connection of its own; a request the killed worker took with it fails after
 * `timeoutMs` (see postEnvelope).
 */
async function health(server: BuiltServer, timeoutMs = 2_000): Promise<Health> {
  const answer = await rawRequest(`${server.url}/health`, {
    timeoutMs,
    headers: { connection: 'close' },
  });
  return JSON.parse(answer.text) as Health;
}

/** The worker processes: the primary's children, in the order they were started. */
function workersOf(server: BuiltServer): number[] {
  return readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

/**
 * Opens a connection and asks for /health on it, leaving it open: 'answered', or 'refused' when
 * the server closed it unanswered.
 */
function openAndAsk(
  url: string,
  held: Array<{ destroy(): void }>,
): Promise<'answered' | 'refused'> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(port), hostname);
    held.push(socket);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
      if (received.includes('\r\n\r\n')) done('answered');
    });
    socket.on('error', () => {});
    socket.on('close', () => done(received ? 'answered' : 'refused'));
    socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  });
}

/**
 * One tunnel post from `localAddress`: its status, or 'no answer'. A connection the primary was
 * handing to the worker as it was killed is never answered nor closed (node:cluster keeps its
 * copy until the worker replies): it counts as unanswered after a while, as a browser would
 * give up on it.
 */
function postEnvelope(server: BuiltServer, body: Uint8Array, localAddress: string) {
  return postFrom(server.url, body, localAddress, 5_000).then(
    (answer) => answer.status,
    () => 'no answer' as const,
  );
}

/** A report for the local inbox, as the browser SDK sends it through the tunnel. */
function reportEnvelope(eventId: string): Uint8Array {
  return envelopeBytes({ dsn: LOCAL_INBOX_DSN, event_id: eventId }, [
    { header: { type: 'event' }, payload: errorEvent({ eventId }) },
  ]);
}

const hex32 = (n: number) => n.toString(16).padStart(32, 'f');

describe('two workers', () => {
  let server: BuiltServer;
  let dir: string;

  beforeAll(async () => {
    dir = join(mkdtempSync(join(tmpdir(), 'workers-')), 'inbox');
    server = await startBuiltServer({
      WEB_CONCURRENCY: '2',
      MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
      MONITORING_INBOX_DIR: dir,
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints its start lines once, naming the worker count', () => {
    const output = server.output();
    expect(output.match(/Listening on /g)).toHaveLength(1);
    expect(output).toMatch(
      /Listening on http:\/\/127\.0\.0\.1:\d+ with 2 workers \(WEB_CONCURRENCY=2\)/,
    );
    expect(output.match(/\[monitoring\] local inbox mode/g)).toHaveLength(1);
    expect(output.match(/one-click sign-in/g)).toHaveLength(1);
    expect(workersOf(server)).toHaveLength(2);
  });

  it('serves on both workers, and refuses a client past its cap for the whole server', async () => {
    const held: Array<{ destroy(): void }> = [];
    try {
      const outcomes: string[] = [];
      // One at a time: the primary hands connections to the workers in turn. Each worker holds
      // 2 of this client's (4 for the server); 4 answered means both served.
      for (let i = 0; i < PER_CLIENT + 4; i++) outcomes.push(await openAndAsk(server.url, held));
      expect(outcomes).toEqual([
        ...Array(PER_CLIENT).fill('answered'),
        ...Array(4).fill('refused'),
      ]);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('knows a session on every worker, whichever signed it in', async () => {
    const signIn = await postSignIn(server.url, generatedTokenIn(server.output()));
    expect(signIn.status).toBe(303);
    const cookie = sessionCookieOf(signIn);
    // New connections, so that they go to both workers in turn.
    for (let i = 0; i < 6; i++) {
      const list = await rawRequest(`${server.url}/errors`, {
        headers: { 'user-agent': BROWSER_USER_AGENT, cookie },
      });
      // Not signed in, /errors sends the visitor to /errors/sign-in.
      expect([list.status, list.headers.location]).toEqual([200, undefined]);
    }
  });

  it('loses no acknowledged report when a worker is killed during a burst, and starts another', async () => {
    const [victim] = workersOf(server);
    const acknowledged: string[] = [];
    const unanswered: string[] = [];
    let next = 0;
    let killed = false;
    const TOTAL = 600;
    const client = async (index: number) => {
      const address = `127.0.${index}.1`;
      while (next < TOTAL) {
        const eventId = hex32(next++ + 1);
        const status = await postEnvelope(server, reportEnvelope(eventId), address);
        if (status === 200) acknowledged.push(eventId);
        else unanswered.push(`${eventId}: ${status}`);
        if (!killed && acknowledged.length >= 150) {
          killed = true;
          process.kill(victim as number, 'SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, index) => client(index + 1)));

    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThan(300);
    const stored = new Set(readInbox(dir).events.map((event) => event.eventId));
    expect(acknowledged.filter((eventId) => !stored.has(eventId))).toEqual([]);
    // Whatever was not acknowledged was lost with the worker, or refused: never a 500.
    expect(unanswered.filter((line) => line.endsWith(': 500'))).toEqual([]);

    const back = await pollHealth(server, (now) => now.workers.up === 2);
    expect(back).toMatchObject({ status: 'ok', workers: { up: 2, of: 2 } });
    const workers = workersOf(server);
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(victim);
    expect(server.output()).toMatch(
      new RegExp(`\\[server\\] worker \\d \\(pid ${victim}\\) stopped \\(signal SIGKILL\\)`),
    );
  }, 60_000);

  it('says degraded on /health while a worker is down, naming it, and ok once it is back', async () => {
    await pollHealth(server, (now) => now.status === 'ok' && now.workers.up === 2);
    const [victim] = workersOf(server);
    process.kill(victim as number, 'SIGKILL');
    const down = await pollHealth(server, (now) => now.workers.up === 1);
    expect(down.status).toBe('degraded');
    expect(down.reasons).toEqual([
      expect.stringMatching(/^workers-down: worker \d is not serving \(1 of 2 are\)$/),
    ]);
    const up = await pollHealth(server, (now) => now.workers.up === 2);
    expect(up).toMatchObject({ status: 'ok', reasons: [], workers: { up: 2, of: 2 } });
  }, 30_000);
});

/**
 * /health, asked again and again until `holds`: the answer that held. A connection reset is
 * asked again: it went to the worker just killed.
 */
async function pollHealth(
  server: BuiltServer,
  holds: (health: Health) => boolean,
): Promise<Health> {
  let last: Health | undefined;
  let found: Health | undefined;
  // Four at a time, each given up after a moment: a request handed to a worker just killed
  // hangs, and a state that lasts half a second must not be missed while one waits.
  const poller = () =>
    until(
      () => `/health to hold (last: ${JSON.stringify(last)})`,
      async () => {
        if (found) return true;
        const now = await health(server, 500).catch(() => undefined);
        if (now) last = now;
        if (now && holds(now)) found = now;
        return found !== undefined;
      },
      { timeoutMs: 15_000, everyMs: 0 },
    );
  await Promise.race(Array.from({ length: 4 }, poller));
  return found as Health;
}

describe('two workers, when things go wrong', () => {
  let server: BuiltServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('outlives every worker dying at once, again and again, and serves on the same port', async () => {
    // A port of its own: with PORT=0 the workers started again would pick another.
    server = await startBuiltServer({ WEB_CONCURRENCY: '2', PORT: String(await freePort()) });
    for (let round = 0; round < 4; round++) {
      for (const pid of workersOf(server)) process.kill(pid, 'SIGKILL');
      await pollHealth(server, (now) => now.status === 'ok' && now.workers.up === 2);
    }
    expect(server.exitCode()).toBeNull();
    expect(server.output().match(/stopped \(signal SIGKILL\)/g)).toHaveLength(8);
  }, 60_000);

  it('says a worker whose event loop is stuck is not answering, and ok once it runs again', async () => {
    server = await startBuiltServer({ WEB_CONCURRENCY: '2' });
    const running = server;
    await pollHealth(running, (now) => now.workers.up === 2);
    const [stuck] = workersOf(running);
    process.kill(stuck as number, 'SIGSTOP');
    try {
      const silent = await pollHealth(running, (now) => now.workers.up === 1);
      expect(silent.status).toBe('degraded');
      expect(silent.reasons).toEqual([
        expect.stringMatching(/^workers-down: worker \d is not answering \(1 of 2 are\)$/),
      ]);
    } finally {
      process.kill(stuck as number, 'SIGCONT');
    }
    await pollHealth(running, (now) => now.status === 'ok' && now.workers.up === 2);
    // Stuck for seconds, not for good: the same worker, not replaced.
    expect(workersOf(running)).toContain(stuck);
  }, 30_000);

  it('exits 1, naming it, when a worker is killed while it drains', async () => {
    server = await startBuiltServer({ WEB_CONCURRENCY: '2' });
    const running = server;
    // Worker 1 was started first: the primary's first child.
    const pids = workersOf(running);
    // A report still arriving keeps the worker that has it draining until it ends.
    const upload = await slowPost({
      origin: running.url,
      path: '/monitoring?o=0&p=1',
      contentLength: 100_000,
      start: new TextEncoder().encode(`{"dsn":"${LOCAL_INBOX_DSN}"}\n`),
    });
    process.kill(running.pid, 'SIGTERM');
    const draining = await running.waitForOutput(/worker (\d): SIGTERM: finishing 1 request/);
    const number = Number(/worker (\d)/.exec(draining)?.[1]);
    process.kill(pids[number - 1] as number, 'SIGKILL');
    await running.waitForOutput(
      new RegExp(`\\[server\\] worker ${number} stopped \\(signal SIGKILL\\) while draining`),
    );
    upload.socket.destroy();
    await running.stop();
    expect(running.exitCode()).toBe(1);
  }, 30_000);
});
