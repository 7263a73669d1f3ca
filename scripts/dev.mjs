// npm run dev: `vinxi dev` on loopback unless HOST says otherwise, stopped by a port in use
// instead of moved to another one, with a banner that says where it listens.
// Workarounds for the frozen vinxi 0.5.3 / @vinxi/listhen, each with its symptom
// (docs/decisions/0960-honest-dev-server.md):
// - listhen listens on every address inside a container (its isDocker() default) while its
//   banner says "use --host to expose": HOST is set here, and listhen reads it.
// - get-port-please moves a busy port to one of 3000-3100 ("Using alternative port"): the port
//   is tried here first, and app.config.ts stops the server if it moved anyway (a race).
// - the banner's "Network: use --host to expose" line is replaced by one that is true.
// Retire this file when the app leaves vinxi (Start 1.121+ runs on vite's own dev server).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { devAddress, exposureLine, portInUseMessage } from './dev-address.mjs';

if (existsSync('.env')) process.loadEnvFile('.env');
const address = devAddress(process.env);

/** @returns {Promise<NodeJS.ErrnoException | undefined>} */
function tryListen({ host, port }) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', done);
    probe.listen(port, host, () => probe.close(() => done(undefined)));
  });
}

if (address.port !== 0) {
  const error = await tryListen(address);
  if (error) {
    console.error(
      error.code === 'EADDRINUSE'
        ? portInUseMessage(address)
        : `[server] cannot listen on ${address.host}:${address.port}: ${error.message}`,
    );
    process.exit(1);
  }
}

const vinxi = fileURLToPath(new URL('../node_modules/vinxi/bin/cli.mjs', import.meta.url));
const child = spawn(process.execPath, [vinxi, 'dev', ...process.argv.slice(2)], {
  env: { ...process.env, HOST: address.host, PORT: String(address.port) },
  stdio: ['inherit', 'pipe', 'inherit'],
});

// listhen's banner, line by line: its "Network:" line is the one that is not true.
let pending = '';
child.stdout.on('data', (chunk) => {
  pending += chunk.toString();
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const plain = stripVTControlCharacters(line);
    process.stdout.write(
      `${/Network:\s+use --host to expose/.test(plain) ? exposureLine(address) : line}\n`,
    );
  }
});
child.stdout.on('end', () => {
  if (pending) process.stdout.write(pending);
});

for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
