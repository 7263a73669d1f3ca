/**
 * Starts what `npm run dev` runs (scripts/dev.mjs, which runs `vinxi dev`) on 127.0.0.1 and a
 * free port, for the few tests of the development loop. Slow to start (it compiles on first
 * request): use sparingly.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { stopChild, testEnv, watchOutput } from './built-server';

const ROOT = resolve(import.meta.dirname, '../..');
const DEV = resolve(ROOT, 'scripts/dev.mjs');

export interface DevServer {
  url: string;
  /** scripts/dev.mjs's process; vinxi runs as its child. */
  pid: number;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startDevServer(env: Record<string, string> = {}): Promise<DevServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [DEV], {
    cwd: ROOT,
    // Plain output to match against: Playwright's runner sets FORCE_COLOR for its workers.
    env: testEnv({
      NODE_ENV: 'development',
      PORT: String(port),
      FORCE_COLOR: '0',
      NO_COLOR: '1',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, waitForOutput, exited } = watchOutput(child);
  const host = env.HOST || '127.0.0.1';
  const url = `http://${host}:${port}`;
  const stop = () => stopChild(child, exited);
  try {
    await waitForOutput(
      new RegExp(`Local:\\s+http://${host.replaceAll('.', '\\.')}:${port}`),
      60_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid as number, output, waitForOutput, stop };
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}
