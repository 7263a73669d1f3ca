/**
 * `npm run dev` is honest about where it listens: loopback unless HOST says otherwise, the
 * HMR sockets too, a banner that says so, and a busy port stops it with `npm start`'s message
 * instead of moving it to another port.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testEnv, watchOutput } from '#tests/support/built-server';
import { type DevServer, freePort, startDevServer } from '#tests/support/dev-server';
import { listeningAddresses } from '#tests/support/listening-sockets';

describe('with HOST unset', () => {
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer({ HOST: '' });
  }, 90_000);
  afterAll(() => dev?.stop());

  test('the page server and every HMR socket listen on 127.0.0.1 only', async () => {
    // The HMR servers start with the routers' vite servers, before the banner.
    const port = Number(new URL(dev.url).port);
    const addresses = listeningAddresses(dev.pid);
    expect(addresses).toContain(`127.0.0.1:${port}`);
    // The page server and one HMR socket per router with vite (client, ssr, server).
    expect(addresses.length).toBeGreaterThanOrEqual(4);
    expect(addresses.filter((address) => !address.startsWith('127.0.0.1:'))).toEqual([]);
    const page = await fetch(dev.url);
    expect(page.status).toBe(200);
  });

  test('the banner says so, and nothing about --host', async () => {
    // The banner's last line, after the "Local:" line the harness waited for.
    await dev.waitForOutput(/Network:/);
    expect(dev.output()).toContain('Network:  not exposed: listening on 127.0.0.1 only');
    expect(dev.output()).not.toContain('--host');
  });

  test('it says where errors go, as npm start does', () => {
    const { port } = new URL(dev.url);
    expect(dev.output()).toMatch(
      new RegExp(
        `^\\[monitoring\\] local inbox mode \\(no SENTRY_DSN\\): errors are kept in .+; read them at http://127\\.0\\.0\\.1:${port}/errors`,
        'm',
      ),
    );
  });
});

test('a busy port stops it with the message npm start gives, exit code 1', async () => {
  const port = await freePort();
  const busy: Server = createServer();
  await new Promise<void>((done) => busy.listen(port, '127.0.0.1', done));
  try {
    const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../scripts/dev.mjs')], {
      env: testEnv({ NODE_ENV: 'development', PORT: String(port), HOST: '' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { output, exited } = watchOutput(child);
    expect(await exited).toBe(1);
    expect(output().trim()).toBe(
      `[server] port ${port} is already in use on 127.0.0.1: stop the other server, or set PORT to a free port (PORT=0 picks one)`,
    );
  } finally {
    busy.close();
  }
}, 30_000);
