/**
 * What a server event says about where it happened, beyond the error itself:
 * - the request that failed, as Sentry's `request` interface and transaction have it: method,
 *   URL, query string and a safe subset of headers; the route as the transaction; for a server
 *   function, its readable name and the page that called it (pure;
 *   https://develop.sentry.dev/sdk/data-model/event-payloads/request/);
 * - the machine, as the `os` context @sentry/node's Context integration computes it (its
 *   `getOsContext`): our server client is @sentry/core's (decision 0201), which has no such
 *   integration. Read once per process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { extractQueryParamsFromUrl, type OsContext, type RequestEventData } from '@sentry/core';
import { processShared } from '#app/start-1.120/process-shared.server';
import { serverFunctionIdOf } from '#app/start-1.120/server-function-calls';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'os-context': OsContext;
  }
}

export interface FailedRequest {
  method: string;
  /** The request's absolute URL, as the server saw it. */
  url: string;
  headers: Iterable<[string, string]>;
  /** A page's route id (`/sentry-example-page/`, `__root__`), or a server function's id. */
  route: string;
  serverFunction: boolean;
}

export interface ServerFunctionFacts {
  /** The export's name (`callFailingExample`). */
  name: string;
  /** Start's id for it, as its URL has it. */
  id: string;
  /** The same-origin page that called it (its Referer), when it says. */
  page?: string;
}

export interface EventRequestFacts {
  request: RequestEventData;
  /** The route, never `/_server/…`: a server function's is its calling page's path. */
  transaction: string;
  serverFunction?: ServerFunctionFacts;
}

/**
 * Headers worth seeing and safe to send. An allow-list, not a deny-list: a header an app or
 * a proxy adds (`X-Api-Key`, `X-Amz-Security-Token`, a session header of its own) stays out
 * unless named here; Cookie, Authorization and Proxy-Authorization never are.
 */
export const SHOWN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-length',
  'content-type',
  'dnt',
  'host',
  'origin',
  'pragma',
  'referer',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
  'sec-fetch-dest',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-user',
  'upgrade-insecure-requests',
  'user-agent',
]);

/** A header value is shown up to this length: a giant User-Agent is not worth an event's bytes. */
const MAX_HEADER_VALUE = 1024;

export function eventRequestFacts(failed: FailedRequest): EventRequestFacts {
  const url = parsed(failed.url);
  const headers: Record<string, string> = {};
  let referer: string | undefined;
  for (const [key, value] of failed.headers) {
    const name = key.toLowerCase();
    if (!SHOWN_HEADERS.has(name)) continue;
    if (name === 'referer') {
      referer = sameOriginPage(value, url);
      if (!referer) continue;
    }
    headers[name] = value.slice(0, MAX_HEADER_VALUE);
  }
  const request: RequestEventData = {
    method: failed.method,
    url: url ? url.origin + url.pathname : failed.url,
    headers,
  };
  const query = extractQueryParamsFromUrl(failed.url);
  if (query) request.query_string = query;
  if (!failed.serverFunction) {
    return { request, transaction: transactionOf(failed.route, url) };
  }
  const serverFunction: ServerFunctionFacts = {
    name: serverFunctionName(failed.route),
    id: failed.route,
  };
  if (referer) serverFunction.page = referer;
  return { request, transaction: callerOf(referer, url) ?? serverFunction.name, serverFunction };
}

/**
 * The path of the page a server function was called for: its Referer's over HTTP; called
 * in-process by a loader during SSR, the request is the page's own.
 */
function callerOf(referer: string | undefined, url: URL | undefined): string | undefined {
  if (referer) return parsed(referer)?.pathname;
  if (url && serverFunctionIdOf(url.pathname) === undefined) return url.pathname;
  return undefined;
}

/** A page's route id is its pattern; the root's own failure is named by the page it failed on. */
function transactionOf(route: string, url: URL | undefined): string {
  if (route === '__root__' || route === '') return url?.pathname ?? '/';
  return route;
}

/**
 * A server function's export name from Start's id: the file's path with its separators
 * replaced, `--`, then `<export>_createServerFn_handler`
 * (`app_server_example_functions_ts--callFailingExample_createServerFn_handler`).
 */
export function serverFunctionName(id: string): string {
  const separator = id.lastIndexOf('--');
  if (separator === -1) return id;
  return id.slice(separator + 2).replace(/_createServerFn_handler$/, '') || id;
}

/** The Referer when it is a page of the same origin as the request: another site's is not ours. */
export function sameOriginPage(referer: string, request: URL | undefined): string | undefined {
  const page = parsed(referer);
  if (!page || !request || page.origin !== request.origin) return undefined;
  return page.origin + page.pathname + page.search;
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The `os` context of every server event, read once per process. */
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
