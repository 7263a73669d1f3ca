/**
 * The `os` context of server events, as @sentry/node's Context integration computes it
 * (`getOsContext` in @sentry/node-core's integrations/context.ts): our server client is
 * @sentry/core's (decision 0201), which has no such integration. Read once per process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import type { OsContext } from '@sentry/core';
import { processShared } from '#app/start-1.120/process-shared.server';

export function osContext(): OsContext {
  return processShared('os-context', computeOsContext);
}

/** The SDK's names for Node's platforms other than Linux and macOS. */
const PLATFORM_NAMES: Record<string, string> = {
  aix: 'IBM AIX',
  freebsd: 'FreeBSD',
  openbsd: 'OpenBSD',
  sunos: 'SunOS',
  win32: 'Windows',
  android: 'Android',
};

function computeOsContext(): OsContext {
  const platform = os.platform();
  if (platform === 'linux') return linuxContext();
  // macOS: the SDK asks `sw_vers`; without a subprocess, its fallback from the kernel version.
  if (platform === 'darwin') {
    return {
      kernel_version: os.release(),
      name: 'Mac OS X',
      version: `10.${Number(os.release().split('.')[0]) - 4}`,
    };
  }
  return { name: PLATFORM_NAMES[platform] ?? platform, version: os.release() };
}

/** The SDK's release files in /etc, and the distributions each may name. */
const LINUX_DISTROS: Array<{ name: string; distros: string[] }> = [
  { name: 'fedora-release', distros: ['Fedora'] },
  { name: 'redhat-release', distros: ['Red Hat Linux', 'Centos'] },
  { name: 'redhat_version', distros: ['Red Hat Linux'] },
  { name: 'SuSE-release', distros: ['SUSE Linux'] },
  { name: 'lsb-release', distros: ['Ubuntu Linux', 'Arch Linux'] },
  { name: 'debian_version', distros: ['Debian'] },
  { name: 'debian_release', distros: ['Debian'] },
  { name: 'arch-release', distros: ['Arch Linux'] },
  { name: 'gentoo-release', distros: ['Gentoo Linux'] },
  { name: 'novell-release', distros: ['SUSE Linux'] },
  { name: 'alpine-release', distros: ['Alpine Linux'] },
];

const first = (pattern: RegExp) => (content: string) => pattern.exec(content)?.[1];

/** How the SDK reads a version out of each distribution's release file. */
const LINUX_VERSIONS: Record<string, (content: string) => string | undefined> = {
  alpine: (content) => content,
  arch: first(/distrib_release=(.*)/),
  centos: first(/release ([^ ]+)/),
  debian: (content) => content,
  fedora: first(/release (..)/),
  mint: first(/distrib_release=(.*)/),
  red: first(/release ([^ ]+)/),
  suse: first(/VERSION = (.*)\n/),
  ubuntu: first(/distrib_release=(.*)/),
};

function linuxContext(): OsContext {
  const context: OsContext = { kernel_version: os.release(), name: 'Linux' };
  try {
    const files = readdirSync('/etc');
    const distro = LINUX_DISTROS.find((candidate) => files.includes(candidate.name));
    if (!distro) return context;
    const contents = readFileSync(join('/etc', distro.name), 'utf8').toLowerCase();
    context.name =
      distro.distros.find((name) => contents.includes(identifierOf(name))) ?? distro.distros[0];
    const identifier = identifierOf(context.name ?? '');
    context.version = LINUX_VERSIONS[identifier]?.(contents)?.trim();
  } catch {
    // The SDK's fallback too: the kernel alone.
  }
  return context;
}

function identifierOf(name: string): string {
  return (name.split(' ')[0] as string).toLowerCase();
}
