/**
 * What `npm run build` does with Sentry's settings in its environment, as a CI job that exports
 * them for every step would run it: the Sentry plugin, with our options, in a real vite build
 * of a one-file app. It must give the chunk a debug ID and nothing else: no connection to
 * anyone (an upload, a release, telemetry), no release baked into the code.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentryVitePlugin } from '@sentry/vite-plugin';
import { build } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { debugIdsOf } from '#tests/support/client-build';
import { sentryBuildOptions } from '../../../build/sentry-build-options';

const CI_ENVIRONMENT = {
  SENTRY_AUTH_TOKEN: 'sntrys_build-must-not-use-this',
  SENTRY_ORG: 'acme',
  SENTRY_PROJECT: 'web',
  SENTRY_RELEASE: 'release-from-the-ci-job',
};

const saved = Object.fromEntries(
  Object.keys(CI_ENVIRONMENT).map((name) => [name, process.env[name]]),
);
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/**
 * Every TCP connection this process tried to open while `run` ran: node:http, node:https (TLS
 * sockets are net sockets) and fetch all call net.Socket#connect. None is let through: the
 * test needs no network, and a build that tried fails here at once instead of waiting on one.
 */
async function connectionsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const tried: string[] = [];
  const connect = Socket.prototype.connect;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    const options = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { host?: string };
    tried.push(options?.host ?? 'a connection');
    process.nextTick(() => this.destroy(new Error('no connection from a build')));
    return this;
  } as typeof connect;
  try {
    await run();
  } finally {
    Socket.prototype.connect = connect;
  }
  return tried;
}

describe('a build with SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT and SENTRY_RELEASE set', () => {
  // 20 s: an upload retries for about 7 s before it gives up, and the failure names its hosts.
  it('gives the chunk a debug ID, bakes in no release and tries no connection', async () => {
    Object.assign(process.env, CI_ENVIRONMENT);
    const root = mkdtempSync(join(tmpdir(), 'sentry-build-'));
    writeFileSync(join(root, 'main.js'), 'document.title = "built";\n');
    const outDir = join(root, 'dist');

    const tried = await connectionsDuring(() =>
      build({
        root,
        configFile: false,
        logLevel: 'silent',
        build: {
          outDir,
          sourcemap: 'hidden',
          rollupOptions: { input: join(root, 'main.js') },
        },
        plugins: [sentryVitePlugin(sentryBuildOptions())],
      }),
    );

    expect(tried).toEqual([]);
    const assets = join(outDir, 'assets');
    const chunk = readdirSync(assets).find((name) => name.endsWith('.js')) as string;
    const code = readFileSync(join(assets, chunk), 'utf8');
    expect(debugIdsOf(code).comment).toMatch(/^[0-9a-f-]{36}$/);
    const map = JSON.parse(readFileSync(join(assets, `${chunk}.map`), 'utf8'));
    expect(map.debugId).toBe(debugIdsOf(code).comment);
    expect(code).not.toContain(CI_ENVIRONMENT.SENTRY_RELEASE);
    expect(code).not.toMatch(/SENTRY_RELEASE\s*=/);
  }, 20_000);
});
