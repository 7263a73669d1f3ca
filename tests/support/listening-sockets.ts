/**
 * The TCP addresses a process and its descendants listen on, read from /proc (Linux): how a
 * test sees the sockets a server opened without being told about them (vite's HMR ports).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function descendantsOf(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean),
  );
  return [pid, ...children.map(Number).flatMap(descendantsOf)];
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // Closed since the listing.
    }
  }
  return inodes;
}

/** `0100007F` → 127.0.0.1; IPv6 as four little-endian words → a plain hex form. */
function addressOf(hex: string): string {
  if (hex.length === 8)
    return (hex.match(/../g) ?? [])
      .reverse()
      .map((b) => parseInt(b, 16))
      .join('.');
  if (/^0{32}$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  if (/^0{16}FFFF0000/i.test(hex)) return `::ffff:${addressOf(hex.slice(24))}`;
  return hex;
}

/** `host:port` of every listening TCP socket of the process tree under `pid`. */
export function listeningAddresses(pid: number): string[] {
  const inodes = new Set(descendantsOf(pid).flatMap((each) => [...socketInodes(each)]));
  const listening: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = row.trim().split(/\s+/);
      if (state !== '0A' || !local || !inode || !inodes.has(inode)) continue;
      const [host = '', port = ''] = local.split(':');
      listening.push(`${addressOf(host)}:${parseInt(port, 16)}`);
    }
  }
  return listening;
}
