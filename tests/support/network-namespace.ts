/**
 * A network namespace of the test's own (`unshare --net`, as root): its loopback carries extra
 * addresses (198.18.0.x, fd00::x), so that a server inside sees clients that are not on
 * loopback, and nothing sent there can leave the machine. A relay process
 * (tests/fixtures/namespace-relay.ts) holds the namespace; programs run inside with
 * `enter()`, and this process opens connections inside, from any of the addresses, through the
 * relay's Unix socket.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopChild, watchOutput } from './built-server';

const RELAY = resolve(import.meta.dirname, '../fixtures/namespace-relay.ts');
const ROOT = resolve(import.meta.dirname, '../..');

export interface NetworkNamespace {
  /** The command prefix that runs a program inside the namespace. */
  enter(): string[];
  /** A TCP connection inside the namespace from `from` to `host`:`port`, as a local socket. */
  connect(from: string, host: string, port: number): Socket;
  close(): Promise<void>;
}

export async function createNetworkNamespace(addresses: string[]): Promise<NetworkNamespace> {
  const dir = mkdtempSync(join(tmpdir(), 'netns-'));
  const path = join(dir, 'relay.sock');
  const script = [
    'set -e',
    'ip link set lo up',
    // nodad: an IPv6 address is usable at once, not after duplicate address detection.
    'for a in "$@"; do case "$a" in *:*) ip addr add "$a/128" dev lo nodad;; *) ip addr add "$a/32" dev lo;; esac; done',
    `exec "${process.execPath}" --import tsx "${RELAY}" "${path}"`,
  ].join('\n');
  const child: ChildProcess = spawn(
    'unshare',
    ['--net', '--', 'sh', '-c', script, 'sh', ...addresses],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const { waitForOutput, exited } = watchOutput(child);
  try {
    await waitForOutput(/relay on /, 30_000);
  } catch (error) {
    await stopChild(child, exited);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    enter: () => ['nsenter', `--net=/proc/${child.pid}/ns/net`, '--'],
    connect(from, host, port) {
      const socket = connect(path);
      socket.setNoDelay(true);
      socket.write(`${from} ${host} ${port}\n`);
      return socket;
    },
    async close() {
      await stopChild(child, exited);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
