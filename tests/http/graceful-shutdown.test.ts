/**
 * SIGTERM under load: the server stops accepting, answers every request already sent to it
 * (a reset or a half answer would be a visitor's failed page), then exits 0. As one process,
 * and as two workers, where the primary has each drain, then exits.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { BUILT_ENTRY, startBuiltServer, testEnv } from '#tests/support/built-server';
import { until } from '#tests/support/wait-for';

const CONNECTIONS = 24;

interface Tally {
  ok: number;
  /** Requests that were sent but got no whole 200: what must stay zero. */
  failed: string[];
  /** New connections refused or reset once the server stopped listening: never received. */
  refused: number;
}

/** One GET on a kept-alive connection; resolves with what became of it. */
function get(url: string, agent: Agent): Promise<'ok' | 'refused' | string> {
  return new Promise((done) => {
    const req = request(url, { agent, headers: { 'user-agent': BROWSER_USER_AGENT } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        done(
          res.statusCode === 200 && body.endsWith('</html>') ? 'ok' : `status ${res.statusCode}`,
        ),
      );
      res.on('error', (error) => done(`response ${error.message}`));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A new connection that was still in the kernel's accept queue when the server stopped
      // listening is reset by the kernel: the server never received that request. On a reused
      // connection (one the server did accept) a reset is a failure.
      const neverAccepted =
        error.code === 'ECONNREFUSED' || (error.code === 'ECONNRESET' && !req.reusedSocket);
      done(neverAccepted ? 'refused' : `request ${error.code ?? error.message}`);
    });
    req.end();
  });
}

it.each([
  ['one process', '1'],
  ['two workers', '2'],
])(
  '%s: finishes every request in flight at SIGTERM and exits 0',
  async (_name, workers) => {
    const server = await startBuiltServer({ WEB_CONCURRENCY: workers });
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const tally: Tally = { ok: 0, failed: [], refused: 0 };
    let stopping = false;

    const client = async () => {
      // Keep going until the server refuses new connections: it is gone.
      for (;;) {
        const outcome = await get(`${server.url}/about`, agent);
        if (outcome === 'ok') tally.ok++;
        else if (outcome === 'refused') {
          tally.refused++;
          if (stopping) return;
        } else tally.failed.push(outcome);
      }
    };
    const clients = Array.from({ length: CONNECTIONS }, client);

    // SIGTERM once the load is on: every connection has served at least one page.
    await until(
      () => `pages served on every connection (${tally.ok} so far)`,
      () => tally.ok >= CONNECTIONS * 3,
      { timeoutMs: 20_000, everyMs: 0 },
    );
    stopping = true;
    await server.stop();
    await Promise.all(clients);
    agent.destroy();

    expect(server.exitCode()).toBe(0);
    expect(tally.failed).toEqual([]);
    const draining = server.output().match(/SIGTERM: finishing \d+ request\(s\) in flight/g);
    expect(draining).toHaveLength(Number(workers));
    expect(server.output()).not.toContain('still running after');
  },
  60_000,
);

it.each([
  ['one process', '1'],
  ['two workers', '2'],
])(
  '%s: still drains and exits 0 when whoever read its output has gone',
  async (_name, workers) => {
    const child = spawn(process.execPath, [BUILT_ENTRY], {
      env: testEnv({ WEB_CONCURRENCY: workers }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let output = '';
    await new Promise<void>((done) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk;
        if (output.includes('Listening on')) done();
      });
    });
    // The log's reader goes away (a closed pipe): every line the server writes now fails.
    child.stdout.destroy();
    child.stderr.destroy();
    child.kill('SIGTERM');
    // Before, the first line of the drain failed, that failure was logged to the same pipe, and
    // the process spun there for good.
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    expect(await exited).toBe(0);
    clearTimeout(timer);
  },
  30_000,
);
