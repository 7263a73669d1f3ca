/**
 * Debian's nginx (`nginx-light`, installed by .ci/run) in front of a test server: started in
 * the foreground on a free 127.0.0.1 port with everything it writes (pid, temp files, logs)
 * in a directory of its own, so it needs no root and touches nothing of the machine's nginx.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopChild, watchOutput } from './built-server';
import type { NetworkNamespace } from './network-namespace';
import { until } from './wait-for';

export const NGINX = '/usr/sbin/nginx';

export interface Nginx {
  /** http://127.0.0.1:<port> */
  url: string;
  /** What nginx wrote to its access log so far. */
  accessLog(): string;
  stop(): Promise<void>;
}

/**
 * The `server { … }` block docs/production.md recommends, listening on `port` and proxying to
 * `upstream` (`127.0.0.1:<port>`): the docs' own text, so the test runs what readers copy.
 */
export function recommendedServerBlock(port: number, upstream: string): string {
  const docs = readFileSync(resolve(import.meta.dirname, '../../docs/production.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(docs)?.[1];
  if (!block) throw new Error('docs/production.md has no ```nginx block');
  if (!block.includes('listen 80;') || !block.includes('http://127.0.0.1:3000;')) {
    throw new Error('the nginx block no longer says `listen 80;` and `http://127.0.0.1:3000;`');
  }
  return block
    .replace('listen 80;', `listen 127.0.0.1:${port};`)
    .replace('http://127.0.0.1:3000;', `http://${upstream};`);
}

/** nginx's bare default: proxy_pass and nothing else (no Host, no X-Forwarded-For). */
export function bareServerBlock(port: number, upstream: string): string {
  return `server {\n    listen 127.0.0.1:${port};\n    location / {\n        proxy_pass http://${upstream};\n    }\n}\n`;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * The app's environment the recipe in docs/production.md sets for the proxy: `TRUSTED_PROXIES`,
 * as its "start the app with" sentence says it (`TRUSTED_PROXIES=…`), so that the test runs what readers copy.
 */
export function recommendedAppEnv(): Record<string, string> {
  const docs = readFileSync(resolve(import.meta.dirname, '../../docs/production.md'), 'utf8');
  const section = docs.slice(docs.indexOf('## Behind a reverse proxy'));
  const trusted = /start the app with[\s\S]*?`TRUSTED_PROXIES=([^`\s]+)`/.exec(section)?.[1];
  if (!trusted) throw new Error('the proxy recipe in docs/production.md sets no TRUSTED_PROXIES');
  return { TRUSTED_PROXIES: trusted };
}

/**
 * Starts nginx with `serverBlock` (which listens on `port`) and waits until it accepts. In
 * `namespace`, it runs inside (listening on the namespace's loopback), and is reached only
 * through the namespace's connections.
 */
export async function startNginx(
  port: number,
  serverBlock: string,
  namespace?: NetworkNamespace,
): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-'));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      // As root, workers would switch to `nobody`, who cannot enter this private directory.
      process.getuid?.() === 0 ? 'user root;' : '',
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log;`,
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${dir}/access.log;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `  ${kind}_temp_path ${dir}/${kind};`,
      ),
      serverBlock,
      '}',
    ].join('\n'),
  );
  const [command = NGINX, ...args] = [
    ...(namespace ? namespace.enter() : []),
    NGINX,
    ...['-p', `${dir}/`, '-c', conf, '-e', `${dir}/error.log`, '-g', 'daemon off;'],
  ];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const { output, exited } = watchOutput(child);
  const errorLog = () => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  try {
    // An nginx that exited will never accept: that ends the wait too.
    await until(
      'nginx to accept connections',
      async () => child.exitCode !== null || (await accepts(port, namespace)),
      { everyMs: 20 },
    );
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
  } catch (error) {
    await stopChild(child, exited);
    throw new Error(
      `nginx did not start (${(error as Error).message}):\n${output()}\n${errorLog()}`,
    );
  }
  return {
    url: `http://127.0.0.1:${port}`,
    accessLog: () => readFileSync(join(dir, 'access.log'), 'utf8'),
    stop: () => stopChild(child, exited),
  };
}

function accepts(port: number, namespace: NetworkNamespace | undefined): Promise<boolean> {
  if (namespace) {
    // The relay accepts at once and closes when it cannot connect: ask nginx for a 4xx it answers itself.
    return new Promise((done) => {
      const socket = namespace.connect('127.0.0.1', '127.0.0.1', port);
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
      });
      socket.once('close', () => done(answer.startsWith('HTTP/1.1 ')));
      socket.on('error', () => {});
      socket.write('BAD\r\n\r\n');
    });
  }
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}
